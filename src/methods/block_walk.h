#pragma once
// Internal: the single pass over the blocks that a batch makes.
//
// From the last block to the first, block b of every per-block tensor the batch needs is
// first scanned for NaN/infinity and then, while it is still in cache, every rollout of
// the batch is pushed through it. Each tensor is thus validated once and read from
// memory once, whatever the number of methods. Until walk_blocks has returned, the
// per-block tensors of `in` must not be read by anything else.

#include <vector>

#include "methods/checked_inputs.h"

namespace vitrel {

// Returns the readout rows (length S, in.readout) of `rollouts`, in their order;
// every element of `rollouts` must be a MethodForm::Rollout method. Throws InputError naming
// the first non-finite value (tensors in the order attn, attn_grad,
// attn_rel) if any block holds one.
std::vector<std::vector<float>> walk_blocks(const std::vector<Method>& rollouts,
                                            const CheckedInputs& in);

}  // namespace vitrel
