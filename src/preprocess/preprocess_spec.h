#pragma once
// What a model expects from a photo (the "preprocess" block of the model metadata) and
// the geometry that follows for a given photo: torchvision's Resize + CenterCrop size
// arithmetic, and the region of the original photo the model input covers.

#include <string>
#include <vector>

#include "common/ids.h"
#include "preprocess/resample_weights.h"

namespace vitrel {

// "short_side": scale so the short side becomes `resize_size`, the long side
//               int(resize_size * long / short) (torchvision's Resize(int)).
// "exact":      resize to resize_width x resize_height (Resize((h, w))).
// "none":       keep the photo's size.
enum class ResizeMode { ShortSide, Exact, None };

inline constexpr IdName<ResizeMode> kResizeModeNames[] = {
    {ResizeMode::ShortSide, "short_side"},
    {ResizeMode::Exact, "exact"},
    {ResizeMode::None, "none"},
};
constexpr IdTable<IdName<ResizeMode>> id_table(ResizeMode) {
  return {"resize mode", kResizeModeNames};
}

// Defaults are DeiT's: short side 256 (bicubic), centre crop 224, ImageNet mean/std.
struct PreprocessSpec {
  ResizeMode resize_mode = ResizeMode::ShortSide;
  int resize_size = 256;
  int resize_width = 0;
  int resize_height = 0;
  bool center_crop = true;
  int crop_width = 224;
  int crop_height = 224;
  Interpolation interpolation = Interpolation::Bicubic;
  std::vector<float> mean = {0.485f, 0.456f, 0.406f};
  std::vector<float> stddev = {0.229f, 0.224f, 0.225f};
  // A photo that already has the model's input size is only normalised (the official
  // notebooks' behaviour); needs a fixed input size (a crop, or an "exact" resize).
  bool exact_size_passthrough = true;
};

// Throws InputError on bad sizes, mean/std not 3 finite values, or std <= 0.
void require_valid_spec(const PreprocessSpec& spec);

// Which part of the photo the model sees. "center": the spec as the model's metadata gives
// it (DeiT: short side to 256, centre 224x224 crop). "none": the whole photo resized to the
// model's input size, no crop (the official evaluation scripts' Resize((224, 224)); the
// spec's own interpolation and normalisation are kept, so only the framing changes).
enum class CropMode { Center, None };

inline constexpr IdName<CropMode> kCropModeNames[] = {
    {CropMode::Center, "center"},
    {CropMode::None, "none"},
};
constexpr IdTable<IdName<CropMode>> id_table(CropMode) { return {"crop mode", kCropModeNames}; }

// `spec` framed as `mode` says. None needs a fixed input size (a crop, or an exact resize):
// InputError otherwise.
PreprocessSpec with_crop_mode(PreprocessSpec spec, CropMode mode);

// The steps for one photo.
struct PreprocessPlan {
  bool passthrough = false;
  int resized_width = 0;  // after the resize (the photo's size if there is none)
  int resized_height = 0;
  int crop_x = 0;  // model input's top-left in the resized image; negative when
  int crop_y = 0;  // the crop is larger than the image (zero padding, as torchvision)
  int input_width = 0;
  int input_height = 0;
};

// Validates the photo size (common/image_checks.h limits) and the spec. The model input must
// respect those limits too; the resized image is only computed inside the crop, so with a
// crop it may be larger (up to kMaxResizedSide a side: a 3000x41 photo short-side resized
// to 256 is 18731x256).
PreprocessPlan plan_preprocess(int width, int height, const PreprocessSpec& spec);

// The part of the original photo that the model input shows, in photo pixel
// coordinates (pixel i spans [i, i+1)); fractional, and may reach outside the photo when
// the crop pads. The model input's pixel grid maps linearly onto this rectangle.
struct InputRegion {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;
};

InputRegion input_region(int width, int height, const PreprocessSpec& spec);
InputRegion input_region(int width, int height, const PreprocessPlan& plan);

}  // namespace vitrel
