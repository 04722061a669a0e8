// Embind bindings of src/text: the tokenizer of a text model and its word maps
// (runtime/core-text.js wraps them). Text and vocabulary come as UTF-8 Bytes: JS encodes
// them with TextEncoder, which writes a lone surrogate as U+FFFD.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "bytes.h"
#include "floats.h"
#include "js_errors.h"
#include "options.h"
#include "text/tokenizer.h"

namespace vitrel::wasm {
namespace {

using emscripten::val;
using text::Encoding;
using text::Tokenizer;
using text::TokenizerConfig;

std::string_view view_of(const Bytes& b) {
  return std::string_view(reinterpret_cast<const char*>(b.data()), b.byte_size());
}

constexpr const char* kField = "tokenizer.";  // how messages name metadata.tokenizer's fields

bool bool_of(const val& config, const char* key, bool fallback) {
  return bool_field(config, key, fallback, kField);
}

// A token string: absent → fallback; an empty string can match nothing.
std::string token_of(const val& config, const char* key, const std::string& fallback) {
  std::string token = string_field(config, key, fallback, kField);
  if (token.empty()) throw InputError(std::string(kField) + key + " must not be empty");
  return token;
}

TokenizerConfig config_of(const val& config) {
  TokenizerConfig c;
  c.do_lower_case = bool_of(config, "do_lower_case", c.do_lower_case);
  const bool strip_given = !config.isUndefined() && !config.isNull() &&
                           !config["strip_accents"].isUndefined() &&
                           !config["strip_accents"].isNull();  // null: follow do_lower_case
  if (strip_given)
    c.strip_accents = bool_of(config, "strip_accents", false) ? TokenizerConfig::Strip::Yes
                                                              : TokenizerConfig::Strip::No;
  c.tokenize_chinese_chars = bool_of(config, "tokenize_chinese_chars", c.tokenize_chinese_chars);
  c.cls_token = token_of(config, "cls_token", c.cls_token);
  c.sep_token = token_of(config, "sep_token", c.sep_token);
  c.unk_token = token_of(config, "unk_token", c.unk_token);
  c.pad_token = token_of(config, "pad_token", c.pad_token);
  c.mask_token = token_of(config, "mask_token", c.mask_token);
  return c;
}

template <class T>
val int_array(const std::vector<T>& v) {
  val out = val::global("Int32Array").new_(v.size());
  for (size_t i = 0; i < v.size(); ++i) out.set(i, static_cast<int>(v[i]));
  return out;
}

class TextTokenizer {
 public:
  explicit TextTokenizer(Tokenizer t) : tokenizer_(std::move(t)) {}

  // → { ids, starts, ends, wordIndex, wordStarts, wordEnds: Int32Array, tokens: string[],
  //     droppedTokens, textEnd, textLength }
  val encode(const Bytes& text, int max_tokens) const {
    return call_or_throw_js([&] {
      const Encoding e = tokenizer_.encode(view_of(text), max_tokens);
      val out = val::object();
      out.set("ids", int_array(e.ids));
      val tokens = val::array();
      for (int id : e.ids) tokens.call<void>("push", tokenizer_.vocab().token(id));
      out.set("tokens", tokens);
      out.set("starts", int_array(e.starts));
      out.set("ends", int_array(e.ends));
      out.set("wordIndex", int_array(e.word_index));
      out.set("wordStarts", int_array(e.word_starts));
      out.set("wordEnds", int_array(e.word_ends));
      out.set("droppedTokens", e.dropped_tokens);
      out.set("textEnd", e.text_end);
      out.set("textLength", e.text_length);
      return out;
    });
  }

  // A token map's word map (tokenizer.h, word_scores): ids and wordIndex as encode gave.
  Floats word_scores(const Floats& scores, const val& ids, const val& word_index, int words) const {
    return call_or_throw_js([&] {
      Encoding e;
      e.ids = emscripten::convertJSArrayToNumberVector<int>(ids);
      e.word_index = emscripten::convertJSArrayToNumberVector<int>(word_index);
      if (e.ids.size() != e.word_index.size() || words < 0)
        throw InputError("word map: the encoding's ids and wordIndex differ in length");
      for (int w : e.word_index)
        if (w >= words) throw InputError("word map: a word index is past the words");
      e.word_starts.assign(static_cast<size_t>(words), 0);
      std::vector<float> out = text::word_scores(tokenizer_, e, scores.values());
      const int64_t n = static_cast<int64_t>(out.size());
      return Floats(std::move(out), {n});
    });
  }

  int vocab_size() const { return tokenizer_.vocab().size(); }
  int id_of(const std::string& token) const { return tokenizer_.vocab().id_of(token); }

 private:
  Tokenizer tokenizer_;
};

TextTokenizer* make_tokenizer(const Bytes& vocab, const val& config) {
  return call_or_throw_js([&] {
    return new TextTokenizer(Tokenizer(text::Vocabulary::parse(view_of(vocab)), config_of(config)));
  });
}

}  // namespace
}  // namespace vitrel::wasm

EMSCRIPTEN_BINDINGS(vit_relevance_text) {
  using namespace emscripten;
  using vitrel::wasm::TextTokenizer;
  class_<TextTokenizer>("TextTokenizer")
      .constructor(&vitrel::wasm::make_tokenizer, allow_raw_pointers())
      .function("encode", &TextTokenizer::encode)
      .function("wordScores", &TextTokenizer::word_scores)
      .function("vocabSize", &TextTokenizer::vocab_size)
      .function("idOf", &TextTokenizer::id_of);
}
