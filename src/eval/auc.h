#pragma once
// Area under the perturbation curve (METHODS.md): the trapezoid area of top-1 accuracy over
// the removed fraction k in [0, 0.9], times 100.

#include <vector>

namespace vitrel {

// Trapezoid rule over the points (x[i], y[i]). InputError unless the sizes match, there
// are at least 2 points, every value is finite and x is strictly increasing.
double trapezoid_area(const std::vector<double>& x, const std::vector<double>& y);

// trapezoid_area(fractions, accuracy) * 100.
double perturbation_auc(const std::vector<double>& fractions, const std::vector<double>& accuracy);

}  // namespace vitrel
