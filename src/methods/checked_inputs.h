#pragma once
// Internal: validation of a whole batch of methods. Each tensor a method of the batch
// needs is checked once (shape, layout, finiteness), however many methods read it.

#include <vector>

#include "methods/block_stack.h"
#include "methods/relevance.h"

namespace vitrel {

struct CheckedInputs {
  BlockStack attention;         // [B,h,S,S]
  BlockStack attention_grad;    // [B,h,S,S]
  BlockStack attention_rel;     // [B,h,S,S]
  BlockStack rel_classic_last;  // [h,S,S] as a stack of one block
  const float* input_rel_classic = nullptr;  // [rows, cols]
  int input_rows = 0;
  int input_cols = 0;

  int blocks = 0;  // 0 when no per-block tensor was needed
  TokenLayout layout;
  MethodOptions options;
};

// Throws InputError with a specific message on the first problem found: a missing tensor,
// a bad layout, shape or option, or a non-finite value.
CheckedInputs check_inputs(const std::vector<Method>& methods, const RelevanceInputs& in,
                           const TokenLayout& layout, const MethodOptions& options);

// True for the methods whose row mixes tokens across blocks (the rollouts).
bool is_rollout_method(Method m);
// True for the rollouts that start at options.start_layer.
bool uses_start_layer(Method m);

}  // namespace vitrel
