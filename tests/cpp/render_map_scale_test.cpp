// The map scales (positive = min-max, signed = symmetric about 0), the colormap each draws
// with, and the caption's summary.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "render/map_scale.h"

namespace vitrel {
namespace {

TEST(MapScale, IdsAndUnknownIdListsValidOnes) {
  EXPECT_EQ(from_id<MapScale>("signed"), MapScale::Signed);
  EXPECT_STREQ(to_id(MapScale::Positive), "positive");
  try {
    from_id<MapScale>("abs");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "scale: unknown id \"abs\" (valid: positive, signed)");
  }
}

TEST(MapScale, SignedPutsZeroInTheMiddleAndTheLargestMagnitudeAtAnEnd) {
  const std::vector<float> out = normalize_signed({-2.f, 0.f, 1.f, 4.f});
  EXPECT_EQ(out, (std::vector<float>{0.25f, 0.5f, 0.625f, 1.f}));
  const std::vector<float> neg = normalize_signed({-8.f, -2.f, 0.f});
  EXPECT_EQ(neg, (std::vector<float>{0.f, 0.375f, 0.5f}));
  // Zero is the colormap's middle entry, on either side of it the two signs.
  EXPECT_EQ(colormap_index(out[1]), 127);
}

TEST(MapScale, SignedKeepsTheExtremesOfFloatRangeFinite) {
  const float big = std::numeric_limits<float>::max();
  EXPECT_EQ(normalize_signed({-big, big}), (std::vector<float>{0.f, 1.f}));
}

TEST(MapScale, AllZeroMapIsNeutralUnderSignedAndZeroUnderPositive) {
  EXPECT_EQ(normalize_for_scale({0.f, 0.f}, MapScale::Signed), (std::vector<float>{0.5f, 0.5f}));
  EXPECT_EQ(normalize_for_scale({0.f, 0.f}, MapScale::Positive), (std::vector<float>{0.f, 0.f}));
}

TEST(MapScale, PositiveIsTheMinMaxOfTheNotebooks) {
  EXPECT_EQ(normalize_for_scale({-2.f, 0.f, 2.f}, MapScale::Positive),
            (std::vector<float>{0.f, 0.5f, 1.f}));
}

TEST(MapScale, RejectsEmptyAndNonFiniteMaps) {
  EXPECT_THROW(normalize_signed({}), InputError);
  EXPECT_THROW(normalize_signed({1.f, std::nanf("")}), InputError);
  EXPECT_THROW(summarize_map({}), InputError);
  EXPECT_THROW(summarize_map({INFINITY}), InputError);
}

TEST(MapScale, SignedDrawsWithTheDivergingMapBlueBelowRedAbove) {
  EXPECT_EQ(colormap_for_scale(MapScale::Signed, Colormap::Jet), Colormap::RdBu);
  EXPECT_EQ(colormap_for_scale(MapScale::Positive, Colormap::Viridis), Colormap::Viridis);
  const Rgb low = colormap_color(Colormap::RdBu, 0);
  const Rgb mid = colormap_color(Colormap::RdBu, 127);
  const Rgb high = colormap_color(Colormap::RdBu, 255);
  EXPECT_GT(low.b, low.r + 60);
  EXPECT_GT(high.r, high.b + 60);
  EXPECT_GT(std::min({mid.r, mid.g, mid.b}), 230);  // near white
}

TEST(MapScale, SummaryGivesRangeAndShareOfNegatives) {
  const MapSummary s = summarize_map({-3.f, -1.f, 0.f, 2.f});
  EXPECT_EQ(s.min, -3.f);
  EXPECT_EQ(s.max, 2.f);
  EXPECT_EQ(s.negative_share, 0.5f);
}

}  // namespace
}  // namespace vitrel
