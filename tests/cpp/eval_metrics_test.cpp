// AUC, the grid pointing game's share, average precision and the segmentation counts of
// imagenet_seg_eval.py, and the mask resampling into the model's frame, on hand-computed cases.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "eval/auc.h"
#include "eval/pointing_game.h"
#include "eval/segmentation.h"
#include "support/expect_input_error.h"
#include "tensor/tensor_view.h"

namespace vitrel {
namespace {

using testing::expect_input_error;

const std::vector<double> kSteps{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};

TEST(EvalAuc, TrapezoidAreaByHand) {
  EXPECT_DOUBLE_EQ(trapezoid_area({0, 1, 3}, {1, 3, 3}), 2.0 + 6.0);
  EXPECT_DOUBLE_EQ(trapezoid_area({0, 1}, {1, -1}), 0.0);
}

TEST(EvalAuc, ConstantAccuracyGivesAccuracyTimesSpanTimes100) {
  EXPECT_NEAR(perturbation_auc(kSteps, std::vector<double>(10, 0.8)), 72.0, 1e-12);
  // Linear drop 1 -> 0.1 over 0..0.9: mean height 0.55 x 0.9 x 100.
  std::vector<double> falling;
  for (double k : kSteps) falling.push_back(1.0 - k);
  EXPECT_NEAR(perturbation_auc(kSteps, falling), 49.5, 1e-12);
}

TEST(EvalAuc, RejectsBadCurves) {
  expect_input_error([] { trapezoid_area({0, 1}, {1}); }, "2 x values but 1 y values");
  expect_input_error([] { trapezoid_area({0}, {1}); }, "at least 2 points");
  expect_input_error([] { trapezoid_area({0, 0.5, 0.5}, {1, 1, 1}); }, "strictly increasing");
  expect_input_error([] { trapezoid_area({0, 1, 0.5}, {1, 1, 1}); }, "x[2]");
  expect_input_error(
      [] {
        trapezoid_area({0, NAN}, {1, 1});
      },
      "x has a non-finite value at index 1");
  expect_input_error([] { perturbation_auc({0, 1}, {1, INFINITY}); }, "y has a non-finite");
}

TEST(EvalPointingGame, ShareOfPositiveRelevanceInsideTheRect) {
  // 2 rows x 4 cols; positives 1, 3, 4, 2 (total 10), negatives ignored.
  const float map[] = {1, -2, 3, 0, 0, 4, -1, 2};
  EXPECT_DOUBLE_EQ(positive_share_inside(map, 2, 4, {0, 0, 2, 2}), 0.5);  // 1 + 4
  EXPECT_DOUBLE_EQ(positive_share_inside(map, 2, 4, {2, 0, 2, 2}), 0.5);  // 3 + 2
  EXPECT_DOUBLE_EQ(positive_share_inside(map, 2, 4, {2, 0, 2, 1}), 0.3);  // 3
  EXPECT_DOUBLE_EQ(positive_share_inside(map, 2, 4, {0, 0, 4, 2}), 1.0);
  const float negative[] = {-1, 0, -3, -0.5f};
  EXPECT_EQ(positive_share_inside(negative, 2, 2, {0, 0, 1, 1}), 0.0);
}

TEST(EvalPointingGame, RejectsBadMapsAndRects) {
  const float map[] = {1, 2, 3, NAN};
  const float ok[] = {1, 2, 3, 4};
  expect_input_error([&] { positive_share_inside(ok, 0, 2, {0, 0, 1, 1}); }, "both must be >= 1");
  expect_input_error([&] { positive_share_inside(nullptr, 2, 2, {0, 0, 1, 1}); }, "no map");
  expect_input_error(
      [&] {
        positive_share_inside(ok, 2, 2, {1, 0, 2, 1});
      },
      "lie inside the 2x2 map");
  expect_input_error([&] { positive_share_inside(ok, 2, 2, {0, -1, 1, 1}); }, "lie inside");
  expect_input_error([&] { positive_share_inside(ok, 2, 2, {0, 0, 0, 1}); }, "positive size");
  expect_input_error([&] { positive_share_inside(ok, 2, 2, {0, 0, 1, 2147483647}); }, "lie inside");
  expect_input_error([&] { positive_share_inside(map, 2, 2, {0, 0, 1, 1}); }, "at index 3");
}

TEST(EvalAveragePrecision, MatchesSklearnByHand) {
  // sklearn docs example: thresholds 0.8 (P 1, R 0.5), 0.4 (P 0.5), 0.35 (P 2/3, R 1).
  const float scores[] = {0.1f, 0.4f, 0.35f, 0.8f};
  const std::uint8_t labels[] = {0, 0, 1, 1};
  EXPECT_NEAR(average_precision(scores, labels, 4), 0.5 * 1.0 + 0.5 * 2.0 / 3.0, 1e-15);
}

TEST(EvalAveragePrecision, EqualScoresFormOneThreshold) {
  // Threshold 0.5 takes both tied pixels at once: P 1/2, R 1/2; then 0.2: P 2/3, R 1.
  const float scores[] = {0.5f, 0.5f, 0.2f};
  const std::uint8_t labels[] = {1, 0, 1};
  EXPECT_NEAR(average_precision(scores, labels, 3), 0.25 + 1.0 / 3.0, 1e-15);
  const std::uint8_t swapped[] = {0, 1, 1};  // the tie's order does not matter
  EXPECT_NEAR(average_precision(scores, swapped, 3), 0.25 + 1.0 / 3.0, 1e-15);
  const float constant[] = {7, 7, 7, 7};
  const std::uint8_t one[] = {0, 0, 1, 0};
  EXPECT_DOUBLE_EQ(average_precision(constant, one, 4), 0.25);
}

TEST(EvalAveragePrecision, NoPositiveIsZeroAllPositiveIsOne) {
  const float scores[] = {0.3f, 0.9f, 0.1f};
  const std::uint8_t none[] = {0, 0, 0};
  const std::uint8_t all[] = {1, 1, 1};
  EXPECT_EQ(average_precision(scores, none, 3), 0.0);
  EXPECT_EQ(average_precision(scores, all, 3), 1.0);
}

TEST(EvalAveragePrecision, RejectsBadInputs) {
  const float scores[] = {0.3f, NAN};
  const std::uint8_t labels[] = {0, 2};
  const std::uint8_t ok[] = {0, 1};
  const float fine[] = {0.3f, 0.2f};
  expect_input_error([&] { average_precision(scores, ok, 0); }, "no scores");
  expect_input_error([&] { average_precision(scores, ok, 2); }, "at index 1");
  expect_input_error([&] { average_precision(fine, labels, 2); }, "value 2 at index 1");
  expect_input_error([&] { average_precision(fine, nullptr, 2); }, "no values");
}

TEST(EvalSegmentation, CountsOnATinyMap) {
  // Normalised [0, 0.25, 0.75, 1], mean 0.5: foreground predicted at pixels 2 and 3.
  const float map[] = {0, 1, 3, 4};
  const std::uint8_t mask[] = {0, 1, 1, 0};
  const SegmentationCounts c = segmentation_counts(map, mask, 4);
  EXPECT_EQ(c.correct, 2u);  // pixels 0 and 2
  EXPECT_EQ(c.labeled, 4u);
  EXPECT_EQ(c.intersection, (std::array<std::uint64_t, 2>{1, 1}));
  EXPECT_EQ(c.union_, (std::array<std::uint64_t, 2>{3, 3}));
  // Foreground AP on [0, .25, .75, 1] vs [0,1,1,0]: 1/2 * 1/2 + 1/2 * 2/3.
  // Background AP on [1, .75, .25, 0] vs [1,0,0,1]: 1/2 * 1 + 1/2 * 2/4.
  EXPECT_NEAR(c.average_precision, ((0.25 + 1.0 / 3.0) + 0.75) / 2.0, 1e-12);
}

TEST(EvalSegmentation, ValueEqualToTheMeanIsBackground) {
  const float map[] = {0, 2, 4};  // normalised [0, 0.5, 1], mean 0.5
  const std::uint8_t mask[] = {0, 0, 1};
  const SegmentationCounts c = segmentation_counts(map, mask, 3);
  EXPECT_EQ(c.correct, 3u);
  EXPECT_EQ(c.intersection, (std::array<std::uint64_t, 2>{2, 1}));
  EXPECT_EQ(c.union_, (std::array<std::uint64_t, 2>{2, 1}));
  EXPECT_DOUBLE_EQ(c.average_precision, 1.0);
}

TEST(EvalSegmentation, ConstantMapIsAllBackground) {
  const float map[] = {3, 3};
  const std::uint8_t mask[] = {0, 1};
  const SegmentationCounts c = segmentation_counts(map, mask, 2);
  EXPECT_EQ(c.correct, 1u);
  EXPECT_EQ(c.intersection, (std::array<std::uint64_t, 2>{1, 0}));
  EXPECT_EQ(c.union_, (std::array<std::uint64_t, 2>{2, 1}));
  EXPECT_DOUBLE_EQ(c.average_precision, 0.5);  // both classes: one tied threshold, P = 1/2
}

TEST(EvalSegmentation, ClassWithoutPixelsCountsZeroApLikeNanToNum) {
  const float map[] = {0, 1, 3, 4};
  const std::uint8_t background[] = {0, 0, 0, 0};
  const SegmentationCounts c = segmentation_counts(map, background, 4);
  EXPECT_EQ(c.correct, 2u);
  EXPECT_EQ(c.intersection, (std::array<std::uint64_t, 2>{2, 0}));
  EXPECT_EQ(c.union_, (std::array<std::uint64_t, 2>{4, 2}));
  EXPECT_DOUBLE_EQ(c.average_precision, (1.0 + 0.0) / 2.0);
}

TEST(EvalSegmentation, RejectsBadInputs) {
  const float map[] = {0, 1, NAN};
  const float ok[] = {0, 1, 2};
  const std::uint8_t mask[] = {0, 1, 255};
  const std::uint8_t fine[] = {0, 1, 1};
  expect_input_error([&] { segmentation_counts(ok, fine, 0); }, "no values");
  expect_input_error([&] { segmentation_counts(ok, mask, 3); }, "value 255 at index 2");
  expect_input_error([&] { segmentation_counts(map, fine, 3); }, "at index 2");
}

TEST(EvalMaskFrame, NearestNeighbourOfTheRegion) {
  // 4 wide x 2 high.
  const std::uint8_t mask[] = {0, 1, 2, 3, 4, 5, 6, 7};
  // Region columns 1..2, rows 0..1 to 4x1: x = 1 + floor((j + .5) * 2 / 4) = 1,1,2,2; y = floor(.5
  // * 2) = 1.
  EXPECT_EQ(mask_in_model_frame(mask, 4, 2, {1, 0, 2, 2}, 4, 1),
            (std::vector<std::uint8_t>{5, 5, 6, 6}));
  // Whole mask to 2x2: x = floor((j + .5) * 2) = 1, 3; y = floor(i + .5) = 0, 1.
  EXPECT_EQ(mask_in_model_frame(mask, 4, 2, {0, 0, 4, 2}, 2, 2),
            (std::vector<std::uint8_t>{1, 3, 5, 7}));
  // Identity.
  EXPECT_EQ(mask_in_model_frame(mask, 4, 2, {0, 0, 4, 2}, 4, 2),
            std::vector<std::uint8_t>(mask, mask + 8));
  // One pixel region spread over 3x2.
  EXPECT_EQ(mask_in_model_frame(mask, 4, 2, {3, 1, 1, 1}, 3, 2), std::vector<std::uint8_t>(6, 7));
}

TEST(EvalMaskFrame, RejectsBadSizesAndRegions) {
  const std::uint8_t mask[] = {0, 1, 1, 0};
  expect_input_error(
      [&] {
        mask_in_model_frame(mask, 0, 2, {0, 0, 1, 1}, 2, 2);
      },
      "mask_in_model_frame mask");
  expect_input_error([&] { mask_in_model_frame(mask, 2, 2, {0, 0, 1, 1}, 2, 0); }, "output");
  expect_input_error([&] { mask_in_model_frame(nullptr, 2, 2, {0, 0, 1, 1}, 2, 2); }, "no mask");
  expect_input_error(
      [&] {
        mask_in_model_frame(mask, 2, 2, {1, 1, 2, 1}, 2, 2);
      },
      "inside the 2x2 mask");
  expect_input_error([&] { mask_in_model_frame(mask, 2, 2, {0, 0, 0, 1}, 2, 2); }, "positive size");
  expect_input_error([&] { mask_in_model_frame(mask, 2, 2, {-1, 0, 1, 1}, 2, 2); }, "inside");
}

}  // namespace
}  // namespace vitrel
