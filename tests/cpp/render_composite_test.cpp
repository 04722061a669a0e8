// Heatmap compositing: alpha blend and the notebooks' additive style, hand-computed.

#include <gtest/gtest.h>

#include <cmath>

#include "render/composite.h"
#include "tensor/tensor_view.h"

namespace vitrel {
namespace {

const std::vector<uint8_t> kPhoto = {100, 0, 50, 255, 10, 20, 30, 77};  // 2x1 RGBA

std::vector<uint8_t> blend(float opacity, BlendMode mode = BlendMode::Alpha) {
  CompositeOptions o;
  o.colormap = Colormap::Gray;
  o.mode = mode;
  o.opacity = opacity;
  return composite_heatmap(kPhoto.data(), kPhoto.size(), 2, 1, {1.0f, 0.0f}, o);
}

TEST(CompositeAlpha, OpacityZeroIsThePhotoAndOneIsTheHeatmap) {
  EXPECT_EQ(blend(0.0f), kPhoto);
  EXPECT_EQ(blend(1.0f), (std::vector<uint8_t>{255, 255, 255, 255, 0, 0, 0, 77}));
}

TEST(CompositeAlpha, HalfOpacityRoundsTheMean) {
  // (100 + 255) / 2 = 177.5 -> 178; (0 + 255) / 2 -> 128; (10 + 0) / 2 = 5; alpha kept.
  EXPECT_EQ(blend(0.5f), (std::vector<uint8_t>{178, 128, 153, 255, 5, 10, 15, 77}));
}

TEST(CompositeNotebook, AddsHeatToMinMaxPhotoAndDividesByTheMax) {
  // Photo min 0, max 100: pixel 1 = (1, 0, .5) + heat 1 = (2, 1, 1.5); pixel 2 =
  // (.1, .2, .3) + 0. Divided by 2, times 255, truncated.
  EXPECT_EQ(blend(0.3f, BlendMode::Notebook),
            (std::vector<uint8_t>{255, 127, 191, 255, 12, 25, 38, 77}));
}

TEST(Composite, IdsAndErrors) {
  for (BlendMode m : all_values<BlendMode>()) EXPECT_EQ(from_id<BlendMode>(to_id(m)), m);
  EXPECT_THROW(from_id<BlendMode>("multiply"), InputError);
  EXPECT_THROW(blend(1.5f), InputError);
  EXPECT_THROW(blend(NAN), InputError);
  CompositeOptions o;
  EXPECT_THROW(composite_heatmap(kPhoto.data(), kPhoto.size(), 2, 1, {1.0f}, o), InputError);
  EXPECT_THROW(composite_heatmap(kPhoto.data(), 7, 2, 1, {1.0f, 0.0f}, o), InputError);
  EXPECT_THROW(composite_heatmap(nullptr, 8, 2, 1, {1.0f, 0.0f}, o), InputError);
  EXPECT_THROW(composite_heatmap(kPhoto.data(), kPhoto.size(), 2, 1, {1.0f, NAN}, o), InputError);
}

}  // namespace
}  // namespace vitrel
