#include "render/composite.h"

#include <algorithm>
#include <cmath>

#include "common/image_checks.h"

namespace vitrel {

void require_opacity(float opacity, const char* what) {
  if (!(opacity >= 0.0f && opacity <= 1.0f)) {
    throw InputError(std::string(what) + ": opacity " + std::to_string(opacity) +
                     " must be in [0,1]");
  }
}

namespace {

void blend_alpha(const uint8_t* rgba, const std::vector<uint8_t>& heat, float opacity,
                 std::vector<uint8_t>& out) {
  for (size_t i = 0; i < out.size(); i += 4) {
    for (int c = 0; c < 3; ++c) out[i + c] = blend_channel(rgba[i + c], heat[i + c], opacity);
    out[i + 3] = rgba[i + 3];
  }
}

// float32 throughout, like the notebook's NumPy code.
void blend_notebook(const uint8_t* rgba, const std::vector<uint8_t>& heat,
                    std::vector<uint8_t>& out) {
  uint8_t lo = 255, hi = 0;
  for (size_t i = 0; i < out.size(); i += 4) {
    for (int c = 0; c < 3; ++c) {
      lo = std::min(lo, rgba[i + c]);
      hi = std::max(hi, rgba[i + c]);
    }
  }
  // The notebook's photo is the model input un-normalised to [0,1]; min-max on uint8
  // values divided by 255 is the same up to float rounding. A constant photo becomes 0.
  const float range = float(hi - lo);
  auto photo = [&](size_t k) { return range > 0 ? float(rgba[k] - lo) / range : 0.0f; };

  float peak = 0.0f;
  for (size_t i = 0; i < out.size(); i += 4) {
    for (int c = 0; c < 3; ++c) peak = std::max(peak, heat[i + c] / 255.0f + photo(i + c));
  }
  for (size_t i = 0; i < out.size(); i += 4) {
    for (int c = 0; c < 3; ++c) {
      const float v = peak > 0 ? (heat[i + c] / 255.0f + photo(i + c)) / peak : 0.0f;
      out[i + c] = static_cast<uint8_t>(std::min(255.0f, 255.0f * v));
    }
    out[i + 3] = rgba[i + 3];
  }
}

}  // namespace

std::vector<uint8_t> composite_heatmap(const uint8_t* rgba, size_t size, int width, int height,
                                       const std::vector<float>& map01,
                                       const CompositeOptions& options) {
  require_rgba_image(rgba, size, width, height, "composite_heatmap image");
  require_map(map01, height, width, "composite_heatmap map");
  require_opacity(options.opacity, "composite_heatmap");
  const std::vector<uint8_t> heat = apply_colormap(map01, options.colormap);
  std::vector<uint8_t> out(size);
  if (options.mode == BlendMode::Alpha) {
    blend_alpha(rgba, heat, options.opacity, out);
  } else {
    blend_notebook(rgba, heat, out);
  }
  return out;
}

}  // namespace vitrel
