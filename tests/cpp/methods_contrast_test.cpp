// Contrastive maps (methods/contrast.h, docs/contrast.md): which methods can contrast, the
// definition, its antisymmetry, and its errors. The catdog behaviour with the official
// run's tensors is in golden_catdog_test.cpp (GoldenContrast).

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

}  // namespace
}  // namespace vitrel
