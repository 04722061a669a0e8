#include "text/tokenizer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/errors.h"
#include "text/basic_tokenizer.h"
#include "text/utf8.h"
#include "text/wordpiece.h"

namespace vitrel::text {

namespace {

int required_id(const Vocabulary& vocab, const std::string& token, const char* field) {
  const int id = vocab.id_of(token);
  if (id < 0)
    throw InputError(std::string("tokenizer.") + field + ": \"" + token +
                     "\" is not in the vocabulary");
  return id;
}

// A special token as code points, to find it in the text.
struct Special {
  std::vector<char32_t> cps;
  int id;
};

// The longest special token starting at chars[i], or nullptr (HF's trie split).
const Special* special_at(const Chars& chars, size_t i, const std::vector<Special>& specials) {
  const Special* best = nullptr;
  for (const Special& s : specials) {
    if (s.cps.empty() || i + s.cps.size() > chars.size()) continue;
    if (best && s.cps.size() <= best->cps.size()) continue;
    bool match = true;
    for (size_t k = 0; k < s.cps.size() && match; ++k) match = chars[i + k].cp == s.cps[k];
    if (match) best = &s;
  }
  return best;
}

// The characters tokenized at a time, at least (cut after the next whitespace).
constexpr size_t kStretch = 4096;

struct WordPiece {
  Piece piece;
  int word;
};

}  // namespace

Tokenizer::Tokenizer(Vocabulary vocab, TokenizerConfig config)
    : vocab_(std::move(vocab)), config_(std::move(config)) {
  cls_id_ = required_id(vocab_, config_.cls_token, "cls_token");
  sep_id_ = required_id(vocab_, config_.sep_token, "sep_token");
  unk_id_ = required_id(vocab_, config_.unk_token, "unk_token");
  pad_id_ = vocab_.id_of(config_.pad_token);
}

bool Tokenizer::in_word_maps(int id) const {
  return id != cls_id_ && id != sep_id_ && id != unk_id_ && (pad_id_ < 0 || id != pad_id_);
}

Encoding Tokenizer::encode(std::string_view text, int max_tokens) const {
  if (max_tokens < 2)
    throw InputError("max_tokens: " + std::to_string(max_tokens) +
                     " leaves no room for [CLS] and [SEP] (at least 2)");
  const Chars chars = decode_utf8(text);

  // HF's all_special_tokens, matched in the raw text before anything else.
  std::vector<Special> specials;
  for (const std::string* t : {&config_.unk_token, &config_.sep_token, &config_.pad_token,
                               &config_.cls_token, &config_.mask_token}) {
    Special s{{}, vocab_.id_of(*t)};
    for (const Char& c : decode_utf8(*t)) s.cps.push_back(c.cp);
    if (s.id < 0) s.id = unk_id_;
    specials.push_back(std::move(s));
  }

  const bool strip = config_.strip_accents == TokenizerConfig::Strip::Default
                         ? config_.do_lower_case
                         : config_.strip_accents == TokenizerConfig::Strip::Yes;
  const BasicOptions basic{strip, config_.tokenize_chinese_chars};

  // Only the tokens that fit are kept; the others are counted. The text is tokenized in
  // stretches cut after whitespace (nothing joins across it), so memory beyond the decoded
  // text stays bounded however long the text is.
  const size_t capacity = static_cast<size_t>(max_tokens - 2);
  std::vector<WordPiece> pieces;
  size_t dropped = 0;
  const auto add = [&](const Piece& p, int word) {
    if (pieces.size() < capacity)
      pieces.push_back({p, word});
    else
      ++dropped;
  };
  int words = 0;
  std::vector<Chars> fragment_words;
  std::vector<Piece> word_pieces;
  Chars fragment;
  const auto flush = [&] {
    fragment_words.clear();
    basic_tokenize(fragment, basic, fragment_words);
    fragment.clear();
    for (const Chars& w : fragment_words) {
      word_pieces.clear();
      wordpiece(w, vocab_, unk_id_, word_pieces);
      for (const Piece& p : word_pieces) add(p, words);
      ++words;
    }
  };
  for (size_t i = 0; i < chars.size();) {
    if (const Special* s = special_at(chars, i, specials)) {
      flush();
      const Char& last = chars[i + s->cps.size() - 1];
      add({s->id, chars[i].start, last.end}, words++);
      i += s->cps.size();
      continue;
    }
    // HF's tokenize() lower-cases one character at a time before the basic tokenizer.
    if (config_.do_lower_case)
      append_lower(chars[i], fragment);
    else
      fragment.push_back(chars[i]);
    if (fragment.size() >= kStretch && char_class(chars[i].cp) == CharClass::Whitespace) flush();
    ++i;
  }
  flush();

  Encoding out;
  out.text_length = chars.empty() ? 0 : chars.back().end;
  const size_t kept = pieces.size();
  out.dropped_tokens = static_cast<int>(std::min<size_t>(dropped, INT32_MAX));
  out.text_end = out.text_length;
  if (out.dropped_tokens > 0) {
    out.text_end = 0;
    for (size_t i = 0; i < kept; ++i) out.text_end = std::max(out.text_end, pieces[i].piece.end);
  }
  const size_t S = kept + 2;
  out.ids.reserve(S);
  out.ids.push_back(cls_id_);
  out.starts.assign(1, 0);
  out.ends.assign(1, 0);
  out.word_index.assign(1, -1);
  for (size_t i = 0; i < kept; ++i) {
    const WordPiece& p = pieces[i];
    out.ids.push_back(p.piece.id);
    out.starts.push_back(p.piece.start);
    out.ends.push_back(p.piece.end);
    out.word_index.push_back(p.word);
    if (p.word == static_cast<int>(out.word_starts.size())) {
      out.word_starts.push_back(p.piece.start);
      out.word_ends.push_back(p.piece.end);
    } else {
      out.word_starts.back() = std::min(out.word_starts.back(), p.piece.start);
      out.word_ends.back() = std::max(out.word_ends.back(), p.piece.end);
    }
  }
  out.ids.push_back(sep_id_);
  out.starts.push_back(0);
  out.ends.push_back(0);
  out.word_index.push_back(-1);
  return out;
}

std::vector<float> word_scores(const Tokenizer& tokenizer, const Encoding& encoding,
                               const std::vector<float>& scores) {
  if (scores.size() != encoding.ids.size())
    throw InputError("word map: the token map has " + std::to_string(scores.size()) +
                     " values for " + std::to_string(encoding.ids.size()) + " tokens");
  std::vector<float> out(encoding.word_starts.size(), std::numeric_limits<float>::quiet_NaN());
  for (size_t i = 0; i < scores.size(); ++i) {
    const int w = encoding.word_index[i];
    if (w < 0 || !tokenizer.in_word_maps(encoding.ids[i])) continue;
    float& s = out[static_cast<size_t>(w)];
    s = std::isnan(s) ? scores[i] : std::max(s, scores[i]);
  }
  return out;
}

}  // namespace vitrel::text
