#pragma once
// BERT's basic tokenizer (Hugging Face's BasicTokenizer.tokenize, transformers 4.48), on one
// stretch of text between literal special tokens: _clean_text (drop NUL, U+FFFD and
// control characters, whitespace to a space), spaces around CJK ideographs, NFC, split on
// whitespace, then per word: lower-case (already done by the caller, as HF's tokenize()
// does it first, one character at a time) and strip accents (NFD, drop Mn), split off
// every punctuation character. The words keep their characters' source offsets.

#include <vector>

#include "text/unicode.h"

namespace vitrel::text {

struct BasicOptions {
  bool strip_accents = true;
  bool split_cjk = true;
};

// Appends the words of `chars` to `words`.
void basic_tokenize(const Chars& chars, const BasicOptions& options, std::vector<Chars>& words);

}  // namespace vitrel::text
