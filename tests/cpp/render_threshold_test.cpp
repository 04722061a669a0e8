// Binarisation at the mean and at Otsu's level, hand-computed.

#include <gtest/gtest.h>

#include <cmath>

#include "render/threshold.h"
#include "tensor/tensor_view.h"

namespace vitrel {
namespace {

TEST(Threshold, IdsRoundTripAndUnknownIdListsValidOnes) {
  for (Threshold t : all_values<Threshold>()) EXPECT_EQ(from_id<Threshold>(to_id(t)), t);
  try {
    from_id<Threshold>("median");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("valid: mean, otsu"), std::string::npos);
  }
}

TEST(Threshold, MeanKeepsValuesStrictlyAbove) {
  // mean 0.4: the value equal to it is background, as Res.gt(Res.mean()) in the paper.
  EXPECT_EQ(binarize({0.0f, 0.2f, 0.4f, 1.0f}, Threshold::Mean), (std::vector<float>{0, 0, 0, 1}));
}

TEST(Threshold, OtsuSplitsTwoClustersAtTheLowerOne) {
  // Bins 51 and 204: every t in 51..203 separates them equally well; the smallest wins.
  const std::vector<float> map = {0.2f, 0.2f, 0.8f, 0.8f, 0.8f};
  EXPECT_EQ(otsu_level(map), 51);
  EXPECT_EQ(binarize(map, Threshold::Otsu), (std::vector<float>{0, 0, 1, 1, 1}));
}

TEST(Threshold, OtsuPicksTheWidestGapOfThreeClusters) {
  // Bins 0 (x4), 25 (x4), 255 (x4): splitting off the top cluster maximises n0*n1*gap^2.
  std::vector<float> map;
  for (float v : {0.0f, 0.1f, 1.0f}) map.insert(map.end(), 4, v);
  EXPECT_EQ(otsu_level(map), 25);
}

TEST(Threshold, ConstantMapHasNoForeground) {
  EXPECT_EQ(otsu_level({0.3f, 0.3f}), 0);
  EXPECT_EQ(binarize({0.0f, 0.0f}, Threshold::Otsu), (std::vector<float>{0, 0}));
  EXPECT_EQ(binarize({0.5f, 0.5f}, Threshold::Mean), (std::vector<float>{0, 0}));
}

TEST(Threshold, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(otsu_level({}), InputError);
  EXPECT_THROW(binarize({}, Threshold::Mean), InputError);
  EXPECT_THROW(binarize({0.1f, NAN}, Threshold::Otsu), InputError);
  EXPECT_THROW(binarize({INFINITY}, Threshold::Mean), InputError);
}

}  // namespace
}  // namespace vitrel
