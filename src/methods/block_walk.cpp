#include "methods/block_walk.h"

#include "methods/row_rollout.h"

namespace vitrel {

namespace {

TensorView whole_tensor(const BlockStack& s) {
  return TensorView{s.data, {s.blocks, s.heads, s.tokens, s.tokens}};
}

// Reports as a whole-tensor check would: the first tensor (in argument order) with a
// bad value, at its first flat index.
[[noreturn]] void report_non_finite(const CheckedInputs& in) {
  for (const BlockStack& t : in.unscanned) require_finite(whole_tensor(t), t.name);
  throw InputError("internal: non-finite value not found again");  // unreachable
}

bool row_is_finite(const CheckedInputs& in, int b, int k, int i) {
  for (const BlockStack& s : in.unscanned)
    if (first_non_finite(s.row(b, k, i), s.tokens) >= 0) return false;
  return true;
}

}  // namespace

std::vector<std::vector<float>> walk_blocks(const std::vector<Method>& rollouts,
                                            const CheckedInputs& in) {
  std::vector<RowRollout> rows;
  rows.reserve(rollouts.size());
  for (Method m : rollouts) rows.emplace_back(m, in);

  std::vector<RowRollout*> active;
  for (int b = in.blocks - 1; b >= 0; --b) {
    active.clear();
    for (RowRollout& r : rows)
      if (r.uses_block(b)) active.push_back(&r);
    for (RowRollout* r : active) r->begin_block(b);
    // Head-major, row by row: each row of each tensor comes from memory once, is
    // scanned, and is then read by every rollout from L1.
    const int heads = in.unscanned.front().heads, tokens = in.unscanned.front().tokens;
    for (int k = 0; k < heads; ++k)
      for (int i = 0; i < tokens; ++i) {
        if (!row_is_finite(in, b, k, i)) report_non_finite(in);
        for (RowRollout* r : active) r->add_head_row(b, k, i);
      }
    for (RowRollout* r : active) r->end_block();
  }

  std::vector<std::vector<float>> out;
  out.reserve(rows.size());
  for (const RowRollout& r : rows) out.push_back(r.row());
  return out;
}

}  // namespace vitrel
