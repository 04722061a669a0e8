#include "text/vocabulary.h"

#include <algorithm>

#include "common/errors.h"
#include "text/utf8.h"

namespace vitrel::text {

namespace {

// Code points of valid UTF-8, or -1.
int code_points(std::string_view s) {
  const Chars chars = decode_utf8(s);
  std::string again;
  for (const Char& c : chars) append_utf8(c.cp, again);
  return again == s ? static_cast<int>(chars.size()) : -1;
}

}  // namespace

Vocabulary Vocabulary::parse(std::string_view text) {
  if (text.size() > kMaxBytes)
    throw InputError("vocab: " + std::to_string(text.size()) + " bytes is more than the " +
                     std::to_string(kMaxBytes) + " accepted");
  if (text.empty()) throw InputError("vocab: the vocabulary is empty");
  Vocabulary v;
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) +
                       (text.back() == '\n' ? 0 : 1);
  if (lines > kMaxTokens)
    throw InputError("vocab: " + std::to_string(lines) + " lines is more than the " +
                     std::to_string(kMaxTokens) + " accepted");
  v.tokens_.reserve(lines);
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    v.tokens_.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  v.ids_.reserve(v.tokens_.size());
  for (size_t i = 0; i < v.tokens_.size(); ++i) {
    const std::string& t = v.tokens_[i];
    const std::string line = "vocab: line " + std::to_string(i + 1);
    if (t.empty()) throw InputError(line + " is empty");
    if (t.back() == '\r')
      throw InputError(line + " ends in a carriage return (a CRLF file: BERT reads LF lines)");
    int length = code_points(t);
    if (length < 0) throw InputError(line + " is not valid UTF-8");
    const auto [it, inserted] = v.ids_.emplace(std::string_view(t), static_cast<int>(i));
    if (!inserted)
      throw InputError(line + " repeats the token \"" + t + "\" of line " +
                       std::to_string(it->second + 1));
    if (t.size() > 2 && t[0] == '#' && t[1] == '#') length -= 2;
    v.longest_ = std::max(v.longest_, length);
  }
  return v;
}

int Vocabulary::id_of(std::string_view token) const {
  const auto it = ids_.find(token);
  return it == ids_.end() ? -1 : it->second;
}

}  // namespace vitrel::text
