#pragma once
// Test-only: where ../shared is (env VITREL_SHARED_DIR first, then the CMake default).

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace vitrel::test {

inline std::string shared_dir() {
  if (const char* env = std::getenv("VITREL_SHARED_DIR"); env && *env) return env;
#ifdef VITREL_DEFAULT_SHARED_DIR
  return VITREL_DEFAULT_SHARED_DIR;
#else
  return "../shared";
#endif
}

inline bool is_directory(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace vitrel::test
