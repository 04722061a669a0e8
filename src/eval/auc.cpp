#include "eval/auc.h"

#include <cmath>
#include <string>

#include "tensor/tensor_view.h"

namespace vitrel {

namespace {

void require_finite_list(const std::vector<double>& v, const char* what) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      throw InputError(std::string("trapezoid_area: ") + what +
                       " has a non-finite value at index " + std::to_string(i));
    }
  }
}

}  // namespace

double trapezoid_area(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) {
    throw InputError("trapezoid_area: " + std::to_string(x.size()) + " x values but " +
                     std::to_string(y.size()) + " y values");
  }
  if (x.size() < 2) {
    throw InputError("trapezoid_area: needs at least 2 points, got " + std::to_string(x.size()));
  }
  require_finite_list(x, "x");
  require_finite_list(y, "y");
  double area = 0.0;
  for (std::size_t i = 1; i < x.size(); ++i) {
    if (!(x[i] > x[i - 1])) {
      throw InputError("trapezoid_area: x must be strictly increasing, but x[" + std::to_string(i) +
                       "] = " + std::to_string(x[i]) + " follows " + std::to_string(x[i - 1]));
    }
    area += (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2.0;
  }
  return area;
}

double perturbation_auc(const std::vector<double>& fractions, const std::vector<double>& accuracy) {
  return trapezoid_area(fractions, accuracy) * 100.0;
}

}  // namespace vitrel
