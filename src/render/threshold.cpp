#include "render/threshold.h"

#include <array>

#include "common/image_checks.h"
#include "render/colormap.h"

namespace vitrel {

namespace {

void require_values(const std::vector<float>& map01, const char* what) {
  if (map01.empty()) throw InputError(std::string(what) + ": no values");
  require_finite_values(map01, what);
}

}  // namespace

int otsu_level(const std::vector<float>& map01) {
  require_values(map01, "otsu_level map");
  std::array<double, 256> count{};
  for (float v : map01) count[colormap_index(v)] += 1.0;

  const double total = double(map01.size());
  double sum_all = 0.0;
  for (int i = 0; i < 256; ++i) sum_all += i * count[i];

  // Scan t, keeping the weight and level sum of the lower class {bins <= t}.
  // Between-class variance (up to the constant 1/total^2): n0*n1*(mean0 - mean1)^2.
  double n0 = 0.0, sum0 = 0.0, best = 0.0;
  int level = 0;
  for (int t = 0; t < 255; ++t) {
    n0 += count[t];
    sum0 += t * count[t];
    const double n1 = total - n0;
    if (n0 == 0.0 || n1 == 0.0) continue;
    const double gap = sum0 / n0 - (sum_all - sum0) / n1;
    const double between = n0 * n1 * gap * gap;
    if (between > best) {
      best = between;
      level = t;
    }
  }
  return level;
}

int ThresholdLevel::bin(float v01) { return colormap_index(v01); }

ThresholdLevel threshold_level(const std::vector<float>& map01, Threshold t) {
  require_values(map01, "threshold map");
  ThresholdLevel level;
  level.kind = t;
  if (t == Threshold::Mean) {
    double sum = 0.0;
    for (float v : map01) sum += v;
    level.mean = float(sum / double(map01.size()));
  } else {
    level.otsu = otsu_level(map01);
  }
  return level;
}

std::vector<float> binarize(const std::vector<float>& map01, Threshold t) {
  const ThresholdLevel level = threshold_level(map01, t);
  std::vector<float> out(map01.size(), 0.0f);
  for (size_t i = 0; i < map01.size(); ++i) out[i] = level.keeps(map01[i]) ? 1.0f : 0.0f;
  return out;
}

}  // namespace vitrel
