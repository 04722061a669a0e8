#pragma once
// A WordPiece vocabulary (vocab.txt): one token per line, its id the line's index, as
// Hugging Face's load_vocab reads it. The file comes from a user's model folder, so it is
// checked whole before use: a bad line is an InputError naming it.

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vitrel::text {

class Vocabulary {
 public:
  // The largest vocabulary accepted, in bytes and lines (BERT's has 30522 lines, 230 KB).
  static constexpr size_t kMaxBytes = 64u << 20;
  static constexpr size_t kMaxTokens = 1u << 22;

  // Parses vocab.txt's text. Lines end in "\n"; the last may lack it. InputError for text
  // over the limits, invalid UTF-8, an empty line, a line ending in "\r" (CRLF file), or a
  // token on two lines (HF would silently keep the later id): "vocab: line 7 ...".
  static Vocabulary parse(std::string_view text);

  Vocabulary() = default;
  Vocabulary(Vocabulary&&) = default;  // ids_ views tokens_' strings, which a move keeps
  Vocabulary& operator=(Vocabulary&&) = default;
  Vocabulary(const Vocabulary&) = delete;
  Vocabulary& operator=(const Vocabulary&) = delete;

  // The token's id, or -1.
  int id_of(std::string_view token) const;
  const std::string& token(int id) const { return tokens_[static_cast<size_t>(id)]; }
  int size() const { return static_cast<int>(tokens_.size()); }
  // The most code points a token has (for a "##" piece, without its "##").
  int longest_token() const { return longest_; }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string_view, int> ids_;  // views into tokens_
  int longest_ = 0;
};

}  // namespace vitrel::text
