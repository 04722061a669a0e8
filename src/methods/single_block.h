#pragma once
// Internal: the methods that read one block (or no block) and need no rollout; the
// registry (registry.cpp) points at these.
//
//   raw_attention          E_h[A[B-1]+]            row r   (a text: E_h[A[B-1]], no clamp)
//   partial_lrp            E_h[Rc+]                row r   (classic rules, last block)
//   ablation_last_block    E_h[(G[B-1] . R[B-1])+] row r
//   ablation_second_block  E_h[(G[1] . R[1])+]     row r
//   gradcam                per-head weights from G[B-1] row r over the patch columns,
//                          then min-max over the patches (see gradcam_map); a text:
//                          text_gradcam_row (text_rules.h)
//   lrp_full               the H x W pixel relevance as given
// "row r" is the readout's (in.readout): Σ_q r_q (row q), row q itself for a token.

#include <vector>

#include "methods/checked_inputs.h"

namespace vitrel {

// The length-S readout rows (MethodForm::Row).
std::vector<float> raw_attention_row(const CheckedInputs& in);
std::vector<float> partial_lrp_row(const CheckedInputs& in);
std::vector<float> last_block_product_row(const CheckedInputs& in);
std::vector<float> second_block_product_row(const CheckedInputs& in);

// GradCAM on the attention of the last block, for the patch tokens only (the grid),
// min-max normalised to [0,1]; all zeros when the map is constant (the reference returns
// NaN there).
RelevanceMap gradcam_map(const CheckedInputs& in);

// input_rel_classic itself, H x W (1 x S on a text).
RelevanceMap lrp_full_map(const CheckedInputs& in);

}  // namespace vitrel
