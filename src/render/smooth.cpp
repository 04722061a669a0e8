#include "render/smooth.h"

#include <algorithm>
#include <cmath>

namespace vitrel {

namespace {

// The kernel over -radius..radius, radius 3 sigma (99.7 % of the weight), normalised.
std::vector<double> kernel(float sigma) {
  const int radius = std::max(1, static_cast<int>(std::ceil(3.0 * sigma)));
  std::vector<double> k(2 * radius + 1);
  double sum = 0.0;
  for (int i = -radius; i <= radius; ++i) {
    k[i + radius] = std::exp(-0.5 * (i * i) / (double(sigma) * sigma));
    sum += k[i + radius];
  }
  for (double& w : k) w /= sum;
  return k;
}

// One pass along an axis: `n` lines of `len` samples, `stride` apart, lines `step` apart.
// double sums: lrp_full's values reach 1e11 and its neighbours cancel.
void pass(const std::vector<float>& in, std::vector<float>& out, int n, int len, int step,
          int stride, const std::vector<double>& k) {
  const int radius = static_cast<int>(k.size() / 2);
  for (int line = 0; line < n; ++line) {
    const size_t base = size_t(line) * step;
    for (int i = 0; i < len; ++i) {
      double acc = 0.0;
      for (int t = -radius; t <= radius; ++t) {
        const int j = std::clamp(i + t, 0, len - 1);
        acc += k[t + radius] * in[base + size_t(j) * stride];
      }
      out[base + size_t(i) * stride] = static_cast<float>(acc);
    }
  }
}

}  // namespace

std::vector<float> gaussian_smooth(const std::vector<float>& map, int rows, int cols, float sigma) {
  const std::vector<double> k = kernel(sigma);
  std::vector<float> across(map.size());
  std::vector<float> out(map.size());
  pass(map, across, rows, cols, cols, 1, k);
  pass(across, out, cols, rows, 1, cols, k);
  return out;
}

}  // namespace vitrel
