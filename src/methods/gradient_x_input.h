#pragma once
// Internal: AttnLRP and CP-LRP (METHODS.md, "AttnLRP and CP-LRP"). Both are one forward and
// one modified backward pass of the model, done in the explainer graph; the map is
// Gradient x Input at the normalised pixels, summed over RGB, and arrives here as the
// graph's input_rel_attnlrp / input_rel_cp_lrp. Signed: nothing is clamped or normalised
// (the display divides by max|R|). Their patch map is patch_sum (patch_sum.h) of it.

#include "methods/checked_inputs.h"

namespace vitrel {

// input_rel_attnlrp itself, H x W.
RelevanceMap attnlrp_map(const CheckedInputs& in);

// input_rel_cp_lrp itself, H x W.
RelevanceMap cp_lrp_map(const CheckedInputs& in);

}  // namespace vitrel
