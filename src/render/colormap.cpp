#include "render/colormap.h"

#include "common/image_checks.h"
#include "render/colormap_tables.h"

namespace vitrel {

int colormap_index(float v) {
  if (!(v > 0.0f)) return 0;  // also NaN, which callers reject before
  if (v >= 1.0f) return 255;
  return static_cast<int>(v * 255.0f);
}

Rgb colormap_color(Colormap c, int index) {
  if (index < 0 || index > 255) {
    throw InputError("colormap_color: index " + std::to_string(index) + " outside 0..255");
  }
  const uint8_t* e = nullptr;
  switch (c) {
    case Colormap::Jet: e = kJetLut[index]; break;
    case Colormap::Viridis: e = kViridisLut[index]; break;
    case Colormap::Inferno: e = kInfernoLut[index]; break;
    case Colormap::Turbo: e = kTurboLut[index]; break;
    case Colormap::RdBu: e = kRdBuLut[index]; break;
    case Colormap::Gray: {
      const auto g = static_cast<uint8_t>(index);
      return {g, g, g};
    }
  }
  return {e[0], e[1], e[2]};
}

std::vector<uint8_t> apply_colormap(const std::vector<float>& map01, Colormap c) {
  require_finite_values(map01, "apply_colormap map");
  std::vector<uint8_t> rgba(map01.size() * 4);
  for (size_t i = 0; i < map01.size(); ++i) {
    const Rgb rgb = colormap_color(c, colormap_index(map01[i]));
    rgba[4 * i + 0] = rgb.r;
    rgba[4 * i + 1] = rgb.g;
    rgba[4 * i + 2] = rgb.b;
    rgba[4 * i + 3] = 255;
  }
  return rgba;
}

std::vector<uint8_t> colormap_legend(Colormap c) {
  std::vector<uint8_t> rgba(256 * 4);
  for (int i = 0; i < 256; ++i) {
    const Rgb rgb = colormap_color(c, i);
    rgba[4 * i + 0] = rgb.r;
    rgba[4 * i + 1] = rgb.g;
    rgba[4 * i + 2] = rgb.b;
    rgba[4 * i + 3] = 255;
  }
  return rgba;
}

}  // namespace vitrel
