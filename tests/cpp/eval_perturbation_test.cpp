// The perturbation test's pixel removal, hand-computed: counts, ranking with ties, and the
// perturbed normalised inputs (removed pixels are black before normalisation).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "eval/perturbation.h"
#include "support/expect_input_error.h"
#include "tensor/tensor_view.h"

namespace vitrel {
namespace {

using testing::expect_input_error;

TEST(EvalPerturbation, OrderIdsRoundTrip) {
  for (RemovalOrder o : all_values<RemovalOrder>()) EXPECT_EQ(from_id<RemovalOrder>(to_id(o)), o);
  EXPECT_STREQ(to_id(RemovalOrder::most_relevant_first), "most_relevant_first");
  expect_input_error([] { from_id<RemovalOrder>("positive"); }, "least_relevant_first");
}

TEST(EvalPerturbation, RemovedPixelCountFloorsLikePythonInt) {
  EXPECT_EQ(removed_pixel_count(50176, 0.3), 15052u);  // 15052.8
  EXPECT_EQ(removed_pixel_count(50176, 0.1), 5017u);   // 5017.6
  EXPECT_EQ(removed_pixel_count(50176, 0.9), 45158u);  // 45158.4
  EXPECT_EQ(removed_pixel_count(10, 0.0), 0u);
  EXPECT_EQ(removed_pixel_count(10, 1.0), 10u);
  EXPECT_EQ(removed_pixel_count(0, 0.5), 0u);
  expect_input_error([] { removed_pixel_count(10, -0.1); }, "[0, 1]");
  expect_input_error([] { removed_pixel_count(10, 1.01); }, "[0, 1]");
  expect_input_error([] { removed_pixel_count(10, NAN); }, "[0, 1]");
}

TEST(EvalPerturbation, RankingBreaksTiesByLowerIndexInBothOrders) {
  const float map[] = {1, 3, 3, 0, 3, 1};
  EXPECT_EQ(removal_ranking(map, 6, RemovalOrder::most_relevant_first),
            (std::vector<std::uint32_t>{1, 2, 4, 0, 5, 3}));
  EXPECT_EQ(removal_ranking(map, 6, RemovalOrder::least_relevant_first),
            (std::vector<std::uint32_t>{3, 0, 5, 1, 2, 4}));
  const float negative[] = {-1, -5, 2};
  EXPECT_EQ(removal_ranking(negative, 3, RemovalOrder::most_relevant_first),
            (std::vector<std::uint32_t>{2, 0, 1}));
}

TEST(EvalPerturbation, RankingRejectsEmptyAndNonFiniteMaps) {
  const float map[] = {1, 2, NAN, INFINITY};
  expect_input_error([&] { removal_ranking(map, 0, RemovalOrder::most_relevant_first); },
                     "no values");
  expect_input_error([&] { removal_ranking(nullptr, 3, RemovalOrder::most_relevant_first); },
                     "no values");
  expect_input_error([&] { removal_ranking(map, 4, RemovalOrder::least_relevant_first); },
                     "at index 2");
}

// A 3x2 RGBA image (width 3, height 2) with distinct bytes per pixel and channel.
std::vector<std::uint8_t> test_image() {
  std::vector<std::uint8_t> rgba(3 * 2 * 4);
  for (std::size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<std::uint8_t>(20 * i + 5);
  return rgba;
}

TEST(EvalPerturbation, InputsBlackOutTheRankedPixelsThenNormalise) {
  const auto rgba = test_image();
  const float map[] = {0.5f, 4, 2, -1, 3, 0.5f};  // most relevant first: 1, 4, 2, 0, 5, 3
  const std::array<float, 3> mean{0.485f, 0.456f, 0.406f};
  const std::array<float, 3> std{0.229f, 0.224f, 0.225f};
  // Out of order on purpose; 0.5 of 6 pixels = 3 removed, 0.34 -> 2, 0 -> none.
  const std::vector<double> fractions{0.5, 0.0, 0.34};
  const auto out = perturbed_inputs(rgba.data(), 3, 2, map, fractions,
                                    RemovalOrder::most_relevant_first, mean, std);
  ASSERT_EQ(out.size(), 3u * 3 * 6);
  const std::vector<std::vector<int>> removed{{1, 4, 2}, {}, {1, 4}};
  for (std::size_t f = 0; f < fractions.size(); ++f) {
    for (int c = 0; c < 3; ++c) {
      for (int p = 0; p < 6; ++p) {
        const bool gone = std::find(removed[f].begin(), removed[f].end(), p) != removed[f].end();
        const float x = gone ? 0.0f : rgba[4 * p + c] / 255.0f;
        EXPECT_EQ(out[(f * 3 + c) * 6 + p], (x - mean[c]) / std[c])
            << "fraction " << f << " c " << c << " p " << p;
        if (gone) EXPECT_FLOAT_EQ(out[(f * 3 + c) * 6 + p], -mean[c] / std[c]);
      }
    }
  }
}

TEST(EvalPerturbation, NegativeOrderRemovesTheLeastRelevantAndRepeatedFractionsAgree) {
  const auto rgba = test_image();
  const float map[] = {0.5f, 4, 2, -1, 3, 0.5f};  // least relevant first: 3, 0, 5, 2, 4, 1
  const std::array<float, 3> half{0.5f, 0.5f, 0.5f};
  const auto out = perturbed_inputs(rgba.data(), 3, 2, map, {1.0, 0.5, 0.5},
                                    RemovalOrder::least_relevant_first, half, half);
  for (int i = 0; i < 18; ++i) EXPECT_EQ(out[i], -1.0f);  // everything removed: (0 - 0.5) / 0.5
  for (int c = 0; c < 3; ++c) {
    for (int p = 0; p < 6; ++p) {
      const bool gone = p == 3 || p == 0 || p == 5;
      const float expected = gone ? -1.0f : (rgba[4 * p + c] / 255.0f - 0.5f) / 0.5f;
      EXPECT_EQ(out[18 + c * 6 + p], expected);
      EXPECT_EQ(out[36 + c * 6 + p], expected);
    }
  }
}

TEST(EvalPerturbation, InputsRejectBadArguments) {
  const auto rgba = test_image();
  const float map[] = {0, 1, 2, 3, 4, 5};
  const float bad_map[] = {0, 1, 2, 3, NAN, 5};
  const std::array<float, 3> m{0.5f, 0.5f, 0.5f};
  const std::array<float, 3> zero_std{0.5f, 0.0f, 0.5f};
  const auto order = RemovalOrder::most_relevant_first;
  expect_input_error([&] { perturbed_inputs(rgba.data(), 0, 2, map, {0.1}, order, m, m); },
                     "at least 1x1");
  expect_input_error([&] { perturbed_inputs(rgba.data(), 3, -1, map, {0.1}, order, m, m); },
                     "at least 1x1");
  expect_input_error([&] { perturbed_inputs(nullptr, 3, 2, map, {0.1}, order, m, m); }, "no RGBA");
  expect_input_error([&] { perturbed_inputs(rgba.data(), 3, 2, map, {}, order, m, m); },
                     "no fractions");
  expect_input_error(
      [&] {
        perturbed_inputs(rgba.data(), 3, 2, map, {0.1, 1.5}, order, m, m);
      },
      "[0, 1]");
  expect_input_error([&] { perturbed_inputs(rgba.data(), 3, 2, map, {-0.5}, order, m, m); },
                     "[0, 1]");
  expect_input_error([&] { perturbed_inputs(rgba.data(), 3, 2, map, {0.1}, order, m, zero_std); },
                     "std[1]");
  const std::array<float, 3> nan_mean{NAN, 0.5f, 0.5f};
  expect_input_error([&] { perturbed_inputs(rgba.data(), 3, 2, map, {0.1}, order, nan_mean, m); },
                     "mean[0]");
  expect_input_error([&] { perturbed_inputs(rgba.data(), 3, 2, bad_map, {0.1}, order, m, m); },
                     "at index 4");
}

}  // namespace
}  // namespace vitrel
