#include "text/basic_tokenizer.h"

namespace vitrel::text {

namespace {

constexpr Char kSpace{U' ', 0, 0};

bool is_separator(char32_t cp) {
  const CharClass c = char_class(cp);
  return c == CharClass::Whitespace || c == CharClass::Separator;
}

// Splits one whitespace-free word at punctuation (HF's _run_split_on_punc): each
// punctuation character is a word of its own.
void split_on_punctuation(const Chars& word, std::vector<Chars>& words) {
  bool start_new = true;
  for (const Char& c : word) {
    if (char_class(c.cp) == CharClass::Punctuation) {
      words.push_back({c});
      start_new = true;
      continue;
    }
    if (start_new) words.emplace_back();
    start_new = false;
    words.back().push_back(c);
  }
}

}  // namespace

void basic_tokenize(const Chars& chars, const BasicOptions& options, std::vector<Chars>& words) {
  Chars clean;
  clean.reserve(chars.size());
  for (const Char& c : chars) {
    if (c.cp == 0 || c.cp == 0xFFFD) continue;
    const CharClass cls = char_class(c.cp);
    if (cls == CharClass::Control) continue;
    if (cls == CharClass::Whitespace) {
      clean.push_back(kSpace);
    } else if (options.split_cjk && is_cjk_ideograph(c.cp)) {
      clean.push_back(kSpace);
      clean.push_back(c);
      clean.push_back(kSpace);
    } else {
      clean.push_back(c);
    }
  }
  const Chars text = nfc(clean);

  Chars word;
  const auto flush = [&] {
    if (word.empty()) return;
    if (options.strip_accents) {
      Chars stripped;
      for (const Char& c : nfd(word))
        if (char_class(c.cp) != CharClass::Mark) stripped.push_back(c);
      word.swap(stripped);
    }
    // After NFD a word may hold a separator again (none in Unicode 14, but str.split() of
    // HF's final whitespace_tokenize would split there): split the same way.
    Chars part;
    for (const Char& c : word) {
      if (is_separator(c.cp)) {
        split_on_punctuation(part, words);
        part.clear();
      } else {
        part.push_back(c);
      }
    }
    split_on_punctuation(part, words);
    word.clear();
  };
  for (const Char& c : text) {
    if (is_separator(c.cp)) {
      flush();
    } else {
      word.push_back(c);
    }
  }
  flush();
}

}  // namespace vitrel::text
