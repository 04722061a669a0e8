#pragma once
// Internal: where the official BERT code defines a method differently from its ViT code
// (METHODS.md, "Text (BERT)"), applied on a text layout (relevance.h, text_layout). The
// registry's functions ask is_text() themselves where a formula changes inside them
// (row_rollout.cpp, single_block.cpp); what is added after them is here.

#include <vector>

#include "methods/checked_inputs.h"

namespace vitrel {

// Whether a rollout's block matrices are divided by their row sums after adding I:
// attention_rollout's always, transformer_attribution's on a text (the BERT code's
// compute_rollout_attention normalises, the ViT code's does not).
bool rollout_rows_normalised(Method m, const TokenLayout& layout);

// The token whose row a text map is: the query token, else [CLS] (0).
int explained_token(const CheckedInputs& in);

// The official code's last line on a text map `row` of method m: the explained token's own
// entry becomes the row's minimum (transformer_attribution: rollout[:, 0, 0] =
// rollout[:, 0].min()) or 0 (attention_rollout, raw_attention, gradcam, partial_lrp; and
// lrp_full's [CLS] entry, cam[:, 0] = 0). The project's other methods are left as computed.
void apply_text_entry_rule(Method m, const CheckedInputs& in, std::vector<float>& row);

// GradCAM on a text (generate_attn_gradcam): per head k, w_k = the mean of G[B-1][k] over
// the whole S x S matrix; C = (mean_k A[B-1][k] w_k)+ over the whole matrix, min-max
// normalised over the whole matrix (all zeros when constant: the official code gives NaN);
// the map is C's row of the explained token.
std::vector<float> text_gradcam_row(const CheckedInputs& in);

}  // namespace vitrel
