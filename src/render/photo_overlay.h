#pragma once
// A relevance map drawn over the ORIGINAL photo at full resolution, exactly over the
// region the model saw (input_region()). "bilinear" resamples the map into that region
// with F.interpolate's align_corners=False convention (pixel centres of the map's cells
// spread evenly over the region); "patch_grid" shows each cell as a flat block. Photo
// pixels whose centres fall outside the region keep their colour, darkened by
// `outside_dim` (0 = unchanged, 1 = black). Inside, the colour is alpha-blended, except
// where `threshold` removes the map's value: there the photo shows unchanged.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "preprocess/preprocess_spec.h"
#include "render/colormap.h"
#include "render/sampling.h"
#include "render/threshold.h"

namespace vitrel {

struct OverlayOptions {
  Colormap colormap = Colormap::Jet;
  MapSampling sampling = MapSampling::Bilinear;
  float opacity = 0.5f;      // in [0,1]
  float outside_dim = 0.0f;  // in [0,1]
  // Its level from heat_threshold_level() (heat_image.h), so the photo shows the same
  // pixels removed as the heat image does.
  std::optional<ThresholdLevel> threshold;
};

// In place, so a 12000 x 12000 photo needs no second buffer. `map01` is rows x cols,
// values in [0,1] (others are clamped; non-finite is an InputError). The photo's alpha
// is kept.
void draw_map_on_photo(uint8_t* rgba, size_t size, int width, int height,
                       const std::vector<float>& map01, int rows, int cols,
                       const InputRegion& region, const OverlayOptions& options);

// The same on a copy.
std::vector<uint8_t> overlay_map_on_photo(const uint8_t* rgba, size_t size, int width, int height,
                                          const std::vector<float>& map01, int rows, int cols,
                                          const InputRegion& region, const OverlayOptions& options);

}  // namespace vitrel
