// Bilinear upsampling (F.interpolate, align_corners=False) and min-max normalisation,
// on hand-computed cases.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "render/normalize.h"
#include "render/upsample.h"
#include "tensor/tensor_view.h"

namespace vitrel {
namespace {

TEST(UpsampleBilinear, DoublesARowWithEdgeClamping) {
  // scale 1/2: sources -0.25 (clamped to 0), 0.25, 0.75, 1.25 (past the last: repeated).
  const auto out = upsample_bilinear({0.0f, 4.0f}, 1, 2, 1, 4);
  EXPECT_EQ(out, (std::vector<float>{0.0f, 1.0f, 3.0f, 4.0f}));
}

TEST(UpsampleBilinear, IsSeparableIn2D) {
  const auto out = upsample_bilinear({0, 4, 8, 12}, 2, 2, 4, 4);
  const std::vector<float> rows[] = {{0, 1, 3, 4}, {2, 3, 5, 6}, {6, 7, 9, 10}, {8, 9, 11, 12}};
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) EXPECT_FLOAT_EQ(out[y * 4 + x], rows[y][x]) << y << "," << x;
  }
}

TEST(UpsampleBilinear, ShrinksWithoutAntialiasing) {
  // 8 -> 2: sources 1.5 and 5.5, so only x1,x2 and x5,x6 contribute.
  const auto out = upsample_bilinear({100, 0, 2, 100, 100, 4, 6, 100}, 1, 8, 1, 2);
  EXPECT_EQ(out, (std::vector<float>{1.0f, 5.0f}));
}

TEST(UpsampleBilinear, SameSizeIsIdentityAndOneCellIsConstant) {
  const std::vector<float> m = {1, -2, 3, 4, 5, 6};
  EXPECT_EQ(upsample_bilinear(m, 2, 3, 2, 3), m);
  EXPECT_EQ(upsample_bilinear({7}, 1, 1, 2, 3), std::vector<float>(6, 7.0f));
}

TEST(UpsampleBilinear, RejectsBadInputs) {
  EXPECT_THROW(upsample_bilinear({1, 2, 3}, 2, 2, 4, 4), InputError);
  EXPECT_THROW(upsample_bilinear({}, 0, 2, 4, 4), InputError);
  EXPECT_THROW(upsample_bilinear({1, 2}, 1, 2, 0, 4), InputError);
  EXPECT_THROW(upsample_bilinear({1, 2}, 1, 2, 4, -1), InputError);
  EXPECT_THROW(upsample_bilinear({1, NAN}, 1, 2, 4, 4), InputError);
  try {
    upsample_bilinear({1, 2, 3}, 2, 2, 4, 4);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("expected rows*cols = 4"), std::string::npos) << e.what();
  }
}

TEST(NormalizeMinMax, MapsToUnitRange) {
  EXPECT_EQ(normalize_min_max({2, 4, 6}), (std::vector<float>{0.0f, 0.5f, 1.0f}));
  EXPECT_EQ(normalize_min_max({-1, 1}), (std::vector<float>{0.0f, 1.0f}));
}

TEST(NormalizeMinMax, ConstantMapGivesZeros) {
  EXPECT_EQ(normalize_min_max({3, 3, 3}), std::vector<float>(3, 0.0f));
  EXPECT_EQ(normalize_min_max({0}), std::vector<float>(1, 0.0f));
}

TEST(NormalizeMinMax, HugeRangeDoesNotOverflow) {
  const auto out = normalize_min_max({-3e38f, 0.0f, 3e38f});
  EXPECT_FLOAT_EQ(out[0], 0.0f);
  EXPECT_FLOAT_EQ(out[1], 0.5f);
  EXPECT_FLOAT_EQ(out[2], 1.0f);
}

TEST(NormalizeMinMax, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(normalize_min_max({}), InputError);
  EXPECT_THROW(normalize_min_max({1, NAN}), InputError);
  EXPECT_THROW(normalize_min_max({std::numeric_limits<float>::infinity(), 1}), InputError);
}

}  // namespace
}  // namespace vitrel
