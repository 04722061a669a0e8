#pragma once
// Test-only: owned float tensors to build RelevanceInputs from, random fills and
// comparisons.

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "methods/relevance.h"

namespace vitrel::test {

struct OwnedTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;

  OwnedTensor() = default;
  explicit OwnedTensor(std::vector<int64_t> dims, float fill = 0.f) : shape(std::move(dims)) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    data.assign(static_cast<size_t>(n), fill);
  }
  TensorView view() const { return TensorView{data.data(), shape}; }

  // Element (b,k,i,j) of a [B,h,S,S] tensor, or (k,i,j) of [h,S,S] with b = -1.
  float& at(int b, int k, int i, int j) {
    const size_t rank = shape.size();
    const int64_t S = shape[rank - 1], rows = shape[rank - 2], heads = shape[rank - 3];
    const int64_t block = b < 0 ? 0 : b;
    return data[static_cast<size_t>(((block * heads + k) * rows + i) * S + j)];
  }
  // Sets row i of head k of block b.
  void set_row(int b, int k, int i, std::initializer_list<float> values) {
    int j = 0;
    for (float v : values) at(b, k, i, j++) = v;
  }
};

inline OwnedTensor random_tensor(std::vector<int64_t> dims, std::mt19937& rng, float lo, float hi) {
  OwnedTensor t(std::move(dims));
  std::uniform_real_distribution<float> u(lo, hi);
  for (float& v : t.data) v = u(rng);
  return t;
}

// Softmax-like attention: non-negative rows that sum to 1.
inline OwnedTensor random_attention(int B, int h, int S, std::mt19937& rng) {
  OwnedTensor t = random_tensor({B, h, S, S}, rng, 0.f, 1.f);
  for (size_t r = 0; r < t.data.size(); r += static_cast<size_t>(S)) {
    float sum = 0.f;
    for (int j = 0; j < S; ++j) sum += t.data[r + j];
    for (int j = 0; j < S; ++j) t.data[r + j] /= sum;
  }
  return t;
}

// Random A, G, R, Rc and an input map for a model of B blocks, h heads and `layout`.
struct RandomModelOutputs {
  OwnedTensor attn, attn_grad, attn_rel, attn_rel_classic_last, input_rel_classic, attr;
  OwnedTensor input_rel_attnlrp, input_rel_cp_lrp;  // signed pixel maps

  RandomModelOutputs(int B, int h, const TokenLayout& layout, unsigned seed) {
    std::mt19937 rng(seed);
    const int S = layout.tokens();
    attn = random_attention(B, h, S, rng);
    attn_grad = random_tensor({B, h, S, S}, rng, -1.f, 1.f);
    attn_rel = random_tensor({B, h, S, S}, rng, -1.f, 1.f);
    attn_rel_classic_last = random_tensor({h, S, S}, rng, -1.f, 1.f);
    input_rel_classic = random_tensor({layout.grid_rows * 4, layout.grid_cols * 4}, rng, -5.f, 5.f);
    attr = random_tensor({B, h, S, S}, rng, -0.5f, 1.f);  // drawn after the others: unchanged
    input_rel_attnlrp = random_tensor({layout.grid_rows * 4, layout.grid_cols * 4}, rng, -2.f, 2.f);
    input_rel_cp_lrp = random_tensor({layout.grid_rows * 4, layout.grid_cols * 4}, rng, -2.f, 2.f);
  }
  RelevanceInputs inputs() const {
    return RelevanceInputs{attn.view(),
                           attn_grad.view(),
                           attn_rel.view(),
                           attn_rel_classic_last.view(),
                           input_rel_classic.view(),
                           attr.view(),
                           input_rel_attnlrp.view(),
                           input_rel_cp_lrp.view()};
  }
};

inline double pearson(const std::vector<float>& a, const std::vector<double>& b) {
  const size_t n = a.size();
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; ++i) ma += a[i], mb += b[i];
  ma /= n, mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

// Largest |a-b| relative to the largest |b| (1 when b is all zero).
inline double max_relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    diff = std::fmax(diff, std::fabs(double(a[i]) - b[i]));
    scale = std::fmax(scale, std::fabs(double(b[i])));
  }
  return diff / (scale > 0 ? scale : 1.0);
}

}  // namespace vitrel::test
