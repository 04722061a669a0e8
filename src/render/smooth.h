#pragma once
// Gaussian smoothing of a map, for drawing pixel maps: LRP's pixel relevance alternates in
// sign from one pixel to the next, so unsmoothed it reads as grey noise at any scale
// (docs/display-scale.md). Separable, the edges repeated, weights summing to 1: a constant
// map stays constant and the sum over the interior is kept.

#include <vector>

namespace vitrel {

// `map` is rows x cols, row-major, finite; sigma > 0 in cells. Returns rows x cols.
std::vector<float> gaussian_smooth(const std::vector<float>& map, int rows, int cols, float sigma);

}  // namespace vitrel
