// Contrastive maps (methods/contrast.h, docs/contrast.md): which methods can contrast, the
// definition, its antisymmetry, and its errors; the two classes' maps' correlation. The catdog
// behaviour with the official run's tensors is in golden_catdog_test.cpp (GoldenContrast).

#include <gtest/gtest.h>

#include <cmath>

#include "methods/contrast.h"

namespace vitrel {
namespace {

TEST(Contrast, OnlyAttentionOnlyMethodsCannotContrast) {
  for (const MethodInfo& m : id_table(Method{})) {
    const bool agnostic = m.value == Method::RawAttention || m.value == Method::AttentionRollout;
    EXPECT_EQ(can_contrast(m.value), !agnostic) << m.id;
  }
}

TEST(Contrast, IsTheDifferenceOfMapsScaledByTheirLargestMagnitude) {
  const RelevanceMap a{1, 3, {2.f, 1.f, 0.f}};
  const RelevanceMap b{1, 3, {0.f, -10.f, 5.f}};
  const RelevanceMap ab = contrast_map(Method::LrpFull, a, b);
  EXPECT_EQ(ab.rows, 1);
  EXPECT_EQ(ab.cols, 3);
  EXPECT_EQ(ab.data, (std::vector<float>{1.f, 1.5f, -0.5f}));
  // Swapping the classes negates the map.
  const RelevanceMap ba = contrast_map(Method::LrpFull, b, a);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(ba.data[i], -ab.data[i]);
}

TEST(Contrast, ScaleFreeAndAZeroMapStaysZero) {
  const RelevanceMap a{1, 2, {3e9f, 1e9f}};
  const RelevanceMap a_small{1, 2, {3.f, 1.f}};
  const RelevanceMap zero{1, 2, {0.f, 0.f}};
  EXPECT_EQ(contrast_map(Method::GradCam, a, a_small).data, (std::vector<float>{0.f, 0.f}));
  const RelevanceMap z = contrast_map(Method::GradCam, zero, a_small);
  EXPECT_FLOAT_EQ(z.data[0], -1.f);
  EXPECT_FLOAT_EQ(z.data[1], -1.f / 3.f);
}

TEST(Contrast, ClassAgnosticMethodsAndMismatchedMapsAreSpecificErrors) {
  const RelevanceMap a{1, 2, {1.f, 2.f}};
  try {
    contrast_map(Method::AttentionRollout, a, a);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "contrast: attention_rollout reads only the attention, which is the same for "
                 "every class, so it cannot contrast two classes");
  }
  try {
    contrast_map(Method::TransformerAttribution, a, RelevanceMap{2, 1, {1.f, 2.f}});
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "contrast: the maps of the two classes differ in shape (1x2 and 2x1)");
  }
  EXPECT_THROW(contrast_map(Method::LrpFull, a, RelevanceMap{1, 2, {1.f, NAN}}), InputError);
}

TEST(ContrastCorrelation, IsThePearsonROfTheTwoMapsScaleFree) {
  const RelevanceMap a{1, 4, {1.f, 2.f, 3.f, 4.f}};
  // the same map up to a positive scale and an offset: 1; negated: -1
  EXPECT_DOUBLE_EQ(
      contrast_correlation(Method::PartialLrp, a, RelevanceMap{1, 4, {12.f, 14.f, 16.f, 18.f}}),
      1.0);
  EXPECT_DOUBLE_EQ(
      contrast_correlation(Method::PartialLrp, a, RelevanceMap{1, 4, {-1e9f, -2e9f, -3e9f, -4e9f}}),
      -1.0);
  // by hand: x - mean = (-1.5, -0.5, 0.5, 1.5), y - mean = (1, -1, -1, 1): sum xy = 0
  EXPECT_NEAR(contrast_correlation(Method::PartialLrp, a, RelevanceMap{1, 4, {2.f, 0.f, 0.f, 2.f}}),
              0.0, 1e-15);
  // y = (0, 0, 0, 1): r = 1.5 / sqrt(5 * 0.75) = 0.7745966...
  EXPECT_NEAR(contrast_correlation(Method::PartialLrp, a, RelevanceMap{1, 4, {0.f, 0.f, 0.f, 1.f}}),
              1.5 / std::sqrt(5.0 * 0.75), 1e-12);
  // symmetric in the two classes
  const RelevanceMap b{1, 4, {0.3f, -2.f, 7.f, 1.f}};
  EXPECT_DOUBLE_EQ(contrast_correlation(Method::GradCam, a, b),
                   contrast_correlation(Method::GradCam, b, a));
}

TEST(ContrastCorrelation, AConstantMapHasNoneAndErrorsAreContrastMaps) {
  const RelevanceMap a{1, 2, {1.f, 2.f}};
  EXPECT_TRUE(std::isnan(contrast_correlation(Method::GradCam, RelevanceMap{1, 2, {0.f, 0.f}}, a)));
  EXPECT_TRUE(std::isnan(contrast_correlation(Method::GradCam, a, RelevanceMap{1, 2, {5.f, 5.f}})));
  EXPECT_THROW(contrast_correlation(Method::RawAttention, a, a), InputError);
  EXPECT_THROW(contrast_correlation(Method::LrpFull, a, RelevanceMap{2, 1, {1.f, 2.f}}),
               InputError);
  EXPECT_THROW(contrast_correlation(Method::LrpFull, a, RelevanceMap{1, 2, {INFINITY, 2.f}}),
               InputError);
}

}  // namespace
}  // namespace vitrel
