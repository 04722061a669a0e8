#pragma once
// Heatmap over photo, for an image and a [0,1] map of the same size (upsample first).
//
// "alpha":    out = round((1 - opacity) * photo + opacity * colour), per RGB channel.
// "notebook": the official notebooks' show_cam_on_image: colour/255 + the photo min-max
//             normalised over all its RGB values, divided by the maximum of that sum,
//             then np.uint8(255 * x) (truncation), all in float32. Two notebook quirks
//             are not copied: they add OpenCV's BGR heatmap to an RGB photo, and their
//             "photo" is the mean/std-normalised model input min-maxed (a slight colour
//             cast); here both are RGB and the photo is the true-colour one.
//             `opacity` is not used.
// The output is RGBA with the photo's alpha.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/ids.h"
#include "render/colormap.h"

namespace vitrel {

enum class BlendMode { Alpha, Notebook };

inline constexpr IdName<BlendMode> kBlendModeNames[] = {
    {BlendMode::Alpha, "alpha"},
    {BlendMode::Notebook, "notebook"},
};
constexpr IdTable<IdName<BlendMode>> id_table(BlendMode) { return {"blend mode", kBlendModeNames}; }

struct CompositeOptions {
  Colormap colormap = Colormap::Jet;
  BlendMode mode = BlendMode::Alpha;
  float opacity = 0.5f;  // 0 = photo only, 1 = heatmap only; must be in [0,1]
};

// `rgba` is width*height*4 bytes; `map01` has width*height values (row-major).
std::vector<uint8_t> composite_heatmap(const uint8_t* rgba, size_t size, int width, int height,
                                       const std::vector<float>& map01,
                                       const CompositeOptions& options);

// One pixel of the "alpha" mode (shared with the full-resolution photo overlay).
inline uint8_t blend_channel(uint8_t photo, uint8_t colour, float opacity) {
  const float v = (1.0f - opacity) * photo + opacity * colour;
  return static_cast<uint8_t>(v + 0.5f);
}

// Throws InputError unless opacity is finite and in [0,1].
void require_opacity(float opacity, const char* what);

}  // namespace vitrel
