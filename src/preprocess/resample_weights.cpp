#include "preprocess/resample_weights.h"

#include <algorithm>
#include <cmath>

#include "tensor/tensor_view.h"

namespace vitrel {

namespace {

// Triangle filter, support 1.
double triangle(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

// Keys' cubic convolution with a = -0.5 (Catmull-Rom), support 2.
double keys_cubic(double x) {
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0) return (((x - 5.0) * x + 8.0) * x - 4.0) * a;
  return 0.0;
}

// Round half away from zero to fixed point.
int32_t to_fixed(double w) {
  const double scaled = w * double(1 << kWeightBits);
  return static_cast<int32_t>(scaled < 0 ? scaled - 0.5 : scaled + 0.5);
}

}  // namespace

AxisWeights axis_weights(int in_size, int out_size, Interpolation interpolation) {
  const bool cubic = interpolation == Interpolation::Bicubic;
  const double scale = double(in_size) / double(out_size);
  const double stretch = std::max(scale, 1.0);  // widen the filter only when shrinking
  const double support = (cubic ? 2.0 : 1.0) * stretch;
  const double inv_stretch = 1.0 / stretch;  // multiplied, not divided: keeps PIL's rounding

  AxisWeights axis;
  axis.taps = int(std::ceil(support)) * 2 + 1;
  axis.first.resize(out_size);
  axis.count.resize(out_size);
  axis.weights.assign(size_t(out_size) * axis.taps, 0);

  std::vector<double> w(axis.taps);
  for (int i = 0; i < out_size; ++i) {
    const double centre = (i + 0.5) * scale;
    // Inputs whose centres lie within the support, rounded to the nearest pixel edge.
    // Truncation toward zero, then clamping, like the int casts of the reference.
    const int lo = std::max(0, int(centre - support + 0.5));
    const int hi = std::min(in_size, int(centre + support + 0.5));
    const int n = hi - lo;
    double sum = 0.0;
    for (int k = 0; k < n; ++k) {
      const double x = (lo + k - centre + 0.5) * inv_stretch;
      w[k] = cubic ? keys_cubic(x) : triangle(x);
      sum += w[k];
    }
    axis.first[i] = lo;
    axis.count[i] = n;
    for (int k = 0; k < n; ++k) {
      axis.weights[size_t(i) * axis.taps + k] = to_fixed(sum != 0.0 ? w[k] / sum : w[k]);
    }
  }
  return axis;
}

}  // namespace vitrel
