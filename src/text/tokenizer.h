#pragma once
// BERT's tokenizer, exactly as Hugging Face's BertTokenizer (transformers 4.48, the Python
// one) gives ids: literal special tokens kept whole, lower-casing, the basic tokenizer
// (basic_tokenizer.h), WordPiece (wordpiece.h), then [CLS] ... [SEP] cut to the model's
// positions. Besides the ids it keeps where each token came from, so a map can be drawn
// over the text a person typed: offsets in UTF-16 code units (JavaScript string indices).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/vocabulary.h"

namespace vitrel::text {

// The metadata's tokenizer block (docs/architecture.md, "Text models").
struct TokenizerConfig {
  bool do_lower_case = true;
  // HF's strip_accents: null (follow do_lower_case), true or false.
  enum class Strip { Default, Yes, No } strip_accents = Strip::Default;
  bool tokenize_chinese_chars = true;
  std::string cls_token = "[CLS]";
  std::string sep_token = "[SEP]";
  std::string unk_token = "[UNK]";
  std::string pad_token = "[PAD]";
  std::string mask_token = "[MASK]";
};

struct Encoding {
  std::vector<int> ids;               // S ids, [CLS] first and [SEP] last
  std::vector<int32_t> starts, ends;  // each token's [start, end) in the text; [0, 0] for
                                      // the [CLS] and [SEP] added
  std::vector<int> word_index;        // each token's word; -1 for the [CLS] and [SEP] added
  std::vector<int32_t> word_starts, word_ends;  // the words (basic-tokenizer tokens, and
                                                // literal special tokens) with a token kept
  int dropped_tokens = 0;                       // tokens cut off to fit max_tokens
  int32_t text_end = 0;  // where the explained text ends (text_length when nothing was cut)
  int32_t text_length = 0;
};

class Tokenizer {
 public:
  // InputError when the vocabulary lacks the cls, sep or unk token ("tokenizer.cls_token:
  // ..."); a missing pad or mask token only maps to unk, as in HF.
  Tokenizer(Vocabulary vocab, TokenizerConfig config);

  // `text` is UTF-8 (invalid bytes read as U+FFFD, utf8.h). max_tokens: the model's
  // positions, at least 2 (InputError otherwise). Linear in the text's length.
  Encoding encode(std::string_view text, int max_tokens) const;

  const Vocabulary& vocab() const { return vocab_; }
  const TokenizerConfig& config() const { return config_; }

  // Whether a token counts in word maps: not [CLS], [SEP], [UNK] or [PAD] (ERASER's
  // scores_per_word_from_scores_per_token).
  bool in_word_maps(int id) const;

 private:
  Vocabulary vocab_;
  TokenizerConfig config_;
  int cls_id_, sep_id_, unk_id_, pad_id_;
};

// A word map: each word's score is the max of its tokens' that count in word maps
// (Tokenizer::in_word_maps); NaN for a word with none (an unknown word). `scores` holds
// one value per token of `encoding`; InputError when its length differs.
std::vector<float> word_scores(const Tokenizer& tokenizer, const Encoding& encoding,
                               const std::vector<float>& scores);

}  // namespace vitrel::text
