#pragma once
// How a relevance map's values become colour positions in [0,1] (the colormap's input):
//   "positive": min-max, as the official notebooks do (normalize.h): the lowest value is
//               the colormap's first colour, whatever its sign.
//   "signed":   symmetric about 0: v / (2 max|v|) + 0.5, so 0 is the middle of the scale,
//               -max|v| the first colour and +max|v| the last; drawn with the diverging
//               "rdbu" colormap (blue negative, white 0, red positive) whatever colormap
//               the positive scale uses, because a sequential map has no neutral middle.
// Plus what a caption needs to say what is shown: the range and the share of negatives.

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

// Throws InputError on an empty map or any non-finite value. An all-zero map becomes 0.5
// everywhere under "signed" (neutral), zeros under "positive".
std::vector<float> normalize_signed(const std::vector<float>& map);
std::vector<float> normalize_for_scale(const std::vector<float>& map, MapScale scale);

// The colormap a scale draws with: `chosen` for "positive", rdbu for "signed".
Colormap colormap_for_scale(MapScale scale, Colormap chosen);

struct MapSummary {
  float min = 0.f;
  float max = 0.f;
  float negative_share = 0.f;  // share of entries < 0, in [0,1]
};

// Throws InputError on an empty map or any non-finite value.
MapSummary summarize_map(const std::vector<float>& map);

}  // namespace vitrel
