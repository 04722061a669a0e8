// Colormap ids, the value -> table index rule, the legend strip, and the JET table's
// definition (the tables themselves are checked against OpenCV/matplotlib in
// render_reference_test.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "render/colormap.h"
#include "tensor/tensor_view.h"

namespace vitrel {
namespace {

TEST(Colormap, IdsRoundTripAndUnknownIdListsValidOnes) {
  for (Colormap c : all_values<Colormap>()) EXPECT_EQ(from_id<Colormap>(to_id(c)), c);
  try {
    from_id<Colormap>("hot");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "colormap: unknown id \"hot\" (valid: jet, viridis, inferno, turbo, gray, rdbu)");
  }
}

TEST(Colormap, IndexIsFloorOf255TimesValueClamped) {
  EXPECT_EQ(colormap_index(0.0f), 0);
  EXPECT_EQ(colormap_index(1.0f), 255);
  EXPECT_EQ(colormap_index(0.5f), 127);  // 127.5 truncated, like np.uint8(255 * 0.5)
  EXPECT_EQ(colormap_index(0.999f), 254);
  EXPECT_EQ(colormap_index(3.0f / 255.0f + 1e-4f), 3);
  EXPECT_EQ(colormap_index(-0.5f), 0);
  EXPECT_EQ(colormap_index(7.0f), 255);
}

TEST(Colormap, LegendIsTheTableLeftToRight) {
  const auto gray = colormap_legend(Colormap::Gray);
  ASSERT_EQ(gray.size(), 256u * 4u);
  for (int i = 0; i < 256; ++i) {
    EXPECT_EQ(gray[4 * i], i);
    EXPECT_EQ(gray[4 * i + 3], 255);
  }
  const auto jet = colormap_legend(Colormap::Jet);
  EXPECT_EQ((std::vector<int>{jet[0], jet[1], jet[2]}), (std::vector<int>{0, 0, 128}));
  EXPECT_EQ((std::vector<int>{jet[1020], jet[1021], jet[1022]}), (std::vector<int>{128, 0, 0}));
}

TEST(Colormap, JetIsTheClassicPiecewiseLinearJetWithinOne) {
  for (int i = 0; i < 256; ++i) {
    const double x = i / 255.0;
    const double centre[3] = {3, 2, 1};  // r, g, b
    const Rgb rgb = colormap_color(Colormap::Jet, i);
    const int got[3] = {rgb.r, rgb.g, rgb.b};
    for (int c = 0; c < 3; ++c) {
      const double v = std::clamp(1.5 - std::fabs(4 * x - centre[c]), 0.0, 1.0);
      EXPECT_LE(std::fabs(got[c] - 255 * v), 1.0) << "entry " << i << " channel " << c;
    }
  }
}

TEST(Colormap, ApplyColoursEachValue) {
  const auto rgba = apply_colormap({0.0f, 1.0f, 0.5f}, Colormap::Gray);
  EXPECT_EQ(rgba, (std::vector<uint8_t>{0, 0, 0, 255, 255, 255, 255, 255, 127, 127, 127, 255}));
  EXPECT_THROW(apply_colormap({0.5f, NAN}, Colormap::Jet), InputError);
  EXPECT_THROW(colormap_color(Colormap::Jet, 256), InputError);
}

}  // namespace
}  // namespace vitrel
