#pragma once
// Internal: validation of a whole batch of methods. Each tensor a method of the batch
// needs is checked once, however many methods read it: check_inputs checks layout,
// options, every shape and the finiteness of the small tensors; the per-block tensors'
// finiteness is checked by walk_blocks (block_walk.h) block by block, right before the
// rollouts read each block, so that every tensor is read from memory only once.

#include <cstdint>
#include <string>
#include <vector>

#include "methods/block_stack.h"
#include "methods/relevance.h"

namespace vitrel {

// A checked [rows, cols] map at the pixels (input_rel_*).
struct PixelTensor {
  const float* data = nullptr;
  int rows = 0;
  int cols = 0;
};

struct CheckedInputs {
  BlockStack attn;                   // [B,h,S,S]
  BlockStack attn_grad;              // [B,h,S,S]
  BlockStack attn_rel;               // [B,h,S,S]
  BlockStack attr;                   // [B,h,S,S]
  BlockStack attn_rel_classic_last;  // [h,S,S] as a stack of one block
  PixelTensor input_rel_classic;
  PixelTensor input_rel_attnlrp;
  PixelTensor input_rel_cp_lrp;

  int blocks = 0;                     // 0 when no per-block tensor was needed
  std::vector<BlockStack> unscanned;  // the per-block tensors walk_blocks must scan
  TokenLayout layout;
  MethodOptions options;
  std::vector<float> readout;  // length S: the token weights the maps explain (readout_weights)
};

// InputError for a grid under 1x1, negative special tokens or too many tokens.
void check_layout(const TokenLayout& layout);

// "5 tokens = 1 special + 2x2 grid", for messages.
std::string layout_string(const TokenLayout& layout);

// Throws InputError with a specific message on the first problem found: a missing tensor,
// a bad layout, shape or option, or a non-finite value in attn_rel_classic_last or an
// input_rel_* pixel tensor. Per-block tensors are left for walk_blocks to scan.
CheckedInputs check_inputs(const std::vector<Method>& methods, const RelevanceInputs& in,
                           const TokenLayout& layout, const MethodOptions& options);

// The whole-tensor finiteness check of in.unscanned, in argument order: throws
// require_finite's InputError for the first NaN or infinity.
void require_unscanned_finite(const CheckedInputs& in);

// Throws InputError for a method whose arithmetic left float32 range (e.g. a rollout of
// attention values near 3e38): the input error if some input is not finite after all
// (require_unscanned_finite), else one naming the method, `what` overflowed and the
// largest magnitude of each tensor the method reads. So a result is never silently made
// of zeros, infinities or NaNs.
[[noreturn]] void report_overflow(Method m, const CheckedInputs& in, const std::string& what);

// Throws report_overflow's error, naming the first non-finite value of values[0..n) with
// `what` (e.g. "the row after block 3"), unless all are finite.
void require_finite_result(Method m, const CheckedInputs& in, const float* values, int64_t n,
                           const std::string& what);

}  // namespace vitrel
