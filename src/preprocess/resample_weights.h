#pragma once
// The per-axis convolution weights of a PIL-compatible resize (what torchvision's Resize
// does to a PIL image): the filter is centred on each output pixel's centre mapped into
// the input, its support stretched by the shrink factor when shrinking (antialiasing),
// weights normalised to sum 1, then quantised to 22-bit fixed point for 8-bit pixels.

#include <cstdint>
#include <string>
#include <vector>

#include "common/ids.h"

namespace vitrel {

enum class Interpolation { Bilinear, Bicubic };

inline constexpr IdName<Interpolation> kInterpolationNames[] = {
    {Interpolation::Bilinear, "bilinear"},
    {Interpolation::Bicubic, "bicubic"},
};
constexpr IdTable<IdName<Interpolation>> id_table(Interpolation) {
  return {"interpolation", kInterpolationNames};
}

// Longest axis a resize may produce. Only the window that is kept (e.g. the crop) is
// computed, so a long resized axis costs just its weights.
constexpr int kMaxResizedSide = 1 << 20;

// Fixed-point scale of the weights: a sum of uint8 * weight fits in int32 with headroom.
constexpr int kWeightBits = 22;

// Weights of one axis resized from in_size to out_size samples. Output i reads inputs
// first[i] .. first[i] + count[i] - 1 with weights weights[i * taps + k].
struct AxisWeights {
  int taps = 0;
  std::vector<int> first;
  std::vector<int> count;
  std::vector<int32_t> weights;
};

// Sizes are >= 1 (callers check).
AxisWeights axis_weights(int in_size, int out_size, Interpolation interpolation);

}  // namespace vitrel
