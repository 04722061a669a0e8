#pragma once
// The last stage of every view, in one place: a relevance map → the coloured image drawn
// over the photo (the page, the element, the APIs' render(), the CLI's overlays).
//   1. the map's values on its colour scale (map_scale.h: pixel maps smoothed, then
//      positive min-max or signed with the extremes clipped);
//   2. sampled to the image's size: "bilinear" (F.interpolate) or "patch_grid" (blocks);
//   3. an optional threshold, its level computed on the sampled map (the paper's
//      segmentation thresholds the upsampled map): removed pixels are transparent;
//   4. coloured with the scale's colormap (rdbu for signed).
// The default size is the "smooth" map: bilinear at kSmoothSide or the map's own size if
// finer; a patch grid keeps the map's size (the canvas scales its blocks up).

#include <optional>
#include <vector>

#include "render/colormap.h"
#include "render/map_scale.h"
#include "render/sampling.h"
#include "render/threshold.h"

namespace vitrel {

// The side a smooth map is drawn at: DeiT's 224-pixel input, where the official
// notebooks upsample the 14 x 14 map to.
inline constexpr int kSmoothSide = 224;

struct HeatOptions {
  MapScale scale = MapScale::Positive;
  Colormap colormap = Colormap::Jet;  // the positive scale's; signed draws with rdbu
  MapSampling sampling = MapSampling::Bilinear;
  std::optional<Threshold> threshold;
  int out_rows = 0;  // 0 with out_cols 0: the default size above
  int out_cols = 0;
};

struct HeatImage {
  int rows = 0;
  int cols = 0;
  std::vector<uint8_t> rgba;  // rows * cols * 4
};

// `map` is rows x cols of raw relevance (finite). Throws InputError on a bad map or size.
HeatImage render_heat(const std::vector<float>& map, int rows, int cols, const HeatOptions& o);

// The threshold level render_heat() cuts the map at with the default size, for drawing the
// same pixels removed over the photo (OverlayOptions::threshold). `map01` is already on
// its colour scale.
ThresholdLevel heat_threshold_level(const std::vector<float>& map01, int rows, int cols,
                                    MapSampling sampling, Threshold t);

}  // namespace vitrel
