#include "render/heat_image.h"

#include <algorithm>
#include <string>

#include "common/image_checks.h"
#include "render/upsample.h"

namespace vitrel {

namespace {

struct Size {
  int rows;
  int cols;
};

Size default_size(int rows, int cols, MapSampling sampling) {
  if (sampling == MapSampling::PatchGrid) return {rows, cols};
  return {std::max(rows, kSmoothSide), std::max(cols, kSmoothSide)};
}

std::vector<float> blocks(const std::vector<float>& map, int rows, int cols, Size out) {
  std::vector<float> big(size_t(out.rows) * out.cols);
  for (int y = 0; y < out.rows; ++y) {
    const float* row = &map[size_t(block_cell(y, rows, out.rows)) * cols];
    for (int x = 0; x < out.cols; ++x)
      big[size_t(y) * out.cols + x] = row[block_cell(x, cols, out.cols)];
  }
  return big;
}

std::vector<float> sampled(const std::vector<float>& map01, int rows, int cols,
                           MapSampling sampling, Size out) {
  if (out.rows == rows && out.cols == cols) return map01;
  return sampling == MapSampling::PatchGrid
             ? blocks(map01, rows, cols, out)
             : upsample_bilinear(map01, rows, cols, out.rows, out.cols);
}

}  // namespace

HeatImage render_heat(const std::vector<float>& map, int rows, int cols, const HeatOptions& o) {
  require_map(map, rows, cols, "render_heat map");
  const bool sized = o.out_rows != 0 || o.out_cols != 0;
  if (sized && !(o.out_rows > 0 && o.out_cols > 0 && o.out_rows <= 16384 && o.out_cols <= 16384)) {
    throw InputError("render_heat: size " + std::to_string(o.out_cols) + "x" +
                     std::to_string(o.out_rows) + " must be 1..16384 on each side");
  }
  const Size out = sized ? Size{o.out_rows, o.out_cols} : default_size(rows, cols, o.sampling);
  const std::vector<float> map01 =
      sampled(normalize_for_scale(map, rows, cols, o.scale), rows, cols, o.sampling, out);
  HeatImage image{out.rows, out.cols,
                  apply_colormap(map01, colormap_for_scale(o.scale, o.colormap))};
  if (o.threshold) {
    const ThresholdLevel level = threshold_level(map01, *o.threshold);
    for (size_t i = 0; i < map01.size(); ++i) {
      if (!level.keeps(map01[i])) image.rgba[4 * i + 3] = 0;
    }
  }
  return image;
}

ThresholdLevel heat_threshold_level(const std::vector<float>& map01, int rows, int cols,
                                    MapSampling sampling, Threshold t) {
  require_map(map01, rows, cols, "heat_threshold_level map");
  return threshold_level(sampled(map01, rows, cols, sampling, default_size(rows, cols, sampling)),
                         t);
}

}  // namespace vitrel
