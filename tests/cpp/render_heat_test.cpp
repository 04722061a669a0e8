// The heat image every view draws: scale → sampling → threshold → colormap, in one call,
// equal to those stages run one by one; and the photo overlay cut at the same level.

#include <gtest/gtest.h>

#include <random>

#include "render/heat_image.h"
#include "render/photo_overlay.h"
#include "render/upsample.h"
#include "support/expect_input_error.h"

namespace vitrel {
namespace {

std::vector<float> random_map(int n, unsigned seed, float lo) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, 1.0f);
  std::vector<float> map(n);
  for (float& v : map) v = u(rng);
  return map;
}

// The stages one by one, as the page drew before the heat image was one call.
std::vector<uint8_t> staged(const std::vector<float>& map, int rows, int cols, MapScale scale,
                            std::optional<Threshold> t, int out_rows, int out_cols) {
  std::vector<float> map01 = normalize_for_scale(map, rows, cols, scale);
  if (out_rows != rows || out_cols != cols)
    map01 = upsample_bilinear(map01, rows, cols, out_rows, out_cols);
  std::vector<uint8_t> rgba = apply_colormap(map01, colormap_for_scale(scale, Colormap::Jet));
  if (t) {
    const std::vector<float> mask = binarize(map01, *t);
    for (size_t i = 0; i < mask.size(); ++i) {
      if (!(mask[i] > 0)) rgba[4 * i + 3] = 0;
    }
  }
  return rgba;
}

TEST(HeatImage, SmoothIsScaleThenBilinearThenThresholdThenColour) {
  const auto map = random_map(14 * 14, 7, -1.0f);
  for (MapScale scale : {MapScale::Positive, MapScale::Signed}) {
    for (std::optional<Threshold> t : {std::optional<Threshold>{}, std::optional{Threshold::Mean},
                                       std::optional{Threshold::Otsu}}) {
      HeatOptions o;
      o.scale = scale;
      o.threshold = t;
      const HeatImage image = render_heat(map, 14, 14, o);
      ASSERT_EQ(image.rows, kSmoothSide);
      ASSERT_EQ(image.cols, kSmoothSide);
      EXPECT_EQ(image.rgba, staged(map, 14, 14, scale, t, kSmoothSide, kSmoothSide));
    }
  }
}

TEST(HeatImage, AFinerMapKeepsItsOwnSizeAndAnExplicitSizeIsHonoured) {
  const auto map = random_map(230 * 240, 3, 0.0f);
  const HeatImage own = render_heat(map, 230, 240, {});
  EXPECT_EQ(own.rows, 230);
  EXPECT_EQ(own.cols, 240);
  HeatOptions o;
  o.out_rows = 50;
  o.out_cols = 60;
  const HeatImage small = render_heat(map, 230, 240, o);
  EXPECT_EQ(small.rgba, staged(map, 230, 240, MapScale::Positive, std::nullopt, 50, 60));
}

TEST(HeatImage, PatchGridIsOneBlockPerCell) {
  const std::vector<float> map = {0.0f, 1.0f, 0.5f, 0.25f};  // 2 x 2
  HeatOptions o;
  o.colormap = Colormap::Gray;
  o.sampling = MapSampling::PatchGrid;
  const HeatImage own = render_heat(map, 2, 2, o);  // the map's size: the canvas scales it
  EXPECT_EQ(own.rows, 2);
  o.out_rows = 4;
  o.out_cols = 6;
  const HeatImage big = render_heat(map, 2, 2, o);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 6; ++x) {
      const int cell = (y * 2 / 4) * 2 + (x * 2 / 6);
      EXPECT_EQ(big.rgba[(y * 6 + x) * 4], own.rgba[cell * 4]) << y << "," << x;
    }
  }
}

TEST(HeatImage, OverlayCutsThePhotoAtTheHeatImagesLevel) {
  // A 2 x 2 map over a 224 x 224 photo covering the region exactly: the overlay's samples are
  // the smooth map's, so the pixels it tints are those the heat image keeps.
  const std::vector<float> map01 = {0.0f, 1.0f, 0.2f, 0.9f};
  std::vector<uint8_t> photo(size_t(224) * 224 * 4, 77);
  HeatOptions h;
  h.threshold = Threshold::Mean;
  const HeatImage heat = render_heat(map01, 2, 2, h);
  OverlayOptions o;
  o.opacity = 1.0f;
  o.threshold = heat_threshold_level(map01, 2, 2, MapSampling::Bilinear, Threshold::Mean);
  const auto out = overlay_map_on_photo(photo.data(), photo.size(), 224, 224, map01, 2, 2,
                                        InputRegion{0, 0, 224, 224}, o);
  int kept = 0;
  for (size_t i = 0; i < size_t(224) * 224; ++i) {
    const bool tinted = out[4 * i] != 77 || out[4 * i + 1] != 77 || out[4 * i + 2] != 77;
    const bool shown = heat.rgba[4 * i + 3] != 0;
    EXPECT_EQ(tinted, shown) << i;
    kept += shown;
  }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, 224 * 224);
}

TEST(HeatImage, BadSizesAreInputErrors) {
  HeatOptions o;
  o.out_rows = 0;
  o.out_cols = 5;
  testing::expect_input_error([&] { render_heat({1.0f}, 1, 1, o); }, "must be 1..16384");
  testing::expect_input_error([&] { render_heat({1.0f, 2.0f}, 1, 1, {}); }, "render_heat map");
}

}  // namespace
}  // namespace vitrel
