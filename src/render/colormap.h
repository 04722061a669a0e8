#pragma once
// Colormaps by id ("jet", "viridis", "inferno", "turbo", "gray", "rdbu": the diverging
// blue-white-red one signed maps use, render/map_scale.h): a value in [0,1] picks
// one of 256 table entries at index floor(v * 255), computed in float32 - what the
// official notebooks do with cv2.applyColorMap(np.uint8(255 * mask)). So 1.0 is the last
// entry and each entry covers an interval of width 1/255 (the last one only v == 1).
// The same rule for every map, so matplotlib's maps use the uint8 path of
// cmap(np.uint8(255 * v), bytes=True) (matplotlib's own float path, floor(v * 256), can
// pick the next entry). Values outside [0,1] are clamped; non-finite values are an
// InputError.

#include <cstdint>
#include <string>
#include <vector>

#include "common/ids.h"

namespace vitrel {

enum class Colormap { Jet, Viridis, Inferno, Turbo, Gray, RdBu };

inline constexpr IdName<Colormap> kColormapNames[] = {
    {Colormap::Jet, "jet"},     {Colormap::Viridis, "viridis"}, {Colormap::Inferno, "inferno"},
    {Colormap::Turbo, "turbo"}, {Colormap::Gray, "gray"},       {Colormap::RdBu, "rdbu"},
};
constexpr IdTable<IdName<Colormap>> id_table(Colormap) { return {"colormap", kColormapNames}; }

// The table index of `v` (see above); v must be finite.
int colormap_index(float v);

// Entry `index` (0..255) as {r, g, b}.
struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};
Rgb colormap_color(Colormap c, int index);

// Each value of a [0,1] map coloured: width*height*4 bytes RGBA, alpha 255.
std::vector<uint8_t> apply_colormap(const std::vector<float>& map01, Colormap c);

// The colour legend: 256 x 1 RGBA pixels, entry 0 (value 0) on the left.
std::vector<uint8_t> colormap_legend(Colormap c);

}  // namespace vitrel
