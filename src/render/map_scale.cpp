#include "render/map_scale.h"

#include <algorithm>
#include <cmath>

#include "common/image_checks.h"
#include "render/normalize.h"

namespace vitrel {

std::vector<float> normalize_signed(const std::vector<float>& map) {
  if (map.empty()) throw InputError("normalize_signed map: no values");
  require_finite_values(map, "normalize_signed map");
  double peak = 0.0;  // double: |v| of -FLT_MAX must not overflow the halving below
  for (float v : map) peak = std::max(peak, std::fabs(static_cast<double>(v)));
  std::vector<float> out(map.size(), 0.5f);
  if (peak == 0.0) return out;
  for (size_t i = 0; i < map.size(); ++i) out[i] = static_cast<float>(map[i] / (2.0 * peak) + 0.5);
  return out;
}

std::vector<float> normalize_for_scale(const std::vector<float>& map, MapScale scale) {
  switch (scale) {
    case MapScale::Positive: return normalize_min_max(map);
    case MapScale::Signed: return normalize_signed(map);
  }
  throw InputError("scale: unknown value " + std::to_string(static_cast<int>(scale)));
}

Colormap colormap_for_scale(MapScale scale, Colormap chosen) {
  return scale == MapScale::Signed ? Colormap::RdBu : chosen;
}

MapSummary summarize_map(const std::vector<float>& map) {
  if (map.empty()) throw InputError("summarize_map map: no values");
  require_finite_values(map, "summarize_map map");
  const auto [lo, hi] = std::minmax_element(map.begin(), map.end());
  const auto negatives = std::count_if(map.begin(), map.end(), [](float v) { return v < 0.f; });
  return {*lo, *hi, static_cast<float>(static_cast<double>(negatives) / map.size())};
}

}  // namespace vitrel
