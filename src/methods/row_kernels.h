#pragma once
// Internal: the inner loops of every method. Each runs over one contiguous row of `n`
// floats with no aliasing, so compilers vectorise them (SSE/AVX natively, SIMD128 in
// WebAssembly) without -ffast-math.

namespace vitrel {
namespace kernels {

inline float positive(float x) { return x > 0.f ? x : 0.f; }

// out[j] += c * a[j]
inline void add_scaled(float* __restrict out, const float* __restrict a, float c, int n) {
  for (int j = 0; j < n; ++j) out[j] += c * a[j];
}

// out[j] += c * max(a[j], 0)
inline void add_scaled_positive(float* __restrict out, const float* __restrict a, float c, int n) {
  for (int j = 0; j < n; ++j) out[j] += c * positive(a[j]);
}

// out[j] += c * max(a[j] * b[j], 0)
inline void add_scaled_positive_product(float* __restrict out, const float* __restrict a,
                                        const float* __restrict b, float c, int n) {
  for (int j = 0; j < n; ++j) out[j] += c * positive(a[j] * b[j]);
}

// The per-element terms of the rollout rules, for accumulate_rows4 (b is ignored by the
// one-tensor rules).
struct PlainTerm {
  static float of(float a, float) { return a; }
};
struct PositiveTerm {
  static float of(float a, float) { return positive(a); }
};
struct PositiveProductTerm {
  static float of(float a, float b) { return positive(a * b); }
};

// out[j] += sum over r < 4 of c_r * Term(a_r[j], b_r[j]): four rows per pass, so `out`
// is loaded and stored once for four rows instead of once per row.
template <class Term>
inline void accumulate_rows4(float* __restrict out, const float* __restrict a0,
                             const float* __restrict a1, const float* __restrict a2,
                             const float* __restrict a3, const float* __restrict b0,
                             const float* __restrict b1, const float* __restrict b2,
                             const float* __restrict b3, float c0, float c1, float c2, float c3,
                             int n) {
  for (int j = 0; j < n; ++j)
    out[j] += c0 * Term::of(a0[j], b0[j]) + c1 * Term::of(a1[j], b1[j]) +
              c2 * Term::of(a2[j], b2[j]) + c3 * Term::of(a3[j], b3[j]);
}

// Sum of max(a[j] * b[j], 0) over j < n, in eight interleaved partial sums (as sum below).
inline float sum_positive_product(const float* __restrict a, const float* __restrict b, int n) {
  float lanes[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  int j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l) lanes[l] += positive(a[j + l] * b[j + l]);
  float total = 0.f;
  for (; j < n; ++j) total += positive(a[j] * b[j]);
  for (float l : lanes) total += l;
  return total;
}

// Sum of a[0..n) in eight interleaved partial sums: float addition is not associative,
// so a single accumulator would keep the loop scalar.
inline float sum(const float* a, int n) {
  float lanes[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  int j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l) lanes[l] += a[j + l];
  float total = 0.f;
  for (; j < n; ++j) total += a[j];
  for (float l : lanes) total += l;
  return total;
}

}  // namespace kernels
}  // namespace vitrel
