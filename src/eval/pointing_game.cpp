#include "eval/pointing_game.h"

#include <string>

#include "tensor/tensor_view.h"

namespace vitrel {

namespace {

std::string rect_string(PixelRect r) {
  return "{x " + std::to_string(r.x) + ", y " + std::to_string(r.y) + ", width " +
         std::to_string(r.width) + ", height " + std::to_string(r.height) + "}";
}

}  // namespace

double positive_share_inside(const float* map, int rows, int cols, PixelRect inside) {
  if (rows < 1 || cols < 1) {
    throw InputError("positive_share_inside: map of " + std::to_string(rows) + " rows x " +
                     std::to_string(cols) + " cols, both must be >= 1");
  }
  if (map == nullptr) throw InputError("positive_share_inside: no map");
  const PixelRect r = inside;
  // Compared in 64 bits so x + width cannot overflow.
  if (r.width < 1 || r.height < 1 || r.x < 0 || r.y < 0 || int64_t{r.x} + r.width > cols ||
      int64_t{r.y} + r.height > rows) {
    throw InputError("positive_share_inside: rect " + rect_string(r) +
                     " must have a positive size " + "and lie inside the " + std::to_string(rows) +
                     "x" + std::to_string(cols) + " map");
  }
  const int64_t n = int64_t{rows} * cols;
  const int64_t bad = first_non_finite(map, n);
  if (bad >= 0) {
    throw InputError("positive_share_inside: non-finite value " + std::to_string(map[bad]) +
                     " at index " + std::to_string(bad));
  }
  double total = 0.0;
  double in = 0.0;
  for (int y = 0; y < rows; ++y) {
    const bool row_in = y >= r.y && y < r.y + r.height;
    for (int x = 0; x < cols; ++x) {
      const float v = map[int64_t{y} * cols + x];
      if (v <= 0.0f) continue;
      total += v;
      if (row_in && x >= r.x && x < r.x + r.width) in += v;
    }
  }
  return total > 0.0 ? in / total : 0.0;
}

}  // namespace vitrel
