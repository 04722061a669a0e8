#include "render/photo_overlay.h"

#include <algorithm>
#include <cmath>

#include "common/image_checks.h"
#include "render/composite.h"  // require_opacity; blending as blend_channel()

namespace vitrel {

namespace {

// Where photo pixel p (along one axis) reads the map: two cells and a weight, or nothing.
struct Tap {
  bool inside = false;
  int i0 = 0;
  int i1 = 0;
  float w1 = 0.0f;
};

std::vector<Tap> axis_taps(int photo_size, double start, double length, int cells,
                           MapSampling sampling) {
  std::vector<Tap> taps(photo_size);
  for (int p = 0; p < photo_size; ++p) {
    const double u = (p + 0.5 - start) / length;  // 0..1 across the region
    Tap& t = taps[p];
    t.inside = u >= 0.0 && u < 1.0;
    if (!t.inside) continue;
    if (sampling == MapSampling::PatchGrid) {
      t.i0 = t.i1 = std::min(cells - 1, int(u * cells));
      continue;
    }
    // align_corners=False: cell centres at (i + 0.5) / cells; clamp at both ends.
    const double src = std::max(0.0, u * cells - 0.5);
    t.i0 = std::min(cells - 1, int(src));
    t.i1 = std::min(cells - 1, t.i0 + 1);
    t.w1 = t.i1 == t.i0 ? 0.0f : float(src - t.i0);
  }
  return taps;
}

void require_region(const InputRegion& r) {
  if (!std::isfinite(r.x) || !std::isfinite(r.y) || !(r.width > 0) || !(r.height > 0) ||
      !std::isfinite(r.width) || !std::isfinite(r.height)) {
    throw InputError("draw_map_on_photo: region must be finite with width and height > 0");
  }
}

}  // namespace

void draw_map_on_photo(uint8_t* rgba, size_t size, int width, int height,
                       const std::vector<float>& map01, int rows, int cols,
                       const InputRegion& region, const OverlayOptions& options) {
  require_rgba_image(rgba, size, width, height, "draw_map_on_photo image");
  require_map(map01, rows, cols, "draw_map_on_photo map");
  require_region(region);
  require_opacity(options.opacity, "draw_map_on_photo");
  if (!(options.outside_dim >= 0.0f && options.outside_dim <= 1.0f)) {
    throw InputError("draw_map_on_photo: outside_dim " + std::to_string(options.outside_dim) +
                     " must be in [0,1]");
  }

  const std::vector<Tap> xt = axis_taps(width, region.x, region.width, cols, options.sampling);
  const std::vector<Tap> yt = axis_taps(height, region.y, region.height, rows, options.sampling);
  // The region's photo columns are contiguous: [x_lo, x_hi).
  int x_lo = 0;
  while (x_lo < width && !xt[x_lo].inside) ++x_lo;
  int x_hi = x_lo;
  while (x_hi < width && xt[x_hi].inside) ++x_hi;

  // opacity * colour per table entry: the same float products blend_channel() forms.
  const std::vector<uint8_t> lut = colormap_legend(options.colormap);  // 256 RGBA entries
  const float opacity = options.opacity;
  std::vector<float> tinted(256 * 3);
  for (int i = 0; i < 256; ++i) {
    for (int c = 0; c < 3; ++c) tinted[3 * i + c] = opacity * lut[4 * i + c];
  }
  const float photo_weight = 1.0f - opacity;
  const ThresholdLevel* cut = options.threshold ? &*options.threshold : nullptr;
  const float keep = 1.0f - options.outside_dim;
  auto dim = [keep](uint8_t* px, int from, int to) {
    if (keep == 1.0f) return;
    for (int x = from; x < to; ++x, px += 4) {
      for (int c = 0; c < 3; ++c) px[c] = uint8_t(px[c] * keep + 0.5f);
    }
  };

  std::vector<float> line(cols);
  for (int y = 0; y < height; ++y) {
    uint8_t* row = rgba + size_t(y) * width * 4;
    const Tap& ty = yt[y];
    if (!ty.inside) {
      dim(row, 0, width);
      continue;
    }
    dim(row, 0, x_lo);
    dim(row + size_t(x_hi) * 4, x_hi, width);
    // The map interpolated to this photo row, then along the row per pixel.
    const float* r0 = &map01[size_t(ty.i0) * cols];
    const float* r1 = &map01[size_t(ty.i1) * cols];
    for (int c = 0; c < cols; ++c) line[c] = (1.0f - ty.w1) * r0[c] + ty.w1 * r1[c];
    uint8_t* px = row + size_t(x_lo) * 4;
    for (int x = x_lo; x < x_hi; ++x, px += 4) {
      const Tap& tx = xt[x];
      const float v = (1.0f - tx.w1) * line[tx.i0] + tx.w1 * line[tx.i1];
      if (cut && !cut->keeps(v)) continue;  // the threshold removed it: the photo shows
      const float* colour = &tinted[3 * colormap_index(v)];
      for (int c = 0; c < 3; ++c) px[c] = uint8_t(photo_weight * px[c] + colour[c] + 0.5f);
    }
  }
}

std::vector<uint8_t> overlay_map_on_photo(const uint8_t* rgba, size_t size, int width, int height,
                                          const std::vector<float>& map01, int rows, int cols,
                                          const InputRegion& region,
                                          const OverlayOptions& options) {
  require_rgba_image(rgba, size, width, height, "overlay_map_on_photo image");
  std::vector<uint8_t> out(rgba, rgba + size);
  draw_map_on_photo(out.data(), out.size(), width, height, map01, rows, cols, region, options);
  return out;
}

}  // namespace vitrel
