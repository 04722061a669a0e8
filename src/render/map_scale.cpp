#include "render/map_scale.h"

#include <algorithm>
#include <cmath>

#include "common/image_checks.h"
#include "render/normalize.h"
#include "render/smooth.h"

namespace vitrel {

namespace {

bool is_pixel_map(int rows, int cols) { return rows >= kPixelMapSide && cols >= kPixelMapSide; }

// The map as drawn: smoothed if it is a pixel map.
std::vector<float> drawn_values(const std::vector<float>& map, int rows, int cols,
                                const char* what) {
  require_map(map, rows, cols, what);
  return is_pixel_map(rows, cols) ? gaussian_smooth(map, rows, cols, kPixelMapSigma) : map;
}

// Full colour of the signed scale: the kSignedClipQuantile quantile of |v|, or max |v|
// where that quantile is 0 (a mostly-zero map). double: |v| of -FLT_MAX must not overflow.
double signed_peak(const std::vector<float>& values) {
  std::vector<double> mags(values.size());
  std::transform(values.begin(), values.end(), mags.begin(),
                 [](float v) { return std::fabs(double(v)); });
  const size_t at = std::min(mags.size() - 1, size_t(kSignedClipQuantile * mags.size()));
  std::nth_element(mags.begin(), mags.begin() + at, mags.end());
  if (mags[at] > 0.0) return mags[at];
  return *std::max_element(mags.begin() + at, mags.end());
}

std::vector<float> signed_positions(const std::vector<float>& values, double peak) {
  std::vector<float> out(values.size(), 0.5f);
  if (peak == 0.0) return out;
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = static_cast<float>(std::clamp(values[i] / (2.0 * peak) + 0.5, 0.0, 1.0));
  return out;
}

}  // namespace

std::vector<float> normalize_for_scale(const std::vector<float>& map, int rows, int cols,
                                       MapScale scale) {
  const std::vector<float> values = drawn_values(map, rows, cols, "normalize_for_scale map");
  switch (scale) {
    case MapScale::Positive: return normalize_min_max(values);
    case MapScale::Signed: return signed_positions(values, signed_peak(values));
  }
  throw InputError("scale: unknown value " + std::to_string(static_cast<int>(scale)));
}

Colormap colormap_for_scale(MapScale scale, Colormap chosen) {
  return scale == MapScale::Signed ? Colormap::RdBu : chosen;
}

MapSummary summarize_map(const std::vector<float>& map, int rows, int cols, MapScale scale) {
  const std::vector<float> values = drawn_values(map, rows, cols, "summarize_map map");
  const auto [lo, hi] = std::minmax_element(map.begin(), map.end());
  const auto negatives = std::count_if(map.begin(), map.end(), [](float v) { return v < 0.f; });
  MapSummary s;
  s.min = *lo;
  s.max = *hi;
  s.negative_share = static_cast<float>(static_cast<double>(negatives) / map.size());
  s.smoothed = is_pixel_map(rows, cols);
  if (scale == MapScale::Positive) {
    const auto [dlo, dhi] = std::minmax_element(values.begin(), values.end());
    s.low = *dlo;
    s.high = *dhi;
    return s;
  }
  const double peak = signed_peak(values);
  s.low = static_cast<float>(-peak);
  s.high = static_cast<float>(peak);
  const auto beyond = std::count_if(values.begin(), values.end(),
                                    [&](float v) { return std::fabs(double(v)) > peak; });
  s.clipped_share = static_cast<float>(static_cast<double>(beyond) / values.size());
  return s;
}

}  // namespace vitrel
