// The native half of `npm run bench -- core` (bench/core.js, the one harness: it builds and
// runs this, then prints these figures beside the WebAssembly ones of the same workload).
// The full-matrix rollout reference is timed here only: it is not in the shipped module.
//
// Usage: relevance_bench [runs]   (default 25; each figure is the median of `runs`)
//
// Workload, per configuration (B blocks, h heads, S = 197 tokens = CLS + 14x14 grid):
//   every tensor is filled from its own xorshift32 generator (uint32 state x, seeded
//   below; step: x ^= x << 13; x ^= x >> 17; x ^= x << 5; value u = (x >> 8) / 2^24,
//   uniform in [0,1)), in C order:
//     attention          [B,h,S,S]  seed 1, u, then each row divided by its sum
//     attn_grad     [B,h,S,S]  seed 2, 2u - 1
//     attn_rel      [B,h,S,S]  seed 3, 2u - 1
//     attn_rel_classic_last   [h,S,S]    seed 4, 2u - 1
//     input_rel_classic  [224,224]  seed 5, 2u - 1
//     attr               [B,h,S,S]  seed 6, 2u - 1
//   options: start_layer 0, query_token 0.
// Timed: each method alone (compute_relevance), all ten in one compute_relevance_maps
// batch, the finiteness scan alone, and transformer_attribution's row as a row vector
// (relevance_row, its validation included) vs the naive full-matrix product of
// rollout_reference.h (no validation), and the product stage alone both ways.
// Output: one line `JSON: {...}` with every figure in milliseconds.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "methods/relevance.h"
#include "support/rollout_reference.h"

namespace {

using namespace vitrel;

struct Xorshift32 {
  uint32_t x;
  float next() {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return static_cast<float>(x >> 8) * (1.0f / 16777216.0f);
  }
};

std::vector<float> uniform(size_t n, uint32_t seed, float scale, float offset) {
  Xorshift32 rng{seed};
  std::vector<float> v(n);
  for (float& x : v) x = scale * rng.next() + offset;
  return v;
}

struct Workload {
  int blocks, heads, tokens;
  std::vector<float> attention, grad, rel, attn_rel_classic_last, input_rel, attr;

  Workload(int B, int h, int S) : blocks(B), heads(h), tokens(S) {
    const size_t block_numel = size_t(B) * h * S * S;
    attention = uniform(block_numel, 1, 1.f, 0.f);
    for (size_t r = 0; r < block_numel; r += S) {
      float sum = 0.f;
      for (int j = 0; j < S; ++j) sum += attention[r + j];
      for (int j = 0; j < S; ++j) attention[r + j] /= sum;
    }
    grad = uniform(block_numel, 2, 2.f, -1.f);
    rel = uniform(block_numel, 3, 2.f, -1.f);
    attn_rel_classic_last = uniform(size_t(h) * S * S, 4, 2.f, -1.f);
    input_rel = uniform(224 * 224, 5, 2.f, -1.f);
    attr = uniform(block_numel, 6, 2.f, -1.f);
  }

  RelevanceInputs inputs() const {
    const std::vector<int64_t> bhss{blocks, heads, tokens, tokens};
    return RelevanceInputs{{attention.data(), bhss},
                           {grad.data(), bhss},
                           {rel.data(), bhss},
                           {attn_rel_classic_last.data(), {heads, tokens, tokens}},
                           {input_rel.data(), {224, 224}},
                           {attr.data(), bhss}};
  }
};

volatile float g_sink = 0.f;  // keeps results observable so no call is optimised away

template <class F>
double median_ms(int runs, F&& f) {
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

// Times one configuration; returns its JSON object.
std::string bench_config(int B, int h, int runs) {
  const TokenLayout layout{14, 14, 1};
  const Workload w(B, h, layout.tokens());
  const RelevanceInputs in = w.inputs();

  std::string methods_json;
  double sum_single = 0;
  for (Method m : all_values<Method>()) {
    const double ms =
        median_ms(runs, [&] { g_sink = g_sink + compute_relevance(m, in, layout).data[0]; });
    sum_single += ms;
    methods_json +=
        std::string(methods_json.empty() ? "" : ",") + "\"" + to_id(m) + "\":" + fixed(ms);
  }
  const double batch = median_ms(runs, [&] {
    g_sink = g_sink + compute_relevance_maps(all_values<Method>(), in, layout)[0].data[0];
  });
  const double validate = median_ms(runs, [&] {
    for (const TensorView* t : {&in.attn, &in.attn_grad, &in.attn_rel})
      g_sink = g_sink + static_cast<float>(first_non_finite(t->data, t->numel()));
  });
  const double row = median_ms(runs, [&] {
    g_sink = g_sink + relevance_row(Method::TransformerAttribution, in, layout)[0];
  });
  const int matrix_runs = std::max(3, runs / 5);
  const double full = median_ms(matrix_runs, [&] {
    g_sink = g_sink + reference::rollout_row(Method::TransformerAttribution, in, {})[0];
  });

  // The product stage alone, the part the two approaches do differently: the same B
  // precomputed S x S block matrices (E_h[(G.R)+] + I) chained as a row vector (O(B*S^2))
  // or as full matrices (O(B*S^3)). The head means above are shared work that at h=12
  // dominates both end-to-end times.
  const int S = layout.tokens();
  std::vector<float> block_matrices(size_t(B) * S * S);
  for (int b = 0; b < B; ++b) {
    Eigen::Map<reference::Matrix>(block_matrices.data() + size_t(b) * S * S, S, S) =
        reference::head_mean(Method::TransformerAttribution, in, b) +
        reference::Matrix::Identity(S, S);
  }
  const double product_row = median_ms(runs, [&] {
    g_sink = g_sink + reference::chain_row_vector(block_matrices.data(), B, S, 0)[1];
  });
  const double product_full = median_ms(matrix_runs, [&] {
    g_sink = g_sink + reference::chain_full_matrices(block_matrices.data(), B, S, 0)[1];
  });

  return "{\"blocks\":" + std::to_string(B) + ",\"heads\":" + std::to_string(h) +
         ",\"tokens\":" + std::to_string(layout.tokens()) + ",\"methods_ms\":{" + methods_json +
         "},\"sum_single_ms\":" + fixed(sum_single) + ",\"all_methods_batch_ms\":" + fixed(batch) +
         ",\"validation_ms\":" + fixed(validate) + ",\"rollout_row_ms\":" + fixed(row) +
         ",\"rollout_full_matrix_ms\":" + fixed(full) +
         ",\"rollout_speedup\":" + fixed(full / row) + ",\"product_row_ms\":" + fixed(product_row) +
         ",\"product_full_matrix_ms\":" + fixed(product_full) +
         ",\"product_speedup\":" + fixed(product_full / product_row) + "}";
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 25;
  const std::string small = bench_config(12, 3, runs);
  const std::string large = bench_config(12, 12, runs);
  std::printf("JSON: {\"bench\":\"relevance_native\",\"runs\":%d,\"configs\":[%s,%s]}\n", runs,
              small.c_str(), large.c_str());
  return 0;
}
