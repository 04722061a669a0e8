#include "text/wordpiece.h"

#include <algorithm>
#include <string>

#include "text/utf8.h"

namespace vitrel::text {

void wordpiece(const Chars& word, const Vocabulary& vocab, int unk_id, std::vector<Piece>& out) {
  if (word.empty()) return;
  const int n = static_cast<int>(word.size());
  // The span of characters [a, b).
  const auto span = [&](int a, int b) {
    int32_t start = word[a].start, end = word[a].end;
    for (int i = a + 1; i < b; ++i)
      start = std::min(start, word[i].start), end = std::max(end, word[i].end);
    return std::pair{start, end};
  };
  const auto unknown = [&] {
    const auto [start, end] = span(0, n);
    out.push_back({unk_id, start, end});
  };
  if (n > kMaxWordChars) return unknown();

  const size_t first_piece = out.size();
  std::string candidate;
  std::vector<size_t> char_end;  // candidate's byte length after each character
  for (int start = 0; start < n;) {
    // No token is longer than the vocabulary's longest: no need to try longer substrings.
    const int longest = std::min(n, start + vocab.longest_token());
    candidate.assign(start > 0 ? "##" : "");
    char_end.clear();
    for (int i = start; i < longest; ++i) {
      append_utf8(word[i].cp, candidate);
      char_end.push_back(candidate.size());
    }
    int end = longest, id = -1;
    for (; end > start; --end) {
      id = vocab.id_of(std::string_view(candidate).substr(0, char_end[end - start - 1]));
      if (id >= 0) break;
    }
    if (id < 0) {
      out.resize(first_piece);
      return unknown();
    }
    const auto [s, e] = span(start, end);
    out.push_back({id, s, e});
    start = end;
  }
}

}  // namespace vitrel::text
