// The map drawn over the original photo inside the model's input region.

#include <gtest/gtest.h>

#include <cmath>

#include "render/photo_overlay.h"
#include "render/upsample.h"
#include "tensor/tensor_view.h"

namespace vitrel {
namespace {

std::vector<uint8_t> grey_photo(int w, int h, uint8_t v) {
  std::vector<uint8_t> rgba(size_t(w) * h * 4, v);
  for (size_t i = 3; i < rgba.size(); i += 4) rgba[i] = 200;
  return rgba;
}

OverlayOptions opaque_gray(MapSampling s = MapSampling::Bilinear) {
  OverlayOptions o;
  o.colormap = Colormap::Gray;
  o.sampling = s;
  o.opacity = 1.0f;
  return o;
}

uint8_t red_at(const std::vector<uint8_t>& rgba, int w, int x, int y) {
  return rgba[(size_t(y) * w + x) * 4];
}

TEST(PhotoOverlay, WholePhotoRegionIsTheBilinearUpsampling) {
  // Map 1x2 {0, 1} over a 4x1 photo: F.interpolate gives 0, .25, .75, 1.
  const auto photo = grey_photo(4, 1, 9);
  const auto out = overlay_map_on_photo(photo.data(), photo.size(), 4, 1, {0.0f, 1.0f}, 1, 2,
                                        InputRegion{0, 0, 4, 1}, opaque_gray());
  EXPECT_EQ(red_at(out, 4, 0, 0), 0);
  EXPECT_EQ(red_at(out, 4, 1, 0), 63);   // floor(.25 * 255)
  EXPECT_EQ(red_at(out, 4, 2, 0), 191);  // floor(.75 * 255)
  EXPECT_EQ(red_at(out, 4, 3, 0), 255);
  EXPECT_EQ(out[3], 200);  // alpha kept
}

TEST(PhotoOverlay, PatchGridShowsFlatBlocks) {
  const auto photo = grey_photo(4, 2, 9);
  const auto out =
      overlay_map_on_photo(photo.data(), photo.size(), 4, 2, {0.0f, 1.0f}, 1, 2,
                           InputRegion{0, 0, 4, 2}, opaque_gray(MapSampling::PatchGrid));
  for (int y = 0; y < 2; ++y) {
    EXPECT_EQ(red_at(out, 4, 0, y), 0);
    EXPECT_EQ(red_at(out, 4, 1, y), 0);
    EXPECT_EQ(red_at(out, 4, 2, y), 255);
    EXPECT_EQ(red_at(out, 4, 3, y), 255);
  }
}

TEST(PhotoOverlay, OnlyTheRegionIsCoveredAndOutsideCanBeDimmed) {
  // Region x in [2, 6), y in [1, 3) of an 8x4 photo: pixel centres 2.5..5.5 and 1.5, 2.5.
  const auto photo = grey_photo(8, 4, 100);
  OverlayOptions o = opaque_gray(MapSampling::PatchGrid);
  o.outside_dim = 0.5f;
  const auto out = overlay_map_on_photo(photo.data(), photo.size(), 8, 4, {1.0f}, 1, 1,
                                        InputRegion{2, 1, 4, 2}, o);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 8; ++x) {
      const bool inside = x >= 2 && x < 6 && y >= 1 && y < 3;
      EXPECT_EQ(red_at(out, 8, x, y), inside ? 255 : 50) << x << "," << y;
    }
  }
  o.outside_dim = 0.0f;
  const auto kept = overlay_map_on_photo(photo.data(), photo.size(), 8, 4, {1.0f}, 1, 1,
                                         InputRegion{2, 1, 4, 2}, o);
  EXPECT_EQ(red_at(kept, 8, 0, 0), 100);
}

TEST(PhotoOverlay, AgreesWithUpsampleBilinearOnAnExactRegion) {
  // A 14x14 map over a 224x224 photo equals upsample_bilinear x16, up to float rounding
  // at colour-index boundaries.
  std::vector<float> map(196);
  for (size_t i = 0; i < map.size(); ++i) map[i] = float((i * 37) % 196) / 195.0f;
  const auto photo = grey_photo(224, 224, 0);
  const auto out = overlay_map_on_photo(photo.data(), photo.size(), 224, 224, map, 14, 14,
                                        InputRegion{0, 0, 224, 224}, opaque_gray());
  const auto up = upsample_bilinear(map, 14, 14, 224, 224);
  int off_by_one = 0;
  for (size_t i = 0; i < up.size(); ++i) {
    const int expected = std::min(255, int(up[i] * 255.0f));
    const int d = std::abs(int(out[4 * i]) - expected);
    ASSERT_LE(d, 1) << "pixel " << i;
    off_by_one += d;
  }
  EXPECT_LE(off_by_one, 50);
}

TEST(PhotoOverlay, InPlaceOnTheCallersBuffer) {
  auto photo = grey_photo(2, 2, 10);
  draw_map_on_photo(photo.data(), photo.size(), 2, 2, {1, 1, 1, 1}, 2, 2, InputRegion{0, 0, 2, 2},
                    opaque_gray());
  EXPECT_EQ(photo[0], 255);
}

TEST(PhotoOverlay, RejectsBadInputs) {
  auto photo = grey_photo(2, 2, 10);
  const InputRegion r{0, 0, 2, 2};
  OverlayOptions o;
  EXPECT_THROW(draw_map_on_photo(photo.data(), photo.size(), 2, 2, {1, NAN}, 1, 2, r, o),
               InputError);
  EXPECT_THROW(draw_map_on_photo(photo.data(), photo.size(), 2, 2, {1, 1}, 2, 2, r, o), InputError);
  EXPECT_THROW(draw_map_on_photo(photo.data(), 15, 2, 2, {1}, 1, 1, r, o), InputError);
  EXPECT_THROW(
      draw_map_on_photo(photo.data(), photo.size(), 2, 2, {1}, 1, 1, InputRegion{0, 0, 0, 2}, o),
      InputError);
  EXPECT_THROW(
      draw_map_on_photo(photo.data(), photo.size(), 2, 2, {1}, 1, 1, InputRegion{NAN, 0, 2, 2}, o),
      InputError);
  o.opacity = 2.0f;
  EXPECT_THROW(draw_map_on_photo(photo.data(), photo.size(), 2, 2, {1}, 1, 1, r, o), InputError);
  o = {};
  o.outside_dim = -0.1f;
  EXPECT_THROW(draw_map_on_photo(photo.data(), photo.size(), 2, 2, {1}, 1, 1, r, o), InputError);
  EXPECT_THROW(from_id<MapSampling>("nearest"), InputError);
  for (MapSampling s : all_values<MapSampling>()) EXPECT_EQ(from_id<MapSampling>(to_id(s)), s);
}

}  // namespace
}  // namespace vitrel
