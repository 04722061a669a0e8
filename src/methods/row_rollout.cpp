#include "methods/row_rollout.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "methods/row_kernels.h"
#include "methods/text_rules.h"

namespace vitrel {

RowRollout::RowRollout(Method m, const CheckedInputs& in)
    : method_(m),
      in_(in),
      first_(nullptr),
      second_(nullptr),
      inv_heads_(0.f),
      first_block_(method_info(m).start_layer ? in.options.start_layer : 0),
      normalised_(rollout_rows_normalised(m, in.layout)),
      row_(in.readout),
      weight_(row_.size(), 0.f),
      next_(row_.size(), 0.f) {
  switch (m) {
    case Method::TransformerAttribution: first_ = &in.attn_grad, second_ = &in.attn_rel; break;
    case Method::GenericAttention: first_ = &in.attn_grad, second_ = &in.attn; break;
    case Method::AblationNoGrad: first_ = &in.attn_rel; break;
    case Method::AttAttr: first_ = &in.attr; break;
    default:  // AttentionRollout; the contract rules out the others
      first_ = &in.attn;
      break;
  }
  inv_heads_ = 1.f / static_cast<float>(first_->heads);
}

void RowRollout::begin_block(int b) {
  if (!normalised_) {
    // X = I + E_h[...]: the identity term is the row itself; row i of every head
    // enters with weight row_i / h.
    next_ = row_;
    for (size_t i = 0; i < row_.size(); ++i) weight_[i] = row_[i] * inv_heads_;
    return;
  }
  // X = D^-1 (E_h[...] + I), D = diag of its row sums: row i enters with row_i / D_i.
  // (The sums may meet a not yet scanned NaN; the walk then throws before any result
  // leaves it.)
  const BlockStack& a = *first_;
  std::fill(next_.begin(), next_.end(), 0.f);
  for (int i = 0; i < a.tokens; ++i) {
    weight_[i] = 0.f;
    if (row_[i] == 0.f) continue;
    float head_sum = 0.f;
    for (int k = 0; k < a.heads; ++k)
      head_sum +=
          second_ ? kernels::sum_positive_product(a.row(b, k, i), second_->row(b, k, i), a.tokens)
                  : kernels::sum(a.row(b, k, i), a.tokens);
    const float row_sum = head_sum * inv_heads_ + 1.f;
    // Softmax rows make row_sum 2; an all-cancelling row (sum 0) has no defined
    // normalisation and contributes nothing rather than infinities. A sum past float
    // range would silently zero the row (x / inf).
    if (row_sum == 0.f) continue;
    if (!std::isfinite(row_sum))
      report_overflow(method_, in_,
                      "the sum of row " + std::to_string(i) + " of block " + std::to_string(b) +
                          (second_ ? "'s head-mean relevance" : "'s head-mean attention"));
    next_[i] = row_[i] / row_sum;
    weight_[i] = next_[i] * inv_heads_;
  }
}

void RowRollout::add_head_rows(int b, int k, int i_begin, int i_end) {
  switch (method_) {
    case Method::TransformerAttribution:
    case Method::GenericAttention:
      return accumulate<kernels::PositiveProductTerm>(b, k, i_begin, i_end);
    case Method::AblationNoGrad:
    case Method::AttAttr: return accumulate<kernels::PositiveTerm>(b, k, i_begin, i_end);
    default: return accumulate<kernels::PlainTerm>(b, k, i_begin, i_end);
  }
}

// The rows with a non-zero weight, four per kernel pass; a remainder of fewer than four
// is padded with weight-0 repeats of the last row.
template <class Term>
void RowRollout::accumulate(int b, int k, int i_begin, int i_end) {
  const BlockStack& second = second_ ? *second_ : *first_;
  const int S = first_->tokens;
  int rows[4];
  int count = 0;
  for (int i = i_begin; i < i_end; ++i) {
    if (weight_[i] != 0.f) rows[count++] = i;
    const bool flush = count == 4 || (i + 1 == i_end && count > 0);
    if (!flush) continue;
    float c[4];
    for (int r = 0; r < 4; ++r) {
      c[r] = r < count ? weight_[rows[r]] : 0.f;
      if (r >= count) rows[r] = rows[count - 1];
    }
    kernels::accumulate_rows4<Term>(next_.data(), first_->row(b, k, rows[0]),
                                    first_->row(b, k, rows[1]), first_->row(b, k, rows[2]),
                                    first_->row(b, k, rows[3]), second.row(b, k, rows[0]),
                                    second.row(b, k, rows[1]), second.row(b, k, rows[2]),
                                    second.row(b, k, rows[3]), c[0], c[1], c[2], c[3], S);
    count = 0;
  }
}

void RowRollout::end_block(int b) {
  // Every row that fed it was finite (scanned), so a non-finite value is an overflow.
  const int64_t n = static_cast<int64_t>(next_.size());
  if (first_non_finite(next_.data(), n) >= 0)
    require_finite_result(method_, in_, next_.data(), n,
                          "the rollout's row after block " + std::to_string(b));
  row_.swap(next_);
}

}  // namespace vitrel
