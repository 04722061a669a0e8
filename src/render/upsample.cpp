#include "render/upsample.h"

#include "common/image_checks.h"

namespace vitrel {

LinearTaps linear_taps(int o, int in_size, int out_size) {
  // Float arithmetic in the same order as PyTorch's CPU kernel for float maps.
  const float scale = static_cast<float>(in_size) / static_cast<float>(out_size);
  float src = scale * (static_cast<float>(o) + 0.5f) - 0.5f;
  if (src < 0.0f) src = 0.0f;
  LinearTaps taps;
  taps.i0 = static_cast<int>(src);
  if (taps.i0 > in_size - 1) taps.i0 = in_size - 1;
  taps.i1 = taps.i0 < in_size - 1 ? taps.i0 + 1 : taps.i0;
  taps.w1 = src - static_cast<float>(taps.i0);
  return taps;
}

std::vector<float> upsample_bilinear(const std::vector<float>& map, int rows, int cols,
                                     int out_rows, int out_cols) {
  require_map(map, rows, cols, "upsample_bilinear map");
  require_image_size(out_cols, out_rows, "upsample_bilinear output");

  std::vector<LinearTaps> x_taps(out_cols);
  for (int x = 0; x < out_cols; ++x) x_taps[x] = linear_taps(x, cols, out_cols);

  std::vector<float> out(size_t(out_rows) * size_t(out_cols));
  for (int y = 0; y < out_rows; ++y) {
    const LinearTaps ty = linear_taps(y, rows, out_rows);
    const float* r0 = &map[size_t(ty.i0) * cols];
    const float* r1 = &map[size_t(ty.i1) * cols];
    const float wy0 = 1.0f - ty.w1;
    float* dst = &out[size_t(y) * out_cols];
    for (int x = 0; x < out_cols; ++x) {
      const LinearTaps& tx = x_taps[x];
      const float wx0 = 1.0f - tx.w1;
      dst[x] = wy0 * (wx0 * r0[tx.i0] + tx.w1 * r0[tx.i1]) +
               ty.w1 * (wx0 * r1[tx.i0] + tx.w1 * r1[tx.i1]);
    }
  }
  return out;
}

}  // namespace vitrel
