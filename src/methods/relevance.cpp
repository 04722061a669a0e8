// The public entry points: check a batch's shapes once, walk its blocks once (finiteness
// and rollouts, block_walk), then compute the others as the registry says.

#include "methods/relevance.h"

#include "methods/block_walk.h"
#include "methods/checked_inputs.h"
#include "methods/text_rules.h"

namespace vitrel {

namespace {

// Row q's patch columns reshaped to the grid; on a text, the whole row.
RelevanceMap patch_map(const std::vector<float>& row, const TokenLayout& layout) {
  if (layout.is_text()) return RelevanceMap{1, layout.tokens(), row};
  RelevanceMap map{layout.grid_rows, layout.grid_cols, {}};
  map.data.assign(row.begin() + layout.special_tokens, row.end());
  return map;
}

// On a text, the official code's rule for the explained token's own entry.
RelevanceMap finished(Method m, const CheckedInputs& in, RelevanceMap map) {
  if (in.layout.is_text()) apply_text_entry_rule(m, in, map.data);
  return map;
}

// A Row method's row. Its inputs were scanned finite, so a non-finite entry is a float32
// overflow of the head mean, reported rather than returned.
std::vector<float> checked_row(Method m, const CheckedInputs& in) {
  std::vector<float> row = method_info(m).row(in);
  require_finite_result(m, in, row.data(), static_cast<int64_t>(row.size()), "the head mean");
  return row;
}

}  // namespace

std::vector<RelevanceMap> compute_relevance_maps(const std::vector<Method>& methods,
                                                 const RelevanceInputs& inputs,
                                                 const TokenLayout& layout,
                                                 const MethodOptions& options) {
  const CheckedInputs in = check_inputs(methods, inputs, layout, options);

  // All rollouts of the batch share the one walk over the blocks.
  std::vector<Method> rollouts;
  for (Method m : methods)
    if (method_info(m).form == MethodForm::Rollout) rollouts.push_back(m);
  const std::vector<std::vector<float>> rollout_results = walk_blocks(rollouts, in);

  std::vector<RelevanceMap> maps;
  maps.reserve(methods.size());
  size_t next_rollout = 0;
  for (Method m : methods) {
    const MethodInfo& info = method_info(m);
    switch (info.form) {
      case MethodForm::Rollout:
        maps.push_back(finished(m, in, patch_map(rollout_results[next_rollout++], layout)));
        break;
      case MethodForm::Row:
        maps.push_back(finished(m, in, patch_map(checked_row(m, in), layout)));
        break;
      case MethodForm::Map: maps.push_back(finished(m, in, info.map(in))); break;
    }
  }
  return maps;
}

RelevanceMap compute_relevance(Method m, const RelevanceInputs& in, const TokenLayout& layout,
                               const MethodOptions& options) {
  return std::move(compute_relevance_maps({m}, in, layout, options).front());
}

std::vector<float> relevance_row(Method m, const RelevanceInputs& inputs, const TokenLayout& layout,
                                 const MethodOptions& options) {
  const MethodInfo& info = method_info(m);
  if (info.form == MethodForm::Map)
    throw InputError(std::string("relevance_row: ") + info.id +
                     " has no token row (only the rollouts and the single-block "
                     "attention/relevance methods do)");
  const CheckedInputs in = check_inputs({m}, inputs, layout, options);
  std::vector<float> row;
  if (info.form == MethodForm::Rollout) {
    row = walk_blocks({m}, in).front();
  } else {
    walk_blocks({}, in);  // the finiteness scan
    row = checked_row(m, in);
  }
  if (layout.is_text()) apply_text_entry_rule(m, in, row);
  return row;
}

}  // namespace vitrel
