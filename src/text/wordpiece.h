#pragma once
// WordPiece (Hugging Face's WordpieceTokenizer): each word split greedily into the longest
// vocabulary entries from its start, pieces after the first written "##piece"; a word of
// more than 100 code points, or one that cannot be split, is the unknown token.

#include <vector>

#include "text/unicode.h"
#include "text/vocabulary.h"

namespace vitrel::text {

struct Piece {
  int id;
  int32_t start, end;  // UTF-16 offsets of the source characters it came from
};

// HF's max_input_chars_per_word.
constexpr int kMaxWordChars = 100;

// Appends the pieces of `word` to `out` (unk_id and the word's whole span when it has
// no split). Work per character is bounded by kMaxWordChars and the longest token.
void wordpiece(const Chars& word, const Vocabulary& vocab, int unk_id, std::vector<Piece>& out);

}  // namespace vitrel::text
