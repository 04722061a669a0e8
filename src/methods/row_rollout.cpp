#include "methods/row_rollout.h"

#include <algorithm>

#include "methods/row_kernels.h"

namespace vitrel {

RowRollout::RowRollout(Method m, const CheckedInputs& in)
    : method_(m),
      in_(in),
      first_block_(uses_start_layer(m) ? in.options.start_layer : 0),
      row_(static_cast<size_t>(in.layout.tokens()), 0.f),
      next_(row_.size(), 0.f) {
  row_[static_cast<size_t>(in.options.query_token)] = 1.f;
}

void RowRollout::apply_block(int b) {
  if (b < first_block_) return;
  switch (method_) {
    case Method::TransformerAttribution:
      apply_product_rule(in_.attention_grad, in_.attention_rel, b);
      break;
    case Method::GenericAttention:
      apply_product_rule(in_.attention_grad, in_.attention, b);
      break;
    case Method::AblationNoGrad:
      apply_positive_rule(in_.attention_rel, b);
      break;
    case Method::AttentionRollout:
      apply_normalised_attention(in_.attention, b);
      break;
    default:
      break;  // not a rollout: the constructor's contract rules this out
  }
}

// next = row . (E_h[(a . b)+] + I)
void RowRollout::apply_product_rule(const BlockStack& a, const BlockStack& b, int block) {
  const int S = a.tokens;
  const float inv_heads = 1.f / static_cast<float>(a.heads);
  next_ = row_;  // the identity term
  for (int k = 0; k < a.heads; ++k)
    for (int i = 0; i < S; ++i) {
      if (row_[i] == 0.f) continue;
      kernels::add_scaled_positive_product(next_.data(), a.row(block, k, i), b.row(block, k, i),
                                           row_[i] * inv_heads, S);
    }
  row_.swap(next_);
}

// next = row . (E_h[a+] + I)
void RowRollout::apply_positive_rule(const BlockStack& a, int block) {
  const int S = a.tokens;
  const float inv_heads = 1.f / static_cast<float>(a.heads);
  next_ = row_;
  for (int k = 0; k < a.heads; ++k)
    for (int i = 0; i < S; ++i) {
      if (row_[i] == 0.f) continue;
      kernels::add_scaled_positive(next_.data(), a.row(block, k, i), row_[i] * inv_heads, S);
    }
  row_.swap(next_);
}

// next = row . D^-1 (E_h[a] + I) with D = diag of the row sums of E_h[a] + I.
// Row i's h head rows are summed and then accumulated while they sit in L1.
void RowRollout::apply_normalised_attention(const BlockStack& a, int block) {
  const int S = a.tokens;
  const float inv_heads = 1.f / static_cast<float>(a.heads);
  std::fill(next_.begin(), next_.end(), 0.f);
  for (int i = 0; i < S; ++i) {
    if (row_[i] == 0.f) continue;
    float head_sum = 0.f;
    for (int k = 0; k < a.heads; ++k) head_sum += kernels::sum(a.row(block, k, i), S);
    const float row_sum = head_sum * inv_heads + 1.f;
    // Softmax rows make row_sum 2; an all-cancelling row (sum 0) has no defined
    // normalisation and contributes nothing rather than infinities.
    if (row_sum == 0.f) continue;
    const float w = row_[i] / row_sum;
    next_[i] += w;
    for (int k = 0; k < a.heads; ++k)
      kernels::add_scaled(next_.data(), a.row(block, k, i), w * inv_heads, S);
  }
  row_.swap(next_);
}

}  // namespace vitrel
