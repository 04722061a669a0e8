#include "methods/single_block.h"

#include <algorithm>

#include "methods/row_kernels.h"
#include "methods/text_rules.h"

namespace vitrel {

namespace {

// The readout's weighted sum of one block's per-row terms: Σ_q r_q E_h[term(row q)], over
// the readout's non-zero weights (one, weight 1, for the cls pool: the row itself).
template <class AddRow>
std::vector<float> readout_row(const BlockStack& a, const std::vector<float>& readout,
                               AddRow add_row) {
  const float inv_heads = 1.f / static_cast<float>(a.heads);
  std::vector<float> row(static_cast<size_t>(a.tokens), 0.f);
  for (int q = 0; q < a.tokens; ++q) {
    if (readout[q] == 0.f) continue;
    for (int k = 0; k < a.heads; ++k) add_row(row.data(), k, q, readout[q] * inv_heads);
  }
  return row;
}

// E_h[a+] of the readout's rows of one block.
std::vector<float> mean_positive_row(const BlockStack& a, int block,
                                     const std::vector<float>& readout) {
  return readout_row(a, readout, [&](float* out, int k, int q, float c) {
    kernels::add_scaled_positive(out, a.row(block, k, q), c, a.tokens);
  });
}

// E_h[a] of the readout's rows of one block (no clamp).
std::vector<float> mean_row(const BlockStack& a, int block, const std::vector<float>& readout) {
  return readout_row(a, readout, [&](float* out, int k, int q, float c) {
    kernels::add_scaled(out, a.row(block, k, q), c, a.tokens);
  });
}

// E_h[(a . b)+] of the readout's rows of one block.
std::vector<float> mean_positive_product_row(const BlockStack& a, const BlockStack& b, int block,
                                             const std::vector<float>& readout) {
  return readout_row(a, readout, [&](float* out, int k, int q, float c) {
    kernels::add_scaled_positive_product(out, a.row(block, k, q), b.row(block, k, q), c, a.tokens);
  });
}

// Σ_q r_q a[block, k, q, :], head k's readout row.
void weighted_head_row(float* out, const BlockStack& a, int block, int k,
                       const std::vector<float>& readout) {
  std::fill(out, out + a.tokens, 0.f);
  for (int q = 0; q < a.tokens; ++q)
    if (readout[q] != 0.f) kernels::add_scaled(out, a.row(block, k, q), readout[q], a.tokens);
}

}  // namespace

std::vector<float> raw_attention_row(const CheckedInputs& in) {
  // The BERT code does not clamp (softmax rows are non-negative anyway).
  if (in.layout.is_text()) return mean_row(in.attn, in.blocks - 1, in.readout);
  return mean_positive_row(in.attn, in.blocks - 1, in.readout);
}

std::vector<float> partial_lrp_row(const CheckedInputs& in) {
  return mean_positive_row(in.attn_rel_classic_last, 0, in.readout);
}

std::vector<float> last_block_product_row(const CheckedInputs& in) {
  return mean_positive_product_row(in.attn_grad, in.attn_rel, in.blocks - 1, in.readout);
}

std::vector<float> second_block_product_row(const CheckedInputs& in) {
  return mean_positive_product_row(in.attn_grad, in.attn_rel, 1, in.readout);
}

RelevanceMap gradcam_map(const CheckedInputs& in) {
  if (in.layout.is_text()) return RelevanceMap{1, in.layout.tokens(), text_gradcam_row(in)};
  const BlockStack& A = in.attn;
  const BlockStack& G = in.attn_grad;
  const int last = in.blocks - 1;
  const int first_patch = in.layout.special_tokens;
  const int patches = A.tokens - first_patch;
  const float inv_heads = 1.f / static_cast<float>(A.heads);

  // Per head: the readout's row of A weighted by the mean of the readout's row of G over
  // the patch columns.
  std::vector<float> map(static_cast<size_t>(patches), 0.f);
  std::vector<float> a_row(static_cast<size_t>(A.tokens)), g_row(a_row.size());
  for (int k = 0; k < A.heads; ++k) {
    weighted_head_row(a_row.data(), A, last, k, in.readout);
    weighted_head_row(g_row.data(), G, last, k, in.readout);
    const float weight =
        kernels::sum(g_row.data() + first_patch, patches) / static_cast<float>(patches);
    kernels::add_scaled(map.data(), a_row.data() + first_patch, weight * inv_heads, patches);
  }
  // Checked before the clamp, which would turn a NaN into a silent 0.
  require_finite_result(Method::GradCam, in, map.data(), patches, "the weighted head mean");
  for (float& v : map) v = kernels::positive(v);

  const auto [lo, hi] = std::minmax_element(map.begin(), map.end());
  const float min = *lo, range = *hi - *lo;
  for (float& v : map) v = range > 0.f ? (v - min) / range : 0.f;
  return RelevanceMap{in.layout.grid_rows, in.layout.grid_cols, std::move(map)};
}

RelevanceMap lrp_full_map(const CheckedInputs& in) {
  const PixelTensor& x = in.input_rel_classic;
  const size_t n = static_cast<size_t>(x.rows) * static_cast<size_t>(x.cols);
  return RelevanceMap{x.rows, x.cols, std::vector<float>(x.data, x.data + n)};
}

}  // namespace vitrel
