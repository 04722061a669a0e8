#include "methods/block_walk.h"

#include "methods/row_rollout.h"

namespace vitrel {

namespace {

TensorView whole_tensor(const BlockStack& s) {
  return TensorView{s.data, {s.blocks, s.heads, s.tokens, s.tokens}};
}

void require_block_finite(const CheckedInputs& in, int b) {
  for (const BlockStack& s : in.unscanned) {
    if (first_non_finite(s.block(b), s.block_numel()) < 0) continue;
    // Report as a whole-tensor check would: the first tensor (in argument order) with a
    // bad value, at its first flat index.
    for (const BlockStack& t : in.unscanned) require_finite(whole_tensor(t), t.name);
  }
}

}  // namespace

std::vector<std::vector<float>> walk_blocks(const std::vector<Method>& rollouts,
                                            const CheckedInputs& in) {
  std::vector<RowRollout> rows;
  rows.reserve(rollouts.size());
  for (Method m : rollouts) rows.emplace_back(m, in);

  for (int b = in.blocks - 1; b >= 0; --b) {
    require_block_finite(in, b);
    for (RowRollout& r : rows) r.apply_block(b);
  }

  std::vector<std::vector<float>> out;
  out.reserve(rows.size());
  for (const RowRollout& r : rows) out.push_back(r.row());
  return out;
}

}  // namespace vitrel
