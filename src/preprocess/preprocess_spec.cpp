#include "preprocess/preprocess_spec.h"

#include <cmath>

#include "common/image_checks.h"

namespace vitrel {

namespace {

void require_channel_values(const std::vector<float>& v, const char* what, bool positive) {
  if (v.size() != 3) {
    throw InputError(std::string("preprocess spec: ") + what + " has " + std::to_string(v.size()) +
                     " values, expected 3 (R, G, B)");
  }
  for (size_t c = 0; c < 3; ++c) {
    if (!std::isfinite(v[c]) || (positive && !(v[c] > 0.0f))) {
      throw InputError(std::string("preprocess spec: ") + what + "[" + std::to_string(c) +
                       "] = " + std::to_string(v[c]) +
                       (positive ? " must be finite and > 0" : " must be finite"));
    }
  }
}

// Python's round() on x.0 / x.5 values: halves go to the even neighbour.
int round_half_even(double x) { return static_cast<int>(std::nearbyint(x)); }

// torchvision CenterCrop's offset along one axis (with its zero padding when too small).
int center_crop_offset(int image, int crop) {
  if (crop <= image) return round_half_even((image - crop) / 2.0);
  return -((crop - image) / 2);
}

}  // namespace

void require_valid_spec(const PreprocessSpec& spec) {
  if (spec.resize_mode == ResizeMode::ShortSide) {
    if (spec.resize_size < 1 || spec.resize_size > kMaxImageSide) {
      throw InputError("preprocess spec: resize_size " + std::to_string(spec.resize_size) +
                       " must be in 1.." + std::to_string(kMaxImageSide));
    }
  } else if (spec.resize_mode == ResizeMode::Exact) {
    require_image_size(spec.resize_width, spec.resize_height, "preprocess spec: exact resize");
  }
  if (spec.center_crop)
    require_image_size(spec.crop_width, spec.crop_height, "preprocess spec: crop");
  require_channel_values(spec.mean, "mean", false);
  require_channel_values(spec.stddev, "std", true);
  for (int c = 0; c < 3; ++c)
    require_finite_normalisation(spec.mean[c], spec.stddev[c], c, "preprocess spec");
}

PreprocessSpec with_crop_mode(PreprocessSpec spec, CropMode mode) {
  if (mode == CropMode::Center || (!spec.center_crop && spec.resize_mode == ResizeMode::Exact))
    return spec;
  if (!spec.center_crop) {
    throw InputError(std::string("crop mode \"none\" needs a fixed model input size (a crop or an "
                                 "exact resize); this spec resizes \"") +
                     to_id(spec.resize_mode) + "\" without a crop");
  }
  spec.resize_mode = ResizeMode::Exact;
  spec.resize_width = spec.crop_width;
  spec.resize_height = spec.crop_height;
  spec.center_crop = false;
  return spec;
}

PreprocessPlan plan_preprocess(int width, int height, const PreprocessSpec& spec) {
  require_image_size(width, height, "preprocess image");
  require_valid_spec(spec);

  PreprocessPlan plan;
  switch (spec.resize_mode) {
    case ResizeMode::ShortSide: {
      const bool portrait = width <= height;
      const int short_side = portrait ? width : height;
      const int long_side = portrait ? height : width;
      const int new_long = int(double(int64_t{spec.resize_size} * long_side) / short_side);
      plan.resized_width = portrait ? spec.resize_size : new_long;
      plan.resized_height = portrait ? new_long : spec.resize_size;
      break;
    }
    case ResizeMode::Exact:
      plan.resized_width = spec.resize_width;
      plan.resized_height = spec.resize_height;
      break;
    case ResizeMode::None:
      plan.resized_width = width;
      plan.resized_height = height;
      break;
  }
  if (plan.resized_width > kMaxResizedSide || plan.resized_height > kMaxResizedSide) {
    throw InputError("preprocess: resizing the " + std::to_string(width) + "x" +
                     std::to_string(height) + " image gives " + std::to_string(plan.resized_width) +
                     "x" + std::to_string(plan.resized_height) + ", over " +
                     std::to_string(kMaxResizedSide) + " px a side");
  }
  plan.input_width = spec.center_crop ? spec.crop_width : plan.resized_width;
  plan.input_height = spec.center_crop ? spec.crop_height : plan.resized_height;
  require_image_size(plan.input_width, plan.input_height, "preprocess: model input");
  const bool fixed_input = spec.center_crop || spec.resize_mode == ResizeMode::Exact;
  if (spec.exact_size_passthrough && fixed_input && width == plan.input_width &&
      height == plan.input_height) {
    plan.passthrough = true;
    plan.resized_width = width;
    plan.resized_height = height;
    return plan;
  }
  if (spec.center_crop) {
    plan.crop_x = center_crop_offset(plan.resized_width, plan.input_width);
    plan.crop_y = center_crop_offset(plan.resized_height, plan.input_height);
  }
  return plan;
}

InputRegion input_region(int width, int height, const PreprocessPlan& plan) {
  // Resizing maps resized pixel edges linearly onto photo edges (PIL centres each output
  // pixel at (i + 0.5) * scale), so a crop [c, c + n) covers [c, c + n) * scale.
  const double sx = double(width) / plan.resized_width;
  const double sy = double(height) / plan.resized_height;
  return InputRegion{plan.crop_x * sx, plan.crop_y * sy, plan.input_width * sx,
                     plan.input_height * sy};
}

InputRegion input_region(int width, int height, const PreprocessSpec& spec) {
  return input_region(width, height, plan_preprocess(width, height, spec));
}

}  // namespace vitrel
