#pragma once
// The patch map of a pixel map (METHODS.md, "AttnLRP and CP-LRP", "Final map"): the sum of
// the pixel relevance over each patch, so that it stays conservative (a patch holds the
// relevance of its pixels) and signed. Any pixel map works (attnlrp, cp_lrp, lrp_full).

#include "methods/relevance.h"

namespace vitrel {

// grid_rows x grid_cols sums of `pixels`, each over its (rows / grid_rows) x
// (cols / grid_cols) block, row-major (patch r, q = the map's [r, q], token
// special_tokens + r * grid_cols + q). Accumulated in double. InputError when the grid is
// empty or does not divide the map, or when a sum leaves float32 range.
RelevanceMap patch_sum(const RelevanceMap& pixels, int grid_rows, int grid_cols);

}  // namespace vitrel
