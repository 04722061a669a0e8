// The public entry points: check a batch's shapes once, walk its blocks once (finiteness
// and rollouts, block_walk), then compute the others as the registry says.

#include "methods/relevance.h"

#include "methods/block_walk.h"
#include "methods/checked_inputs.h"

namespace vitrel {

namespace {

// Row q's patch columns reshaped to the grid.
RelevanceMap patch_map(const std::vector<float>& row, const TokenLayout& layout) {
  RelevanceMap map{layout.grid_rows, layout.grid_cols, {}};
  map.data.assign(row.begin() + layout.special_tokens, row.end());
  return map;
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
        maps.push_back(patch_map(rollout_results[next_rollout++], layout));
        break;
      case MethodForm::Row: maps.push_back(patch_map(info.row(in), layout)); break;
      case MethodForm::Map: maps.push_back(info.map(in)); break;
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
  if (info.form == MethodForm::Rollout) return walk_blocks({m}, in).front();
  walk_blocks({}, in);  // the finiteness scan
  return info.row(in);
}

}  // namespace vitrel
