#include "methods/text_rules.h"

#include <algorithm>

#include "methods/row_kernels.h"

namespace vitrel {

bool rollout_rows_normalised(Method m, const TokenLayout& layout) {
  return m == Method::AttentionRollout || (layout.is_text() && m == Method::TransformerAttribution);
}

int explained_token(const CheckedInputs& in) {
  return in.options.query_token == kReadout ? 0 : in.options.query_token;
}

void apply_text_entry_rule(Method m, const CheckedInputs& in, std::vector<float>& row) {
  if (row.empty()) return;
  const size_t own = static_cast<size_t>(explained_token(in));
  switch (m) {
    case Method::TransformerAttribution:
      row[own] = *std::min_element(row.begin(), row.end());
      break;
    case Method::AttentionRollout:
    case Method::RawAttention:
    case Method::GradCam:
    case Method::PartialLrp: row[own] = 0.f; break;
    case Method::LrpFull: row[0] = 0.f; break;  // a map of the input, not of a token's row
    default: break;
  }
}

std::vector<float> text_gradcam_row(const CheckedInputs& in) {
  const BlockStack& A = in.attn;
  const BlockStack& G = in.attn_grad;
  const int last = in.blocks - 1, S = A.tokens;
  const size_t cells = static_cast<size_t>(S) * static_cast<size_t>(S);
  const float inv_heads = 1.f / static_cast<float>(A.heads);
  std::vector<float> cam(cells, 0.f);
  for (int k = 0; k < A.heads; ++k) {
    float g = 0.f;
    for (int i = 0; i < S; ++i) g += kernels::sum(G.row(last, k, i), S);
    const float weight = g / static_cast<float>(cells);
    for (int i = 0; i < S; ++i)
      kernels::add_scaled(cam.data() + static_cast<size_t>(i) * S, A.row(last, k, i),
                          weight * inv_heads, S);
  }
  // Checked before the clamp, which would turn a NaN into a silent 0.
  require_finite_result(Method::GradCam, in, cam.data(), static_cast<int64_t>(cells),
                        "the weighted head mean");
  for (float& v : cam) v = kernels::positive(v);
  const auto [lo, hi] = std::minmax_element(cam.begin(), cam.end());
  const float min = *lo, range = *hi - *lo;
  const float* own = cam.data() + static_cast<size_t>(explained_token(in)) * S;
  std::vector<float> row(own, own + S);
  for (float& v : row) v = range > 0.f ? (v - min) / range : 0.f;
  return row;
}

}  // namespace vitrel
