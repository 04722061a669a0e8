#pragma once
// Pixel removal of the perturbation test (official pertubation_eval_from_hdf5.py): rank the
// pixels of a relevance map, black out the first k% of them in the un-normalised [0,1]
// image, then normalise it for the model. "Positive" perturbation removes the most
// relevant pixels first, "negative" the least relevant first.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/ids.h"

namespace vitrel {

enum class RemovalOrder { most_relevant_first, least_relevant_first };

inline constexpr IdName<RemovalOrder> kRemovalOrderNames[] = {
    {RemovalOrder::most_relevant_first, "most_relevant_first"},
    {RemovalOrder::least_relevant_first, "least_relevant_first"},
};
constexpr IdTable<IdName<RemovalOrder>> id_table(RemovalOrder) {
  return {"removal order", kRemovalOrderNames};
}

// floor(pixels * fraction) in double, as Python's int(base_size * step).
// InputError unless 0 <= fraction <= 1.
std::size_t removed_pixel_count(std::size_t pixels, double fraction);

// Pixel indices of map[0..n) in removal order: descending value for most_relevant_first,
// ascending for least_relevant_first. Equal values always go lower index first, in both
// orders, so the ranking is deterministic (the official torch.topk leaves ties unspecified).
// InputError on an empty map or a non-finite value (naming its index).
std::vector<std::uint32_t> removal_ranking(const float* map, std::size_t n, RemovalOrder order);

// One normalised CHW image per fraction, concatenated: [fractions.size(), 3, height, width].
// `rgba` holds width*height*4 bytes (alpha ignored), `map` height*width values, row-major.
// For each fraction the first removed_pixel_count(height*width, fraction) pixels of
// removal_ranking(map) are 0 in all three channels of the [0,1] image (byte / 255, as
// torchvision's ToTensor); every channel is then (x - mean[c]) / std[c].
// Fractions may come in any order; InputError on bad sizes, std == 0, or a fraction
// outside [0,1].
std::vector<float> perturbed_inputs(const std::uint8_t* rgba, int width, int height,
                                    const float* map, const std::vector<double>& fractions,
                                    RemovalOrder order, const std::array<float, 3>& mean,
                                    const std::array<float, 3>& std);

}  // namespace vitrel
