// PIL-compatible resizing on hand-computed cases (the broad comparison with PIL itself is
// in preprocess_reference_test.cpp).

#include <gtest/gtest.h>

#include "preprocess/pil_resize.h"
#include "tensor/tensor_view.h"

namespace vitrel {
namespace {

// A width x 1 RGBA row whose red channel is `red` (green, blue 0, alpha 255).
std::vector<uint8_t> red_row(const std::vector<uint8_t>& red) {
  std::vector<uint8_t> rgba;
  for (uint8_t r : red) rgba.insert(rgba.end(), {r, 0, 0, 255});
  return rgba;
}

std::vector<uint8_t> red_of(const std::vector<uint8_t>& rgb) {
  std::vector<uint8_t> red;
  for (size_t i = 0; i < rgb.size(); i += 3) red.push_back(rgb[i]);
  return red;
}

TEST(PilResize, BilinearUpscaleUsesTheTriangleAtPixelCentres) {
  // Output centres 0.25, 0.75, 1.25, 1.75: weights (1), (.75,.25), (.25,.75), (1).
  const auto in = red_row({0, 200});
  const auto out = pil_resize_rgb(in.data(), in.size(), 2, 1, 4, 1, Interpolation::Bilinear);
  EXPECT_EQ(red_of(out), (std::vector<uint8_t>{0, 50, 150, 200}));
}

TEST(PilResize, ShrinkingWidensTheFilter) {
  // 4 -> 2: the triangle is stretched x2, so output 0 reads inputs 0..2 with weights
  // 3/7, 3/7, 1/7 and output 1 reads 1..3 with 1/7, 3/7, 3/7 (antialiasing).
  const auto in = red_row({0, 70, 140, 210});
  const auto out = pil_resize_rgb(in.data(), in.size(), 4, 1, 2, 1, Interpolation::Bilinear);
  EXPECT_EQ(red_of(out), (std::vector<uint8_t>{50, 160}));
}

TEST(PilResize, BicubicClampsItsOvershoot) {
  // A step 0,0,255,255 upscaled x2 rings below 0 and above 255: clamped, not wrapped.
  const auto in = red_row({0, 0, 255, 255});
  const auto out = red_of(pil_resize_rgb(in.data(), in.size(), 4, 1, 8, 1, Interpolation::Bicubic));
  EXPECT_EQ(out.front(), 0);
  EXPECT_EQ(out.back(), 255);
  for (size_t i = 1; i < out.size(); ++i) EXPECT_LE(out[i - 1], out[i]);
}

TEST(PilResize, ConstantStaysConstantAndOnePixelWorks) {
  const std::vector<uint8_t> one = {9, 99, 199, 0};
  const auto out = pil_resize_rgb(one.data(), one.size(), 1, 1, 256, 256, Interpolation::Bicubic);
  ASSERT_EQ(out.size(), 256u * 256u * 3u);
  for (size_t i = 0; i < out.size(); i += 3) {
    ASSERT_EQ(out[i], 9);
    ASSERT_EQ(out[i + 1], 99);
    ASSERT_EQ(out[i + 2], 199);
  }
}

TEST(PilResize, SameSizeIsIdentityAndAlphaIsIgnored) {
  std::vector<uint8_t> a(5 * 3 * 4), b;
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint8_t(i * 37);
  b = a;
  for (size_t i = 3; i < b.size(); i += 4) b[i] = 0;  // fully transparent: same RGB result
  const auto ra = pil_resize_rgb(a.data(), a.size(), 5, 3, 5, 3, Interpolation::Bicubic);
  for (size_t p = 0; p < 15; ++p) {
    for (int c = 0; c < 3; ++c) EXPECT_EQ(ra[3 * p + c], a[4 * p + c]);
  }
  EXPECT_EQ(pil_resize_rgb(b.data(), b.size(), 5, 3, 9, 2, Interpolation::Bicubic),
            pil_resize_rgb(a.data(), a.size(), 5, 3, 9, 2, Interpolation::Bicubic));
}

TEST(PilResize, WindowEqualsCropOfTheFullResult) {
  std::vector<uint8_t> img(37 * 23 * 4);
  for (size_t i = 0; i < img.size(); ++i) img[i] = uint8_t((i * 7919) >> 3);
  const auto full = pil_resize_rgb(img.data(), img.size(), 37, 23, 50, 40, Interpolation::Bicubic);
  const PixelWindow w{7, 5, 30, 21};
  const auto part =
      pil_resize_rgb_window(img.data(), img.size(), 37, 23, 50, 40, Interpolation::Bicubic, w);
  ASSERT_EQ(part.size(), size_t(30 * 21 * 3));
  for (int y = 0; y < w.height; ++y) {
    for (int x = 0; x < w.width * 3; ++x) {
      ASSERT_EQ(part[y * w.width * 3 + x], full[(y + w.y) * 50 * 3 + w.x * 3 + x]);
    }
  }
}

TEST(PilResize, RejectsBadInputs) {
  const auto in = red_row({1, 2});
  EXPECT_THROW(pil_resize_rgb(in.data(), 7, 2, 1, 4, 4, Interpolation::Bicubic), InputError);
  EXPECT_THROW(pil_resize_rgb(in.data(), in.size(), 2, 1, 0, 4, Interpolation::Bicubic),
               InputError);
  EXPECT_THROW(pil_resize_rgb(in.data(), in.size(), 0, 1, 4, 4, Interpolation::Bicubic),
               InputError);
  EXPECT_THROW(pil_resize_rgb(nullptr, 8, 2, 1, 4, 4, Interpolation::Bicubic), InputError);
  EXPECT_THROW(pil_resize_rgb(in.data(), in.size(), 2, 1, 20000, 4, Interpolation::Bicubic),
               InputError);
  EXPECT_THROW(pil_resize_rgb_window(in.data(), in.size(), 2, 1, 4, 4, Interpolation::Bicubic,
                                     PixelWindow{2, 0, 3, 4}),
               InputError);
  EXPECT_THROW(from_id<Interpolation>("lanczos"), InputError);
  for (Interpolation i : all_values<Interpolation>()) {
    EXPECT_EQ(from_id<Interpolation>(to_id(i)), i);
  }
}

}  // namespace
}  // namespace vitrel
