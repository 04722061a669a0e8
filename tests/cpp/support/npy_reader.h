#pragma once
// Test-only reader for NumPy .npy files holding little-endian float32 in C order
// (format versions 1-3). Anything else is rejected with a message, never guessed.

#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/tensor_view.h"

namespace vitrel::test {

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;
  TensorView view() const { return TensorView{data.data(), shape}; }
};

namespace npy_detail {

// The text after `'key':` in the header dict, e.g. "'<f4', 'fortran_order': ...".
inline std::string after_key(const std::string& header, const std::string& key,
                             const std::string& path) {
  const size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) throw std::runtime_error(path + ": npy header has no " + key);
  const size_t colon = header.find(':', at);
  return header.substr(colon + 1);
}

inline std::vector<int64_t> parse_shape(const std::string& text, const std::string& path) {
  const size_t open = text.find('('), close = text.find(')');
  if (open == std::string::npos || close == std::string::npos || close < open)
    throw std::runtime_error(path + ": npy shape is not a tuple");
  std::vector<int64_t> shape;
  std::string number;
  for (size_t i = open + 1; i <= close; ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      number += c;
    } else if (!number.empty()) {
      shape.push_back(std::stoll(number));
      number.clear();
    }
  }
  return shape;
}

}  // namespace npy_detail

inline NpyArray read_npy(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error(path + ": cannot open");
  char magic[8];
  file.read(magic, 8);
  if (!file || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw std::runtime_error(path + ": not a .npy file");
  const int major = static_cast<unsigned char>(magic[6]);
  uint32_t header_len = 0;
  if (major == 1) {
    unsigned char b[2];
    file.read(reinterpret_cast<char*>(b), 2);
    header_len = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    file.read(reinterpret_cast<char*>(b), 4);
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  }
  std::string header(header_len, '\0');
  file.read(header.data(), header_len);
  if (!file) throw std::runtime_error(path + ": truncated npy header");

  const std::string descr = npy_detail::after_key(header, "descr", path);
  if (descr.find("'<f4'") == std::string::npos)
    throw std::runtime_error(path + ": only little-endian float32 ('<f4') is supported");
  const std::string order = npy_detail::after_key(header, "fortran_order", path);
  if (order.find("False") != order.find_first_not_of(' '))
    throw std::runtime_error(path + ": only C order is supported");

  NpyArray array;
  array.shape = npy_detail::parse_shape(npy_detail::after_key(header, "shape", path), path);
  int64_t n = 1;
  for (int64_t d : array.shape) n *= d;
  array.data.resize(static_cast<size_t>(n));
  file.read(reinterpret_cast<char*>(array.data.data()), n * static_cast<int64_t>(sizeof(float)));
  if (!file) throw std::runtime_error(path + ": truncated npy data");
  return array;
}

}  // namespace vitrel::test
