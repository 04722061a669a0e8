#pragma once
// Bilinear resizing of a relevance map, with exactly the semantics of PyTorch's
// F.interpolate(mode='bilinear', align_corners=False): pixel centres are aligned, source
// coordinates below 0 are clamped to 0, the last row/column is repeated at the far edge,
// and there is no antialiasing when shrinking.

#include <vector>

namespace vitrel {

// `map` is rows x cols, row-major, finite. Returns out_rows x out_cols.
std::vector<float> upsample_bilinear(const std::vector<float>& map, int rows, int cols,
                                     int out_rows, int out_cols);

// The two source samples and the weight of the second one for each output index along
// one axis (shared with the photo overlay, which resamples into a sub-region).
struct LinearTaps {
  int i0 = 0;
  int i1 = 0;
  float w1 = 0.0f;  // weight of i1; i0 gets 1 - w1
};

// PyTorch's source index for output `o`: max(0, (o + 0.5) * in/out - 0.5).
LinearTaps linear_taps(int o, int in_size, int out_size);

}  // namespace vitrel
