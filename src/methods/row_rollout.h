#pragma once
// Internal: the rollouts computed as one row vector pushed through the blocks.
//
// Every token-mixing method is a product of per-block S x S matrices with the later
// blocks on the left, M = X[B-1] ... X[s]. Its row q is e_q M = ((e_q X[B-1]) X[B-2]) ...
// (e_q, or any readout r: the product is linear in its start row, relevance.h's Pool)
// so starting from the last block each step is a vector-matrix product, O(h S^2) per
// block instead of O(S^3). X[b] is never formed: its head mean, clamp, identity and row
// normalisation are folded into the vector update, one head row at a time. The first
// step is nearly free as e_q has a single non-zero entry, and any row whose weight is 0
// is skipped.
//
//   transformer_attribution  X[b] = E_h[(G[b] . R[b])+] + I,        blocks B-1 .. s
//   ablation_no_grad         X[b] = E_h[R[b]+] + I,                  blocks B-1 .. s
//   attattr                  X[b] = E_h[Attr[b]+] + I,               blocks B-1 .. s
//   attention_rollout        X[b] = rownorm(E_h[A[b]] + I),          blocks B-1 .. s
//   on a text (text_rules.h), transformer_attribution's X[b] is row-normalised too
//   generic_attention        X[b] = I + E_h[(G[b] . A[b])+],         blocks B-1 .. 0
//     (P <- P + Abar[b] P for b = 0..B-1 gives P = (I + Abar[B-1]) ... (I + Abar[0]))
//
// One step, for b = B-1 down to 0 and only if uses_block(b):
//   begin_block(b); add_head_rows(b, k, i, i + n) over every head k and all rows i
//   (in any order and grouping); end_block(b).
// so a caller can feed several rollouts the same rows while they are in L1 cache
// (block_walk.h). A step whose float32 arithmetic overflows on finite inputs throws
// InputError (report_overflow), never a silently zeroed or non-finite row.

#include <vector>

#include "methods/checked_inputs.h"

namespace vitrel {

class RowRollout {
 public:
  // `m` must be a rollout method (MethodForm::Rollout) whose inputs `in` has checked.
  RowRollout(Method m, const CheckedInputs& in);

  bool uses_block(int b) const { return b >= first_block_; }
  void begin_block(int b);
  // Adds rows [i_begin, i_end) of head k of block b.
  void add_head_rows(int b, int k, int i_begin, int i_end);
  void end_block(int b);

  const std::vector<float>& row() const { return row_; }

 private:
  template <class Term>
  void accumulate(int b, int k, int i_begin, int i_end);

  Method method_;
  const CheckedInputs& in_;
  const BlockStack* first_;  // the two tensors of the block rule (second may be null)
  const BlockStack* second_;
  float inv_heads_;
  int first_block_;
  bool normalised_;            // X's rows divided by their sums (text_rules.h)
  std::vector<float> row_;     // r X[B-1] ... X[b+1], r the readout
  std::vector<float> weight_;  // per query row i: its weight in this step's sum
  std::vector<float> next_;    // the row being accumulated for block b
};

}  // namespace vitrel
