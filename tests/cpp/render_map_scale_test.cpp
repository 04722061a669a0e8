// The map scales (pixel maps smoothed; positive = min-max, signed = symmetric about 0 with
// the extremes clipped), the colormap each draws with, and the caption's summary.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "render/map_scale.h"
#include "render/smooth.h"

namespace vitrel {
namespace {

std::vector<float> row_scaled(const std::vector<float>& map, MapScale scale) {
  return normalize_for_scale(map, 1, static_cast<int>(map.size()), scale);
}

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
  // Four values: the 97th percentile of |v| is the largest.
  const std::vector<float> out = row_scaled({-2.f, 0.f, 1.f, 4.f}, MapScale::Signed);
  EXPECT_EQ(out, (std::vector<float>{0.25f, 0.5f, 0.625f, 1.f}));
  const std::vector<float> neg = row_scaled({-8.f, -2.f, 0.f}, MapScale::Signed);
  EXPECT_EQ(neg, (std::vector<float>{0.f, 0.375f, 0.5f}));
  // Zero is the colormap's middle entry, on either side of it the two signs.
  EXPECT_EQ(colormap_index(out[1]), 127);
}

// What was wrong before: one extreme value set the scale and drew everything else white.
TEST(MapScale, SignedClipsTheFewExtremesSoTheRestIsSeen) {
  std::vector<float> map(100);
  for (int i = 0; i < 100; ++i) map[i] = (i % 2 ? 1.f : -1.f) * float(i + 1);
  map[99] = 1e10f;  // an outlier, as lrp_full has
  map[98] = -1e9f;
  const std::vector<float> out = normalize_for_scale(map, 10, 10, MapScale::Signed);
  // |v| sorted: 1..98 then the two outliers; the 97th percentile (index 97) is 98.
  EXPECT_FLOAT_EQ(out[97], 98.f / 196.f + 0.5f);
  EXPECT_EQ(out[99], 1.f);
  EXPECT_EQ(out[98], 0.f);
  EXPECT_NEAR(out[48], 0.5f - 49.f / 196.f, 1e-6f);  // drawn at a quarter, not at 2.5e-9
  const MapSummary s = summarize_map(map, 10, 10, MapScale::Signed);
  EXPECT_EQ(s.high, 98.f);
  EXPECT_EQ(s.low, -98.f);
  EXPECT_FLOAT_EQ(s.clipped_share, 0.02f);
  EXPECT_EQ(s.max, 1e10f);
  EXPECT_FALSE(s.smoothed);
}

TEST(MapScale, SignedKeepsTheExtremesOfFloatRangeFinite) {
  const float big = std::numeric_limits<float>::max();
  EXPECT_EQ(row_scaled({-big, big}, MapScale::Signed), (std::vector<float>{0.f, 1.f}));
}

TEST(MapScale, AMostlyZeroMapTakesItsLargestMagnitude) {
  std::vector<float> map(100, 0.f);
  map[5] = -3.f;
  const std::vector<float> out = normalize_for_scale(map, 10, 10, MapScale::Signed);
  EXPECT_EQ(out[5], 0.f);
  EXPECT_EQ(out[6], 0.5f);
}

TEST(MapScale, AllZeroMapIsNeutralUnderSignedAndZeroUnderPositive) {
  EXPECT_EQ(row_scaled({0.f, 0.f}, MapScale::Signed), (std::vector<float>{0.5f, 0.5f}));
  EXPECT_EQ(row_scaled({0.f, 0.f}, MapScale::Positive), (std::vector<float>{0.f, 0.f}));
}

TEST(MapScale, PositiveIsTheMinMaxOfTheNotebooks) {
  EXPECT_EQ(row_scaled({-2.f, 0.f, 2.f}, MapScale::Positive), (std::vector<float>{0.f, 0.5f, 1.f}));
}

// A pixel map whose sign flips from one pixel to the next, positive on average in one
// corner: smoothed, the corner is red and the rest near white; a patch-sized map is drawn
// as it is.
TEST(MapScale, PixelMapsAreSmoothedSoAlternatingSignsReadAsTheirRegion) {
  const int n = kPixelMapSide;
  std::vector<float> map(size_t(n) * n);
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x)
      map[size_t(y) * n + x] = ((x + y) % 2 ? 1.f : -1.f) + (x < 32 && y < 32 ? 0.5f : 0.f);
  }
  const std::vector<float> out = normalize_for_scale(map, n, n, MapScale::Signed);
  EXPECT_GT(out[size_t(12) * n + 12], 0.9f);           // the corner: near full red
  EXPECT_NEAR(out[size_t(90) * n + 90], 0.5f, 0.02f);  // elsewhere: white
  EXPECT_TRUE(summarize_map(map, n, n, MapScale::Signed).smoothed);
  // One cell short of a pixel map: every pixel keeps its own colour.
  const int m = n - 1;
  std::vector<float> small(size_t(m) * m);
  for (size_t i = 0; i < small.size(); ++i) small[i] = i % 2 ? 1.f : -1.f;
  const std::vector<float> drawn = normalize_for_scale(small, m, m, MapScale::Signed);
  EXPECT_EQ(drawn[0], 0.f);
  EXPECT_EQ(drawn[1], 1.f);
}

TEST(GaussianSmooth, KeepsConstantsAndSpreadsAnImpulseSymmetrically) {
  const std::vector<float> flat(40 * 30, 2.5f);
  for (float v : gaussian_smooth(flat, 40, 30, 4.f)) EXPECT_NEAR(v, 2.5f, 1e-5f);
  std::vector<float> impulse(41 * 41, 0.f);
  impulse[20 * 41 + 20] = 1.f;
  const std::vector<float> out = gaussian_smooth(impulse, 41, 41, 2.f);
  EXPECT_NEAR(std::accumulate(out.begin(), out.end(), 0.0), 1.0, 1e-6);  // far from the edges
  EXPECT_FLOAT_EQ(out[20 * 41 + 18], out[20 * 41 + 22]);
  EXPECT_FLOAT_EQ(out[18 * 41 + 20], out[20 * 41 + 18]);
  EXPECT_GT(out[20 * 41 + 20], out[20 * 41 + 21]);
}

TEST(MapScale, RejectsEmptyMismatchedAndNonFiniteMaps) {
  EXPECT_THROW(normalize_for_scale({}, 0, 0, MapScale::Signed), InputError);
  EXPECT_THROW(normalize_for_scale({1.f, 2.f}, 1, 3, MapScale::Signed), InputError);
  EXPECT_THROW(normalize_for_scale({1.f, std::nanf("")}, 1, 2, MapScale::Signed), InputError);
  EXPECT_THROW(summarize_map({}, 0, 0, MapScale::Positive), InputError);
  EXPECT_THROW(summarize_map({INFINITY}, 1, 1, MapScale::Positive), InputError);
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

TEST(MapScale, SummaryGivesRangeShareOfNegativesAndTheColourEnds) {
  const MapSummary s = summarize_map({-3.f, -1.f, 0.f, 2.f}, 2, 2, MapScale::Positive);
  EXPECT_EQ(s.min, -3.f);
  EXPECT_EQ(s.max, 2.f);
  EXPECT_EQ(s.negative_share, 0.5f);
  EXPECT_EQ(s.low, -3.f);
  EXPECT_EQ(s.high, 2.f);
  EXPECT_EQ(s.clipped_share, 0.f);
}

}  // namespace
}  // namespace vitrel
