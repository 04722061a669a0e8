#pragma once
// Character properties and normalisation on text whose every character remembers where it
// came from: the [start, end) of its source in the original text, in UTF-16 code units.
// A character made from several (NFC composition) spans all of them; the characters one
// expands into (lower-casing, NFD) share its span.

#include <cstdint>
#include <vector>

#include "text/unicode_tables.h"

namespace vitrel::text {

struct Char {
  char32_t cp;
  int32_t start;  // UTF-16 offsets in the original text
  int32_t end;
};
using Chars = std::vector<Char>;

CharClass char_class(char32_t cp);

// HF's _is_chinese_char: the CJK Unified Ideographs blocks (not Japanese kana or Hangul).
bool is_cjk_ideograph(char32_t cp);

// Appends Python's chr(cp).lower() (one character, or more: U+0130).
void append_lower(const Char& c, Chars& out);

// unicodedata.normalize("NFD") and ("NFC") of `in`.
Chars nfd(const Chars& in);
Chars nfc(const Chars& in);

}  // namespace vitrel::text
