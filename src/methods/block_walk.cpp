#include "methods/block_walk.h"

#include <algorithm>

#include "methods/row_rollout.h"

namespace vitrel {

namespace {

// Reports as a whole-tensor check would: the first tensor (in argument order) with a
// bad value, at its first flat index.
[[noreturn]] void report_non_finite(const CheckedInputs& in) {
  require_unscanned_finite(in);
  throw InputError("internal: non-finite value not found again");  // unreachable
}

// Rows [i_begin, i_end) of head k of block b are contiguous in every tensor.
bool rows_are_finite(const CheckedInputs& in, int b, int k, int i_begin, int i_end) {
  for (const BlockStack& s : in.unscanned)
    if (first_non_finite(s.row(b, k, i_begin), int64_t(i_end - i_begin) * s.tokens) >= 0)
      return false;
  return true;
}

// Rows handed over at a time: their tensors' rows stay in L1 while every rollout reads
// them (4 rows x 3 tensors x S=197 floats = 9.5 KB; measured faster than 2 or 8).
constexpr int kRowsPerStep = 4;

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
    // Head-major, a few rows at a time: each row of each tensor comes from memory
    // once, is scanned, and is then read by every rollout from L1.
    const int heads = in.unscanned.front().heads, tokens = in.unscanned.front().tokens;
    for (int k = 0; k < heads; ++k)
      for (int i = 0; i < tokens; i += kRowsPerStep) {
        const int end = std::min(i + kRowsPerStep, tokens);
        if (!rows_are_finite(in, b, k, i, end)) report_non_finite(in);
        for (RowRollout* r : active) r->add_head_rows(b, k, i, end);
      }
    for (RowRollout* r : active) r->end_block(b);
  }

  std::vector<std::vector<float>> out;
  out.reserve(rows.size());
  for (const RowRollout& r : rows) out.push_back(r.row());
  return out;
}

}  // namespace vitrel
