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

bool is_single_block_row_method(Method m) {
  return m == Method::RawAttention || m == Method::PartialLrp ||
         m == Method::AblationLastBlock || m == Method::AblationSecondBlock;
}

namespace {

std::vector<float> row_of(Method m, const CheckedInputs& in) {
  const int q = in.options.query_token;
  const int last = in.blocks - 1;
  switch (m) {
    case Method::RawAttention:
      return mean_positive_row(in.attention, last, q);
    case Method::PartialLrp:
      return mean_positive_row(in.rel_classic_last, 0, q);
    case Method::AblationLastBlock:
      return mean_positive_product_row(in.attention_grad, in.attention_rel, last, q);
    case Method::AblationSecondBlock:
      return mean_positive_product_row(in.attention_grad, in.attention_rel, 1, q);
    default:
      return {};  // ruled out by the contract
  }
}

}  // namespace

std::vector<float> single_block_row(Method m, const CheckedInputs& in) {
  std::vector<float> row = row_of(m, in);
  require_finite_result(m, in, row.data(), static_cast<int64_t>(row.size()), "the head mean");
  return row;
}

std::vector<float> gradcam_patches(const CheckedInputs& in) {
  const BlockStack& A = in.attention;
  const BlockStack& G = in.attention_grad;
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
  if (!(range > 0.f)) return std::vector<float>(map.size(), 0.f);
  for (float& v : map) v = (v - min) / range;
  return map;
}

}  // namespace vitrel
