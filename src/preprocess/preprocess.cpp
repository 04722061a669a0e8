#include "preprocess/preprocess.h"

#include <algorithm>

#include "common/image_checks.h"
#include "preprocess/pil_resize.h"

namespace vitrel {

namespace {

// The model input as RGBA: the resized image seen through the crop window, zeros
// (black) where the window reaches past it.
std::vector<uint8_t> cropped_input(const uint8_t* rgba, size_t size, int width, int height,
                                   const PreprocessSpec& spec, const PreprocessPlan& plan) {
  std::vector<uint8_t> out(size_t(plan.input_width) * plan.input_height * 4, 0);
  // Intersection of the crop window with the resized image.
  const int x0 = std::max(plan.crop_x, 0);
  const int y0 = std::max(plan.crop_y, 0);
  const int x1 = std::min(plan.crop_x + plan.input_width, plan.resized_width);
  const int y1 = std::min(plan.crop_y + plan.input_height, plan.resized_height);
  const PixelWindow window{x0, y0, x1 - x0, y1 - y0};

  const std::vector<uint8_t> rgb =
      pil_resize_rgb_window(rgba, size, width, height, plan.resized_width, plan.resized_height,
                            spec.interpolation, window);
  for (int y = 0; y < window.height; ++y) {
    const uint8_t* src = &rgb[size_t(y) * window.width * 3];
    uint8_t* dst = &out[(size_t(y0 - plan.crop_y + y) * plan.input_width + (x0 - plan.crop_x)) * 4];
    for (int x = 0; x < window.width; ++x, src += 3, dst += 4) {
      dst[0] = src[0];
      dst[1] = src[1];
      dst[2] = src[2];
    }
  }
  for (size_t i = 3; i < out.size(); i += 4) out[i] = 255;
  return out;
}

}  // namespace

PreprocessedImage preprocess_image(const uint8_t* rgba, size_t size, int width, int height,
                                   const PreprocessSpec& spec) {
  require_rgba_image(rgba, size, width, height, "preprocess image");
  const PreprocessPlan plan = plan_preprocess(width, height, spec);

  PreprocessedImage result;
  result.width = plan.input_width;
  result.height = plan.input_height;
  result.region = input_region(width, height, plan);
  result.passthrough = plan.passthrough;
  if (plan.passthrough) {
    result.rgba.assign(rgba, rgba + size);
    for (size_t i = 3; i < size; i += 4) result.rgba[i] = 255;
  } else {
    result.rgba = cropped_input(rgba, size, width, height, spec, plan);
  }

  const size_t plane = size_t(result.width) * result.height;
  result.chw.resize(3 * plane);
  for (int c = 0; c < 3; ++c) {
    const float mean = spec.mean[c];
    const float stddev = spec.stddev[c];
    float* dst = &result.chw[c * plane];
    for (size_t i = 0; i < plane; ++i) {
      // Same float32 operations as ToTensor (u / 255) and Normalize (sub, then div).
      dst[i] = (float(result.rgba[4 * i + c]) / 255.0f - mean) / stddev;
    }
  }
  return result;
}

}  // namespace vitrel
