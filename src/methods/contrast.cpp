#include "methods/contrast.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/image_checks.h"

namespace vitrel {

namespace {

// 1 / max|v| in double (lrp_full reaches 1e9 and more), 0 for an all-zero map.
double inverse_peak(const std::vector<float>& v) {
  double peak = 0.0;
  for (float x : v) peak = std::max(peak, std::fabs(static_cast<double>(x)));
  return peak > 0.0 ? 1.0 / peak : 0.0;
}

}  // namespace

bool can_contrast(Method m) {
  const MethodInfo& info = method_info(m);
  for (const TensorInfo& t : id_table(Tensor{}))
    if (t.per_class && info.needs.contains(t.value)) return true;
  return false;
}

namespace {

// The checks both contrast functions make before reading the maps.
void check_pair(Method m, const RelevanceMap& a, const RelevanceMap& b) {
  const MethodInfo& info = method_info(m);
  if (!can_contrast(m))
    throw InputError(std::string("contrast: ") + info.id +
                     " reads only the attention, which is the same for every class, so it "
                     "cannot contrast two classes");
  if (a.rows != b.rows || a.cols != b.cols || a.data.size() != b.data.size() ||
      a.data.size() != static_cast<size_t>(a.rows) * static_cast<size_t>(a.cols))
    throw InputError("contrast: the maps of the two classes differ in shape (" +
                     std::to_string(a.rows) + "x" + std::to_string(a.cols) + " and " +
                     std::to_string(b.rows) + "x" + std::to_string(b.cols) + ")");
  require_finite_values(a.data, "contrast: map of class A");
  require_finite_values(b.data, "contrast: map of class B");
}

}  // namespace

RelevanceMap contrast_map(Method m, const RelevanceMap& a, const RelevanceMap& b) {
  check_pair(m, a, b);
  const double sa = inverse_peak(a.data), sb = inverse_peak(b.data);
  RelevanceMap out{a.rows, a.cols, std::vector<float>(a.data.size())};
  for (size_t i = 0; i < out.data.size(); ++i)
    out.data[i] = static_cast<float>(a.data[i] * sa - b.data[i] * sb);
  return out;
}

double contrast_correlation(Method m, const RelevanceMap& a, const RelevanceMap& b) {
  check_pair(m, a, b);
  const size_t n = a.data.size();
  double mean_a = 0.0, mean_b = 0.0;
  for (size_t i = 0; i < n; ++i) mean_a += a.data[i], mean_b += b.data[i];
  mean_a /= static_cast<double>(n);
  mean_b /= static_cast<double>(n);
  double ab = 0.0, aa = 0.0, bb = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double x = a.data[i] - mean_a, y = b.data[i] - mean_b;
    ab += x * y, aa += x * x, bb += y * y;
  }
  if (aa == 0.0 || bb == 0.0) return std::numeric_limits<double>::quiet_NaN();
  return std::clamp(ab / std::sqrt(aa * bb), -1.0, 1.0);
}

}  // namespace vitrel
