#pragma once
// The 256-entry RGB tables behind the colormaps (generated file colormap_tables.cpp,
// written by tests/reference/gen_colormap_tables.py from OpenCV and matplotlib).

#include <cstdint>

namespace vitrel {

// OpenCV COLORMAP_JET in RGB order. It is the classic piecewise-linear jet
// (r = clamp(1.5 - |4x - 3|), g = clamp(1.5 - |4x - 2|), b = clamp(1.5 - |4x - 1|),
// x = i/255) quantised by OpenCV's own interpolation: within 1 of round(255 * formula).
extern const uint8_t kJetLut[256][3];
extern const uint8_t kViridisLut[256][3];  // matplotlib viridis, cmap(i, bytes=True)
extern const uint8_t kInfernoLut[256][3];  // matplotlib inferno
extern const uint8_t kTurboLut[256][3];    // matplotlib turbo
extern const uint8_t kRdBuLut[256][3];     // matplotlib RdBu_r: blue (low), white, red (high)

}  // namespace vitrel
