#pragma once
// Shared by the libFuzzer targets: values that stress the checks, and the invariant
// check. A target may only see InputError (the core's specific error) from an entry
// point; any other exception, a sanitizer report or a broken invariant is a crash that
// libFuzzer keeps as a reproducer.

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace vitrel::fuzz {

// Non-finite values, the float range's edges and the magnitudes that overflow products.
inline float edge_float(FuzzedDataProvider& in) {
  constexpr float kMax = std::numeric_limits<float>::max();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float edges[] = {0.f,   -0.f,   1.f,   -1.f,   0.5f, 2.f,   1e-45f, -1e-45f, 1e-38f, 1e19f,
                         1e30f, -1e30f, 3e38f, -3e38f, kMax, -kMax, nan,    kInf,    -kInf};
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: return edges[in.ConsumeIntegralInRange<size_t>(0, sizeof edges / sizeof edges[0] - 1)];
    case 1: {
      const uint32_t bits = in.ConsumeIntegral<uint32_t>();
      float v;
      std::memcpy(&v, &bits, sizeof v);
      return v;
    }
    default: return in.ConsumeFloatingPointInRange(-2.f, 2.f);
  }
}

// Mostly well-formed values (so the computation is reached), sometimes edge ones.
inline float fuzz_float(FuzzedDataProvider& in) {
  return in.ConsumeIntegralInRange(0, 7) == 0 ? edge_float(in)
                                              : in.ConsumeFloatingPointInRange(-1.f, 1.f);
}

inline std::vector<float> fuzz_floats(FuzzedDataProvider& in, size_t n) {
  std::vector<float> v(n);
  for (float& x : v) x = fuzz_float(in);
  return v;
}

// A size mostly in 1..small, sometimes anything (negative, zero, huge).
inline int fuzz_size(FuzzedDataProvider& in, int small) {
  if (in.ConsumeIntegralInRange(0, 15) == 0) return in.ConsumeIntegral<int>();
  return in.ConsumeIntegralInRange(1, small);
}

inline bool all_finite(const std::vector<float>& v) {
  for (float x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

[[noreturn]] inline void broken(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
  std::abort();
}

}  // namespace vitrel::fuzz

#define FUZZ_CHECK(cond)                                            \
  do {                                                              \
    if (!(cond)) ::vitrel::fuzz::broken(#cond, __FILE__, __LINE__); \
  } while (0)
