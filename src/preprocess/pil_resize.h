#pragma once
// Resizing 8-bit photos the way PIL's Image.resize does (so the way torchvision's
// Resize transforms a PIL image): separable, horizontal pass first, each pass a
// fixed-point convolution (see resample_weights.h) rounded and clamped to uint8, the
// intermediate image stored as uint8. A pass is skipped when its axis keeps its size.
// Photos come in as RGBA; alpha is ignored (as after PIL's .convert('RGB')).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "preprocess/resample_weights.h"

namespace vitrel {

// A rectangle of the resized image (e.g. the centre crop), in its pixel coordinates.
struct PixelWindow {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
};

// Resizes width x height RGBA to out_width x out_height; returns RGB, 3 bytes a pixel.
std::vector<uint8_t> pil_resize_rgb(const uint8_t* rgba, size_t size, int width, int height,
                                    int out_width, int out_height, Interpolation interpolation);

// Only `window` of that result (which it must lie inside), computed without the pixels
// outside it: identical to resizing, then cropping, and much cheaper for big photos. The
// window obeys the image size limits; the full result only kMaxResizedSide a side.
std::vector<uint8_t> pil_resize_rgb_window(const uint8_t* rgba, size_t size, int width, int height,
                                           int out_width, int out_height,
                                           Interpolation interpolation, const PixelWindow& window);

}  // namespace vitrel
