#include "render/normalize.h"

#include <algorithm>
#include <cmath>

#include "common/image_checks.h"

namespace vitrel {

std::vector<float> normalize_min_max(const std::vector<float>& map) {
  if (map.empty()) throw InputError("normalize_min_max map: no values");
  require_finite_values(map, "normalize_min_max map");
  const auto [lo, hi] = std::minmax_element(map.begin(), map.end());
  std::vector<float> out(map.size(), 0.0f);
  if (*hi == *lo) return out;
  const float range = *hi - *lo;
  if (std::isfinite(range)) {
    // float32 in PyTorch's order, so the notebook's colour indices are reproduced exactly.
    for (size_t i = 0; i < map.size(); ++i) out[i] = (map[i] - *lo) / range;
  } else {
    // A range wider than FLT_MAX (e.g. -3e38..3e38) would overflow in float.
    const double wide = double(*hi) - double(*lo);
    for (size_t i = 0; i < map.size(); ++i) out[i] = float((double(map[i]) - *lo) / wide);
  }
  return out;
}

}  // namespace vitrel
