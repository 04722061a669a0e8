#pragma once
// The Unicode data of BERT's tokenizer, generated from Python's unicodedata and
// str.lower() (the functions Hugging Face's BertTokenizer calls) by
// scripts/unicode_tables.py into unicode_tables.cpp. Every table is sorted by code point.
// Hangul syllables are not in the decomposition and composition tables: unicode.cpp
// computes them, as the Unicode standard defines them.

#include <cstddef>
#include <cstdint>

namespace vitrel::text {

extern const char kUnicodeVersion[];

// What the basic tokenizer asks of a character (HF's _is_control, _is_whitespace,
// _is_punctuation, the Mn test of _run_strip_accents, str.split()'s whitespace).
enum class CharClass : uint8_t {
  Other,
  Control,      // category C* but tab, newline, carriage return: dropped by _clean_text
  Whitespace,   // space, tab, newline, carriage return, category Zs: become a space
  Punctuation,  // category P*, or the ASCII symbols 33-47, 58-64, 91-96, 123-126
  Mark,         // category Mn: removed when accents are stripped
  Separator,    // str.isspace() but kept by _clean_text (Zl, Zp): split on all the same
};

struct ClassRange {
  char32_t first, last;
  uint8_t value;  // a CharClass
};
struct CodeMap {
  char32_t from, to;
};
struct LowerMulti {
  char32_t from;
  char32_t to[3];  // 0-terminated when shorter
};
struct Decomposition {
  char32_t from;
  uint16_t offset;  // into kDecompositionData: the full canonical decomposition
  uint8_t length;
};
struct CombiningRange {
  char32_t first, last;
  uint8_t ccc;  // canonical combining class (non-zero ranges only)
};
struct Composition {
  char32_t first, second, composite;  // primary composites NFC forms
};

extern const ClassRange kClassRanges[];
extern const size_t kClassRangesCount;
extern const CodeMap kLowerSingle[];
extern const size_t kLowerSingleCount;
extern const LowerMulti kLowerMulti[];
extern const size_t kLowerMultiCount;
extern const Decomposition kDecompositions[];
extern const size_t kDecompositionsCount;
extern const char32_t kDecompositionData[];
extern const size_t kDecompositionDataCount;
extern const CombiningRange kCombiningRanges[];
extern const size_t kCombiningRangesCount;
extern const Composition kCompositions[];
extern const size_t kCompositionsCount;

}  // namespace vitrel::text
