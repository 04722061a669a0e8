#pragma once
// Test-only JSON reader: enough of RFC 8259 for the golden files (objects, arrays,
// numbers, strings with simple escapes, true/false/null). Throws on malformed input.

#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "text/utf8.h"

namespace vitrel::test {

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::map<std::string, JsonValue> object;

  bool is_null() const { return kind == Kind::Null; }
  const JsonValue& at(const std::string& key) const {
    const auto it = object.find(key);
    if (kind != Kind::Object || it == object.end())
      throw std::runtime_error("json: no key \"" + key + "\"");
    return it->second;
  }
  bool has(const std::string& key) const { return object.count(key) != 0; }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : text_(text) {}

  JsonValue parse() {
    JsonValue v = value();
    skip_space();
    if (pos_ != text_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("json: " + what + " at offset " + std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }
  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "'");
  }
  bool consume_word(const char* word) {
    const std::string w(word);
    if (text_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }

  JsonValue value() {
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end");
    JsonValue v;
    const char c = text_[pos_];
    if (c == '{') {
      v.kind = JsonValue::Kind::Object;
      ++pos_;
      if (consume('}')) return v;
      do {
        skip_space();
        std::string key = string_literal();
        expect(':');
        v.object[key] = value();
      } while (consume(','));
      expect('}');
    } else if (c == '[') {
      v.kind = JsonValue::Kind::Array;
      ++pos_;
      if (consume(']')) return v;
      do v.array.push_back(value());
      while (consume(','));
      expect(']');
    } else if (c == '"') {
      v.kind = JsonValue::Kind::String;
      v.string = string_literal();
    } else if (consume_word("null")) {
    } else if (consume_word("true")) {
      v.kind = JsonValue::Kind::Bool;
      v.boolean = true;
    } else if (consume_word("false")) {
      v.kind = JsonValue::Kind::Bool;
    } else {
      const char* start = text_.c_str() + pos_;
      char* end = nullptr;
      v.kind = JsonValue::Kind::Number;
      v.number = std::strtod(start, &end);
      if (end == start) fail("unexpected character");
      pos_ += static_cast<size_t>(end - start);
    }
    return v;
  }

  std::string string_literal() {
    if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a string");
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\') {
        if (pos_ >= text_.size()) fail("bad escape");
        const char e = text_[pos_++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case 'r': c = '\r'; break;
          case 'b': c = '\b'; break;
          case 'f': c = '\f'; break;
          case 'u': text::append_utf8(escaped_code_point(), out); continue;
          default: c = e;
        }
      }
      out += c;
    }
    if (pos_ >= text_.size()) fail("unterminated string");
    ++pos_;
    return out;
  }

  // The code point of a \\u escape (the "\\u" read), joining a surrogate pair.
  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("bad \\u escape");
    const unsigned v = static_cast<unsigned>(std::stoul(text_.substr(pos_, 4), nullptr, 16));
    pos_ += 4;
    return v;
  }
  unsigned escaped_code_point() {
    const unsigned high = hex4();
    if (high < 0xD800 || high > 0xDBFF || text_.compare(pos_, 2, "\\u") != 0) return high;
    const size_t back = pos_;
    pos_ += 2;
    const unsigned low = hex4();
    if (low >= 0xDC00 && low <= 0xDFFF) return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
    pos_ = back;
    return high;
  }
  const std::string& text_;
  size_t pos_ = 0;
};

inline JsonValue parse_json(const std::string& text) { return JsonParser(text).parse(); }

}  // namespace vitrel::test
