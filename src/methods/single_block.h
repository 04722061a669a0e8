#pragma once
// Internal: the methods that read one block only (no rollout).
//
//   raw_attention          E_h[A[B-1]+]            row q
//   partial_lrp            E_h[Rc+]                row q   (classic rules, last block)
//   ablation_last_block    E_h[(G[B-1] . R[B-1])+] row q
//   ablation_second_block  E_h[(G[1] . R[1])+]     row q
//   gradcam                per-head weights from G[B-1] row q over the patch columns,
//                          then min-max over the patches (see gradcam_patches)

#include <vector>

#include "methods/checked_inputs.h"

namespace vitrel {

bool is_single_block_row_method(Method m);

// The length-S row of options.query_token; `m` must satisfy is_single_block_row_method.
std::vector<float> single_block_row(Method m, const CheckedInputs& in);

// GradCAM on the attention of the last block, for the patch tokens only (length
// rows*cols), min-max normalised to [0,1]; all zeros when the map is constant (the
// reference returns NaN there).
std::vector<float> gradcam_patches(const CheckedInputs& in);

}  // namespace vitrel
