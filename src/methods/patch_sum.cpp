#include "methods/patch_sum.h"

#include <cmath>
#include <string>
#include <vector>

#include "common/errors.h"

namespace vitrel {

RelevanceMap patch_sum(const RelevanceMap& pixels, int grid_rows, int grid_cols) {
  const std::string size = std::to_string(pixels.rows) + "x" + std::to_string(pixels.cols);
  const std::string grid = std::to_string(grid_rows) + "x" + std::to_string(grid_cols);
  if (pixels.rows < 1 || pixels.cols < 1 ||
      pixels.data.size() != static_cast<size_t>(pixels.rows) * pixels.cols)
    throw InputError("patch_sum: the pixel map " + size + " is empty or not rows x cols values");
  if (grid_rows < 1 || grid_cols < 1 || pixels.rows % grid_rows != 0 ||
      pixels.cols % grid_cols != 0)
    throw InputError("patch_sum: the grid " + grid + " does not divide the pixel map " + size);
  const int ph = pixels.rows / grid_rows, pw = pixels.cols / grid_cols;
  std::vector<double> sums(static_cast<size_t>(grid_rows) * grid_cols, 0.0);
  for (int y = 0; y < pixels.rows; ++y) {
    const float* row = pixels.data.data() + static_cast<size_t>(y) * pixels.cols;
    double* out = sums.data() + static_cast<size_t>(y / ph) * grid_cols;
    for (int x = 0; x < pixels.cols; ++x) out[x / pw] += row[x];
  }
  RelevanceMap map{grid_rows, grid_cols, std::vector<float>(sums.size())};
  for (size_t i = 0; i < sums.size(); ++i) {
    map.data[i] = static_cast<float>(sums[i]);
    if (!std::isfinite(map.data[i]))
      throw InputError("patch_sum: patch " + std::to_string(i) + " sums to " +
                       (std::isnan(sums[i]) ? "NaN" : "beyond float32 range") +
                       " (is the pixel map finite?)");
  }
  return map;
}

}  // namespace vitrel
