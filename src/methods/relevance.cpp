// The public entry points: check a batch's shapes once, walk its blocks once (finiteness
// and rollouts, block_walk), then compute the single-block and pass-through methods.

#include "methods/relevance.h"

#include "methods/block_walk.h"
#include "methods/checked_inputs.h"
#include "methods/single_block.h"

namespace vitrel {

namespace {

// Row q's patch columns reshaped to the grid.
RelevanceMap patch_map(const std::vector<float>& row, const TokenLayout& layout) {
  RelevanceMap map{layout.grid_rows, layout.grid_cols, {}};
  map.data.assign(row.begin() + layout.special_tokens, row.end());
  return map;
}

RelevanceMap lrp_full_map(const CheckedInputs& in) {
  const size_t n = static_cast<size_t>(in.input_rows) * static_cast<size_t>(in.input_cols);
  return RelevanceMap{in.input_rows, in.input_cols,
                      std::vector<float>(in.input_rel_classic, in.input_rel_classic + n)};
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
    if (is_rollout_method(m)) rollouts.push_back(m);
  const std::vector<std::vector<float>> rollout_results = walk_blocks(rollouts, in);

  std::vector<RelevanceMap> maps;
  maps.reserve(methods.size());
  size_t next_rollout = 0;
  for (Method m : methods) {
    if (is_rollout_method(m)) {
      maps.push_back(patch_map(rollout_results[next_rollout++], layout));
    } else if (is_single_block_row_method(m)) {
      maps.push_back(patch_map(single_block_row(m, in), layout));
    } else if (m == Method::GradCam) {
      maps.push_back(RelevanceMap{layout.grid_rows, layout.grid_cols, gradcam_patches(in)});
    } else {
      maps.push_back(lrp_full_map(in));
    }
  }
  return maps;
}

RelevanceMap compute_relevance(Method m, const RelevanceInputs& in, const TokenLayout& layout,
                               const MethodOptions& options) {
  return std::move(compute_relevance_maps({m}, in, layout, options).front());
}

std::vector<float> relevance_row(Method m, const RelevanceInputs& inputs,
                                 const TokenLayout& layout, const MethodOptions& options) {
  if (!is_rollout_method(m) && !is_single_block_row_method(m))
    throw InputError(std::string("relevance_row: ") + method_id(m) +
                     " has no token row (only the rollouts and the single-block "
                     "attention/relevance methods do)");
  const CheckedInputs in = check_inputs({m}, inputs, layout, options);
  if (is_rollout_method(m)) return walk_blocks({m}, in).front();
  walk_blocks({}, in);  // the finiteness scan
  return single_block_row(m, in);
}

}  // namespace vitrel
