#pragma once
// Min-max normalisation of a relevance map to [0,1], as the official notebooks do before
// colouring: (x - min) / (max - min). A constant map becomes all zeros (never NaN).

#include <vector>

namespace vitrel {

// Throws InputError on an empty map or any non-finite value.
std::vector<float> normalize_min_max(const std::vector<float>& map);

}  // namespace vitrel
