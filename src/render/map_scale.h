#pragma once
// How a relevance map's values become colour positions in [0,1] (the colormap's input),
// the one display rule of the page, the element, both APIs' render() and the CLI's
// pictures (docs/display-scale.md has the comparison behind it):
//   pixel maps (at least kPixelMapSide cells a side: lrp_full, attnlrp, cp_lrp) are first
//               smoothed, a Gaussian of kPixelMapSigma cells, so that relevance that flips
//               sign from pixel to pixel reads as the region it covers;
//   "positive": min-max, as the official notebooks do (normalize.h): the lowest value is
//               the colormap's first colour, whatever its sign.
//   "signed":   symmetric about 0, full colour at ±p, p the kSignedClipQuantile quantile of
//               |v| (the few values beyond it drawn at the ends): a handful of extreme
//               pixels would otherwise set the scale and leave the rest white. Drawn with
//               the diverging "rdbu" colormap (blue negative, white 0, red positive)
//               whatever colormap the positive scale uses: a sequential map has no middle.
// The raw values stay as they are in maps.json and .npy; MapSummary says what was drawn.

#include <vector>

#include "common/ids.h"
#include "render/colormap.h"

namespace vitrel {

enum class MapScale { Positive, Signed };

inline constexpr IdName<MapScale> kMapScaleNames[] = {
    {MapScale::Positive, "positive"},
    {MapScale::Signed, "signed"},
};
constexpr IdTable<IdName<MapScale>> id_table(MapScale) { return {"scale", kMapScaleNames}; }

// A map this fine on both sides is a pixel map (a patch grid has a few dozen cells a side).
inline constexpr int kPixelMapSide = 112;
// A quarter of a 16-pixel patch: enough to join the sign-alternating pixels of one part.
inline constexpr float kPixelMapSigma = 4.0f;
// 3 % of |v| beyond full colour: with the smoothing, every signed method colours over 10 %
// of the crop on unseen photos (docs/display-scale.md), 1 % left lrp_full near 7 %.
inline constexpr double kSignedClipQuantile = 0.97;

// `map` is rows x cols (checked: non-empty, finite). An all-zero map becomes 0.5
// everywhere under "signed" (neutral), zeros under "positive".
std::vector<float> normalize_for_scale(const std::vector<float>& map, int rows, int cols,
                                       MapScale scale);

// The colormap a scale draws with: `chosen` for "positive", rdbu for "signed".
Colormap colormap_for_scale(MapScale scale, Colormap chosen);

// What a caption says about a drawn map: the raw range, and the colour scale's ends.
struct MapSummary {
  float min = 0.f;             // raw
  float max = 0.f;             // raw
  float negative_share = 0.f;  // share of raw entries < 0, in [0,1]
  float low = 0.f;             // the value drawn with the first colour (after smoothing)
  float high = 0.f;            // the value drawn with the last colour
  float clipped_share = 0.f;   // share of the (smoothed) map beyond [low, high]
  bool smoothed = false;
};

MapSummary summarize_map(const std::vector<float>& map, int rows, int cols, MapScale scale);

}  // namespace vitrel
