#include "npy_reader.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <stdexcept>

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what);
}

uint32_t little_endian(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open");
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), {});
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) fail(path, "not a .npy file");
  const int major = bytes[6];
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3 || bytes.size() < 8 + len_bytes) fail(path, "unsupported .npy version");
  const size_t header_len = little_endian(&bytes[8], static_cast<int>(len_bytes));
  const size_t data_start = 8 + len_bytes + header_len;
  if (data_start > bytes.size()) fail(path, "truncated header");
  const std::string header(bytes.begin() + 8 + len_bytes, bytes.begin() + data_start);

  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr'\\s*:\\s*'([^']*)'")) || m[1] != "<f4")
    fail(path, "dtype must be float32 little-endian (<f4)");
  if (std::regex_search(header, std::regex("'fortran_order'\\s*:\\s*True"))) fail(path, "Fortran order");
  if (!std::regex_search(header, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)"))) fail(path, "no shape");

  NpyArray out;
  const std::string dims = m[1];
  const std::regex number("\\d+");
  int64_t count = 1;
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number); it != std::sregex_iterator(); ++it) {
    out.shape.push_back(std::stoll(it->str()));
    count *= out.shape.back();
  }
  if (bytes.size() - data_start != static_cast<size_t>(count) * 4) fail(path, "data size does not match the shape");
  out.data.resize(static_cast<size_t>(count));
  std::memcpy(out.data.data(), bytes.data() + data_start, static_cast<size_t>(count) * 4);
  return out;
}
