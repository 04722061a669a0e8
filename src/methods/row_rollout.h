#pragma once
// Internal: the rollouts computed as one row vector pushed through the blocks.
//
// Every token-mixing method is a product of per-block S x S matrices with the later
// blocks on the left, M = X[B-1] ... X[s]. Its row q is e_q M = ((e_q X[B-1]) X[B-2]) ...
// so starting from the last block each step is a vector-matrix product, O(h S^2) per
// block instead of O(S^3). X[b] is never formed: its head mean, clamp, identity and row
// normalisation are folded into the vector update. The first step is nearly free as e_q
// has a single non-zero entry, and any row whose weight is 0 is skipped.
//
//   transformer_attribution  X[b] = E_h[(G[b] . R[b])+] + I,        blocks B-1 .. s
//   ablation_no_grad         X[b] = E_h[R[b]+] + I,                  blocks B-1 .. s
//   attention_rollout        X[b] = rownorm(E_h[A[b]] + I),          blocks B-1 .. s
//   generic_attention        X[b] = I + E_h[(G[b] . A[b])+],         blocks B-1 .. 0
//     (P <- P + Abar[b] P for b = 0..B-1 gives P = (I + Abar[B-1]) ... (I + Abar[0]))

#include <vector>

#include "methods/checked_inputs.h"

namespace vitrel {

class RowRollout {
 public:
  // `m` must be a rollout method (is_rollout_method) whose inputs `in` has checked.
  RowRollout(Method m, const CheckedInputs& in);

  // row <- row . X[b]. Call for b = B-1 down to 0; blocks below the first one are skipped.
  void apply_block(int b);

  const std::vector<float>& row() const { return row_; }

 private:
  void apply_product_rule(const BlockStack& a, const BlockStack& b, int block);
  void apply_positive_rule(const BlockStack& a, int block);
  void apply_normalised_attention(const BlockStack& a, int block);

  Method method_;
  const CheckedInputs& in_;
  int first_block_;
  std::vector<float> row_;
  std::vector<float> next_;
};


}  // namespace vitrel
