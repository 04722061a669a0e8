// Preprocessing geometry (torchvision's Resize/CenterCrop arithmetic, passthrough, input
// region), normalisation, size limits and spec checks.

#include <gtest/gtest.h>

#include <cmath>

#include "preprocess/preprocess.h"
#include "tensor/tensor_view.h"

namespace vitrel {
namespace {

std::vector<uint8_t> solid(int w, int h, uint8_t r, uint8_t g, uint8_t b) {
  std::vector<uint8_t> rgba(size_t(w) * h * 4);
  for (size_t i = 0; i < rgba.size(); i += 4) {
    rgba[i] = r;
    rgba[i + 1] = g;
    rgba[i + 2] = b;
    rgba[i + 3] = 255;
  }
  return rgba;
}

TEST(PreprocessPlan, DeitLandscapeShortSideThenCentreCrop) {
  // 500x375: short side 375 -> 256, long int(256*500/375) = 341. Crop offsets
  // round(58.5) = 58 (half to even, as Python) and 16.
  const PreprocessPlan p = plan_preprocess(500, 375, PreprocessSpec{});
  EXPECT_FALSE(p.passthrough);
  EXPECT_EQ(p.resized_width, 341);
  EXPECT_EQ(p.resized_height, 256);
  EXPECT_EQ(p.crop_x, 58);
  EXPECT_EQ(p.crop_y, 16);
  EXPECT_EQ(p.input_width, 224);
  EXPECT_EQ(p.input_height, 224);
  const InputRegion r = input_region(500, 375, p);
  EXPECT_DOUBLE_EQ(r.x, 58 * 500.0 / 341);
  EXPECT_DOUBLE_EQ(r.width, 224 * 500.0 / 341);
  EXPECT_DOUBLE_EQ(r.y, 23.4375);       // 16 * 375/256
  EXPECT_DOUBLE_EQ(r.height, 328.125);  // 224 * 375/256
}

TEST(PreprocessPlan, PortraitAndHalfOffsetsRoundToEven) {
  // 257x301: 256 x int(256*301/257) = 299; (299-224)/2 = 37.5 -> 38, (256-224)/2 = 16.
  const PreprocessPlan p = plan_preprocess(257, 301, PreprocessSpec{});
  EXPECT_EQ(p.resized_width, 256);
  EXPECT_EQ(p.resized_height, 299);
  EXPECT_EQ(p.crop_x, 16);
  EXPECT_EQ(p.crop_y, 38);
}

TEST(PreprocessPlan, PassthroughOnlyAtTheInputSizeWhenAsked) {
  PreprocessSpec spec;
  const PreprocessPlan p = plan_preprocess(224, 224, spec);
  EXPECT_TRUE(p.passthrough);
  const InputRegion r = input_region(224, 224, p);
  EXPECT_EQ((std::vector<double>{r.x, r.y, r.width, r.height}),
            (std::vector<double>{0, 0, 224, 224}));
  spec.exact_size_passthrough = false;  // then 224 -> 256 -> crop 16..240
  const PreprocessPlan q = plan_preprocess(224, 224, spec);
  EXPECT_FALSE(q.passthrough);
  EXPECT_EQ(q.crop_x, 16);
  EXPECT_DOUBLE_EQ(input_region(224, 224, q).x, 14.0);
}

TEST(PreprocessPlan, CropLargerThanImagePadsLikeTorchvision) {
  PreprocessSpec spec;
  spec.resize_mode = ResizeMode::None;
  spec.crop_width = 6;
  spec.crop_height = 5;
  const PreprocessPlan p = plan_preprocess(3, 4, spec);
  EXPECT_EQ(p.crop_x, -1);  // pad left (6-3)//2 = 1, right 2
  EXPECT_EQ(p.crop_y, 0);   // pad top 0, bottom 1
  const auto img = solid(3, 4, 255, 255, 255);
  const PreprocessedImage out = preprocess_image(img.data(), img.size(), 3, 4, spec);
  ASSERT_EQ(out.rgba.size(), 6u * 5u * 4u);
  EXPECT_EQ(out.rgba[0], 0);                // padding is black
  EXPECT_EQ(out.rgba[4], 255);              // photo starts at x = 1
  EXPECT_EQ(out.rgba[(4 * 6 + 1) * 4], 0);  // last row is padding
}

TEST(PreprocessImage, NormalisesLikeToTensorAndNormalize) {
  const auto img = solid(300, 200, 255, 0, 128);
  const PreprocessedImage out =
      preprocess_image(img.data(), img.size(), 300, 200, PreprocessSpec{});
  ASSERT_EQ(out.chw.size(), 3u * 224u * 224u);
  const size_t plane = 224 * 224;
  EXPECT_FLOAT_EQ(out.chw[0], (1.0f - 0.485f) / 0.229f);
  EXPECT_FLOAT_EQ(out.chw[plane + 5], (0.0f - 0.456f) / 0.224f);
  EXPECT_FLOAT_EQ(out.chw[2 * plane + plane - 1], (128.0f / 255.0f - 0.406f) / 0.225f);
}

TEST(PreprocessImage, OnePixelPhotoWorks) {
  const auto img = solid(1, 1, 10, 20, 30);
  const PreprocessedImage out = preprocess_image(img.data(), img.size(), 1, 1, PreprocessSpec{});
  EXPECT_EQ(out.width, 224);
  EXPECT_FLOAT_EQ(out.chw[1000], (10.0f / 255.0f - 0.485f) / 0.229f);
}

TEST(PreprocessImage, TwelveThousandSquarePhotoWorks) {
  const auto img = solid(12000, 12000, 200, 100, 50);
  const PreprocessedImage out =
      preprocess_image(img.data(), img.size(), 12000, 12000, PreprocessSpec{});
  EXPECT_EQ(out.width, 224);
  EXPECT_EQ(out.rgba[4 * 1234], 200);
  EXPECT_EQ(out.rgba[4 * 1234 + 2], 50);
  EXPECT_DOUBLE_EQ(out.region.x, 16 * 12000.0 / 256);
}

TEST(PreprocessImage, RejectsAbsurdSizesWithClearMessages) {
  const std::vector<uint8_t> px(4);
  const PreprocessSpec spec;
  auto message = [&](int w, int h, size_t size) {
    try {
      preprocess_image(px.data(), size, w, h, spec);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no InputError");
  };
  EXPECT_EQ(message(0, 5, 0), "preprocess image: size 0x5 must be at least 1x1");
  EXPECT_EQ(message(-3, 5, 0), "preprocess image: size -3x5 must be at least 1x1");
  EXPECT_EQ(message(16385, 2, 4), "preprocess image: size 16385x2 exceeds 16384 px a side");
  EXPECT_EQ(message(1, 1, 3), "preprocess image: RGBA buffer of 3 bytes, expected 4 for 1x1 x 4");
  EXPECT_THROW(preprocess_image(nullptr, 4, 1, 1, spec), InputError);
}

TEST(PreprocessSpecChecks, RejectsBadMeanStdAndSizes) {
  const std::vector<uint8_t> px(4, 1);
  auto fails = [&](PreprocessSpec s) {
    EXPECT_THROW(preprocess_image(px.data(), px.size(), 1, 1, s), InputError);
  };
  PreprocessSpec s;
  s.mean[1] = NAN;
  fails(s);
  s = {};
  s.stddev[2] = 0.0f;
  fails(s);
  s = {};
  s.stddev[0] = -0.5f;
  fails(s);
  s = {};
  s.mean = {0.5f, 0.5f};
  fails(s);
  s = {};
  s.crop_width = 0;
  fails(s);
  s = {};
  s.resize_size = 0;
  fails(s);
  s = {};
  s.resize_mode = ResizeMode::Exact;  // no exact size given
  fails(s);
  try {
    s = {};
    s.stddev[2] = 0.0f;
    require_valid_spec(s);
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "preprocess spec: std[2] = 0.000000 must be finite and > 0");
  }
  EXPECT_THROW(from_id<ResizeMode>("longest_side"), InputError);
  for (ResizeMode m : all_values<ResizeMode>()) EXPECT_EQ(from_id<ResizeMode>(to_id(m)), m);
}

TEST(PreprocessPlan, VeryElongatedPhotosAreResizedOnlyInsideTheCrop) {
  const PreprocessPlan p = plan_preprocess(3000, 41, PreprocessSpec{});
  EXPECT_EQ(p.resized_width, 18731);                                      // int(256 * 3000 / 41)
  EXPECT_THROW(plan_preprocess(16384, 1, PreprocessSpec{}), InputError);  // 4194304 wide
}

TEST(CropMode, NoneResizesTheWholePhotoToTheInputSize) {
  const PreprocessSpec deit;
  EXPECT_EQ(with_crop_mode(deit, CropMode::Center).resize_mode, ResizeMode::ShortSide);
  const PreprocessSpec whole = with_crop_mode(deit, CropMode::None);
  EXPECT_EQ(whole.resize_mode, ResizeMode::Exact);
  EXPECT_FALSE(whole.center_crop);
  EXPECT_EQ(whole.resize_width, 224);
  EXPECT_EQ(whole.resize_height, 224);
  EXPECT_EQ(whole.interpolation, deit.interpolation);
  EXPECT_EQ(whole.mean, deit.mean);
  // The model input covers the whole photo, whatever its shape.
  const InputRegion r = input_region(4000, 300, whole);
  EXPECT_EQ((std::vector<double>{r.x, r.y, r.width, r.height}),
            (std::vector<double>{0, 0, 4000, 300}));
  const PreprocessPlan p = plan_preprocess(4000, 300, whole);
  EXPECT_EQ(p.input_width, 224);
  EXPECT_EQ(p.input_height, 224);
  // A photo already at the input size is only normalised, as with the crop.
  EXPECT_TRUE(plan_preprocess(224, 224, whole).passthrough);
}

TEST(CropMode, NoneKeepsAnExactResizeAndRefusesAVariableInputSize) {
  PreprocessSpec exact;
  exact.resize_mode = ResizeMode::Exact;
  exact.resize_width = 384;
  exact.resize_height = 320;
  exact.center_crop = false;
  const PreprocessSpec same = with_crop_mode(exact, CropMode::None);
  EXPECT_EQ(same.resize_width, 384);
  EXPECT_EQ(same.resize_height, 320);
  PreprocessSpec variable;
  variable.center_crop = false;  // short side 256, no crop: the input size follows the photo
  try {
    with_crop_mode(variable, CropMode::None);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("short_side"), std::string::npos) << e.what();
  }
  EXPECT_THROW(from_id<CropMode>("middle"), InputError);
}

}  // namespace
}  // namespace vitrel
