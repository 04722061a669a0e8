#include "npy_reader.h"

#include <cstring>
#include <fstream>
#include <iterator>

namespace vitrel::test {

namespace {

// Largest element count accepted: 2^32 floats (16 GiB) is far above any explainer tensor,
// and keeps count * 4 and every dim product far from int64 overflow.
constexpr uint64_t kMaxElements = uint64_t{1} << 32;

// A cursor over the header dict, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderText {
 public:
  HeaderText(std::string text, const std::string& name) : text_(std::move(text)), name_(name) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw NpyError(name_ + ": " + what + " in .npy header " + text_);
  }

  // Positions the cursor after `'key':` (either quote style).
  void seek_value(const char* key) {
    for (const char quote : {'\'', '"'}) {
      const size_t at = text_.find(std::string(1, quote) + key + quote);
      if (at == std::string::npos) continue;
      pos_ = at + std::strlen(key) + 2;
      skip_spaces();
      if (pos_ >= text_.size() || text_[pos_] != ':')
        fail(std::string("no ':' after '") + key + "'");
      ++pos_;
      skip_spaces();
      return;
    }
    fail(std::string("no '") + key + "' key");
  }

  bool starts_with(const char* word) const {
    return text_.compare(pos_, std::strlen(word), word) == 0;
  }

  std::string quoted() {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      fail("descr is not a string");
    const size_t end = text_.find(text_[pos_], pos_ + 1);
    if (end == std::string::npos) fail("unterminated descr string");
    std::string s = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return s;
  }

  // "(2, 3)", "(5,)" or "()": non-negative decimal integers.
  std::vector<int64_t> shape_tuple() {
    if (pos_ >= text_.size() || text_[pos_] != '(') fail("shape is not a tuple");
    ++pos_;
    std::vector<int64_t> dims;
    for (;;) {
      skip_spaces();
      if (pos_ < text_.size() && text_[pos_] == ')') return dims;
      uint64_t d = 0;
      const size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        d = d * 10 + static_cast<uint64_t>(text_[pos_++] - '0');
        if (d > kMaxElements) fail("shape dimension too large");
      }
      if (pos_ == start) fail("malformed shape");
      dims.push_back(static_cast<int64_t>(d));
      skip_spaces();
      if (pos_ < text_.size() && text_[pos_] == ',')
        ++pos_;
      else if (pos_ >= text_.size() || text_[pos_] != ')')
        fail("malformed shape");
    }
  }

 private:
  void skip_spaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }

  std::string text_;
  const std::string& name_;
  size_t pos_ = 0;
};

}  // namespace

NpyArray parse_npy(const uint8_t* bytes, size_t size, const std::string& name) {
  if (size < 10 || std::memcmp(bytes, "\x93NUMPY", 6) != 0)
    throw NpyError(name + ": not a .npy file (no \\x93NUMPY magic)");
  const int major = bytes[6];
  if (major < 1 || major > 3)
    throw NpyError(name + ": unsupported .npy format version " + std::to_string(major));
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (size < 8 + len_bytes) throw NpyError(name + ": truncated .npy header");
  uint64_t header_len = 0;
  for (size_t i = len_bytes; i-- > 0;) header_len = (header_len << 8) | bytes[8 + i];
  const size_t header_start = 8 + len_bytes;
  if (header_len > size - header_start) throw NpyError(name + ": truncated .npy header");
  const size_t data_start = header_start + static_cast<size_t>(header_len);

  HeaderText header(std::string(reinterpret_cast<const char*>(bytes) + header_start,
                                static_cast<size_t>(header_len)),
                    name);
  header.seek_value("descr");
  const std::string descr = header.quoted();
  if (descr != "<f4")
    throw NpyError(name + ": dtype '" + descr + "' is not float32 little-endian ('<f4')");
  header.seek_value("fortran_order");
  if (header.starts_with("True")) throw NpyError(name + ": Fortran-order arrays are not supported");
  if (!header.starts_with("False")) header.fail("fortran_order is neither True nor False");
  header.seek_value("shape");

  NpyArray out;
  out.shape = header.shape_tuple();
  uint64_t count = 1;
  for (int64_t d : out.shape) {
    const uint64_t factor = static_cast<uint64_t>(d);
    if (factor != 0 && count > kMaxElements / factor) header.fail("shape has too many elements");
    count *= factor;
  }
  if (size - data_start != count * sizeof(float))
    throw NpyError(name + ": " + std::to_string(size - data_start) +
                   " data bytes, the shape needs " + std::to_string(count * sizeof(float)));
  out.data.resize(static_cast<size_t>(count));
  if (count)
    std::memcpy(out.data.data(), bytes + data_start, static_cast<size_t>(count) * sizeof(float));
  return out;
}

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NpyError(path + ": cannot open");
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), {});
  return parse_npy(bytes.data(), bytes.size(), path);
}

}  // namespace vitrel::test
