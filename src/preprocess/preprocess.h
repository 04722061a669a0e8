#pragma once
// Photo (RGBA uint8, any size) to model input: resize + centre crop as torchvision does
// on a PIL image (or passthrough, see PreprocessSpec), then ToTensor + Normalize:
// (u / 255 - mean[c]) / std[c] in float32, channel-first [3, H, W].

#include <cstddef>
#include <cstdint>
#include <vector>

#include "preprocess/preprocess_spec.h"

namespace vitrel {

struct PreprocessedImage {
  int width = 0;  // model input size
  int height = 0;
  std::vector<float> chw;     // 3 * height * width normalised values, R plane first
  std::vector<uint8_t> rgba;  // the same input before normalisation (alpha 255), for display
  InputRegion region;         // where it sits in the photo
  bool passthrough = false;
};

// `rgba` is width*height*4 bytes, row-major; alpha is ignored (PIL's .convert('RGB')).
PreprocessedImage preprocess_image(const uint8_t* rgba, size_t size, int width, int height,
                                   const PreprocessSpec& spec);

}  // namespace vitrel
