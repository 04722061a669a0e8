#pragma once
// Test-side reader of the reference data written by make_references.py: manifests of one
// case a line (space-separated fields) and raw little-endian arrays. The folder comes from
// $VITREL_REFERENCE_DIR, else the compile definition VITREL_DEFAULT_REFERENCE_DIR; ctest
// fills it through the fixture `reference_data`.

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace vitrel_test {

inline std::string reference_dir() {
  if (const char* env = std::getenv("VITREL_REFERENCE_DIR")) return env;
#ifdef VITREL_DEFAULT_REFERENCE_DIR
  return VITREL_DEFAULT_REFERENCE_DIR;
#else
  return "reference";
#endif
}

using ManifestLine = std::vector<std::string>;

inline std::vector<ManifestLine> read_manifest(const std::string& name) {
  const std::string path = reference_dir() + "/" + name + ".txt";
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("missing " + path +
                             ": run ctest (fixture reference_data) or "
                             "tests/reference/make_references.py first");
  }
  std::vector<ManifestLine> lines;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    ManifestLine f;
    for (std::string s; fields >> s;) f.push_back(s);
    if (!f.empty()) lines.push_back(f);
  }
  if (lines.empty()) throw std::runtime_error(path + " lists no cases");
  return lines;
}

// `count` values of T from the file named `rel` in a manifest.
template <class T>
std::vector<T> read_raw(const std::string& rel, size_t count) {
  const std::string path = reference_dir() + "/" + rel;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("missing " + path);
  std::vector<T> data(count);
  in.read(reinterpret_cast<char*>(data.data()), std::streamsize(count * sizeof(T)));
  if (in.gcount() != std::streamsize(count * sizeof(T)) || in.peek() != EOF) {
    throw std::runtime_error(path + " does not hold exactly " + std::to_string(count) +
                             " values of " + std::to_string(sizeof(T)) + " bytes");
  }
  return data;
}

}  // namespace vitrel_test
