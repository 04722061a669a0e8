#pragma once
// Input checks shared by the rendering and preprocessing entry points: RGBA photos in the
// canvas ImageData layout and float maps given as rows x cols. Each throws InputError
// naming the argument (`what`) and what is wrong with it.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensor/tensor_view.h"

namespace vitrel {

// Largest photo the core accepts: 16384 px a side and 2^28 pixels (a 12000 x 12000
// photo is fine; its RGBA buffer alone is 576 MB).
constexpr int kMaxImageSide = 16384;
constexpr int64_t kMaxImagePixels = int64_t{1} << 28;

// `pixels` holds width*height*4 bytes, row-major RGBA, 1 <= width, height <= kMaxImageSide.
void require_rgba_image(const uint8_t* pixels, size_t size, int width, int height,
                        const char* what);

// A size the caller asks us to produce (resize target, crop, upsampling output).
void require_image_size(int width, int height, const char* what);

// Every value of `values` is finite (names the first bad index otherwise).
void require_finite_values(const std::vector<float>& values, const char* what);

// `map` holds rows*cols finite values.
void require_map(const std::vector<float>& map, int rows, int cols, const char* what);

}  // namespace vitrel
