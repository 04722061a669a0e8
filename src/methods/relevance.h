#pragma once
// The relevance methods of METHODS.md, computed from the tensors a model exports.
// Model-agnostic: any number of blocks B, heads h and tokens S; the patch grid and the
// number of leading special tokens (CLS first, then e.g. a distillation token) are given.

#include <string>
#include <vector>

#include "methods/registry.h"
#include "tensor/tensor_view.h"

namespace vitrel {

// How the S tokens map onto the image: S = special_tokens + grid_rows * grid_cols.
// Or a text (text_layout): S = text_tokens tokens, [CLS] first, no grid. On a text every
// method computes the official BERT code's definition (METHODS.md, "Text (BERT)": the
// rollouts of transformer_attribution and attention_rollout row-normalised, the [CLS]
// entry of the explained row set to the row's minimum or to 0, GradCAM over the whole
// matrix, raw attention without clamp) and every map is the length-S token row.
struct TokenLayout {
  int grid_rows = 0;
  int grid_cols = 0;
  int special_tokens = 1;
  int text_tokens = 0;  // > 0: a text layout

  bool is_text() const { return text_tokens > 0; }
  int tokens() const { return is_text() ? text_tokens : special_tokens + grid_rows * grid_cols; }
};

// The layout of a text of S tokens.
inline TokenLayout text_layout(int tokens) { return TokenLayout{0, 0, 1, tokens}; }

// Everything a model exports, one field per Tensor (registry.h), named as the graph's
// outputs. Any field may be empty; a method whose inputs are missing, or whose per-block
// inputs have fewer blocks than it is defined for (MethodInfo::min_blocks), cannot be
// computed (has_inputs_for() says which).
struct RelevanceInputs {
  TensorView attn;                   // A  [B,h,S,S] post-softmax attention of every block
  TensorView attn_grad;              // G  [B,h,S,S] d(target row . logits)/dA
  TensorView attn_rel;               // R  [B,h,S,S] LRP relevance at A, proposed rules
  TensorView attn_rel_classic_last;  // Rc [h,S,S]   at the last block's A, classic rules
  TensorView input_rel_classic;      // X  [H,W]     classic LRP at the pixels, RGB summed
  TensorView attr;                   // Attr [B,h,S,S] Self-Attention Attribution
  TensorView input_rel_attnlrp;      // [H,W] AttnLRP at the pixels, RGB summed
  TensorView input_rel_cp_lrp;       // [H,W] CP-LRP at the pixels, RGB summed
  // (On a text layout the three input_rel_* are [S]: at the embeddings, hidden summed.)

  TensorView& operator[](Tensor t);
  const TensorView& operator[](Tensor t) const;
};

// How the model's head reads the tokens (docs/layouts.md), which fixes the readout: the
// row vector r of token weights whose relevance a map shows. A rollout is linear in its
// start row, so r M is the pooled explanation; a one-block method takes r's weighted sum
// of its rows.
//   cls         r = e_0                           token 0 (the default)
//   cls+dist    r = (e_0 + e_1) / 2               DeiT distilled: mean of the two heads
//   avg         r = mean of the patch tokens      prefix tokens (if any) left out
//   avg+prefix  r = mean of all S tokens          prefix tokens in the mean
//   cls+avg     r = (e_0 + mean of patches) / 2   HF DINOv2's concat(CLS, patch mean)
enum class Pool { Cls, ClsDist, Avg, AvgPrefix, ClsAvg };

inline constexpr IdName<Pool> kPoolNames[] = {{Pool::Cls, "cls"},
                                              {Pool::ClsDist, "cls+dist"},
                                              {Pool::Avg, "avg"},
                                              {Pool::AvgPrefix, "avg+prefix"},
                                              {Pool::ClsAvg, "cls+avg"}};
constexpr IdTable<IdName<Pool>> id_table(Pool) { return {"pool", kPoolNames}; }

// query_token's value for "the pool's readout" rather than one token's row.
constexpr int kReadout = -1;

struct MethodOptions {
  int start_layer = 0;         // first block of the three rollouts (the paper's evaluations use 1)
  int query_token = kReadout;  // whose row is explained: a token (explorer), or the readout
  Pool pool = Pool::Cls;       // the readout when query_token is kReadout
};

// The readout's length-S token weights (they sum to 1): e_q for a token q >= 0, else the
// pool's. InputError for a bad layout, q out of range, or (q = kReadout) a pool that does
// not fit the layout: cls or cls+avg with no special token, cls+dist with fewer than two,
// any but cls on a text.
std::vector<float> readout_weights(const TokenLayout& layout, const MethodOptions& options);

// A relevance map, row-major. Patch-grid methods give grid_rows x grid_cols;
// lrp_full, attnlrp and cp_lrp give the H x W pixel map (patch_sum.h: its patch map).
// On a text layout every map is 1 x S, one value per token.
struct RelevanceMap {
  int rows = 0;
  int cols = 0;
  std::vector<float> data;
};

bool has_inputs_for(Method m, const RelevanceInputs& in);

// Validates shapes, layout, options and finiteness, then computes the map.
// Throws InputError with a specific message on any bad input. A method checks only the
// tensors it reads (e.g. transformer_attribution: attn_grad and attn_rel).
RelevanceMap compute_relevance(Method m, const RelevanceInputs& in, const TokenLayout& layout,
                               const MethodOptions& options = {});

// Several methods on the same inputs: each tensor is validated once for the whole batch
// (not once per method) and the rollouts share one pass over the blocks. Returns the maps
// in the order of `methods`; throws InputError like compute_relevance.
std::vector<RelevanceMap> compute_relevance_maps(const std::vector<Method>& methods,
                                                 const RelevanceInputs& in,
                                                 const TokenLayout& layout,
                                                 const MethodOptions& options = {});

// The token explorer: the full length-S relevance row of the readout (a token's or the
// pool's, readout_weights) for the
// methods that have one (MethodForm Rollout, propagated as a row vector through the
// blocks in O(B*h*S^2), and Row, their row of one block). MethodForm::Map methods
// (gradcam, lrp_full) have no token row: InputError.
std::vector<float> relevance_row(Method m, const RelevanceInputs& in, const TokenLayout& layout,
                                 const MethodOptions& options = {});

}  // namespace vitrel
