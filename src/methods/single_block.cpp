#include "methods/single_block.h"

#include <algorithm>

#include "methods/row_kernels.h"

namespace vitrel {

namespace {

// E_h[a+] of row q of one block.
std::vector<float> mean_positive_row(const BlockStack& a, int block, int q) {
  const int S = a.tokens;
  const float inv_heads = 1.f / static_cast<float>(a.heads);
  std::vector<float> row(static_cast<size_t>(S), 0.f);
  for (int k = 0; k < a.heads; ++k)
    kernels::add_scaled_positive(row.data(), a.row(block, k, q), inv_heads, S);
  return row;
}

// E_h[(a . b)+] of row q of one block.
std::vector<float> mean_positive_product_row(const BlockStack& a, const BlockStack& b, int block,
                                             int q) {
  const int S = a.tokens;
  const float inv_heads = 1.f / static_cast<float>(a.heads);
  std::vector<float> row(static_cast<size_t>(S), 0.f);
  for (int k = 0; k < a.heads; ++k)
    kernels::add_scaled_positive_product(row.data(), a.row(block, k, q), b.row(block, k, q),
                                         inv_heads, S);
  return row;
}

}  // namespace

std::vector<float> raw_attention_row(const CheckedInputs& in) {
  return mean_positive_row(in.attn, in.blocks - 1, in.options.query_token);
}

std::vector<float> partial_lrp_row(const CheckedInputs& in) {
  return mean_positive_row(in.attn_rel_classic_last, 0, in.options.query_token);
}

std::vector<float> last_block_product_row(const CheckedInputs& in) {
  return mean_positive_product_row(in.attn_grad, in.attn_rel, in.blocks - 1,
                                   in.options.query_token);
}

std::vector<float> second_block_product_row(const CheckedInputs& in) {
  return mean_positive_product_row(in.attn_grad, in.attn_rel, 1, in.options.query_token);
}

RelevanceMap gradcam_map(const CheckedInputs& in) {
  const BlockStack& A = in.attn;
  const BlockStack& G = in.attn_grad;
  const int last = in.blocks - 1;
  const int q = in.options.query_token;
  const int first_patch = in.layout.special_tokens;
  const int patches = A.tokens - first_patch;
  const float inv_heads = 1.f / static_cast<float>(A.heads);

  std::vector<float> map(static_cast<size_t>(patches), 0.f);
  for (int k = 0; k < A.heads; ++k) {
    const float* grad = G.row(last, k, q) + first_patch;
    const float weight = kernels::sum(grad, patches) / static_cast<float>(patches);
    kernels::add_scaled(map.data(), A.row(last, k, q) + first_patch, weight * inv_heads, patches);
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
