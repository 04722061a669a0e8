// PIL-compatibility of the resize and of the whole preprocessing, against outputs of
// PIL's Image.resize and a torchvision-style pipeline (tests/reference/resize_references.py).
//
// resize.txt:   name w h out_w out_h interpolation rgba_file rgb_file
// pipeline.txt: name w h rgba_file resize_mode size0 size1 crop crop_w crop_h
//               interpolation mean*3 std*3 passthrough out_w out_h chw_file

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "../reference/reference_data.h"
#include "preprocess/pil_resize.h"
#include "preprocess/preprocess.h"

namespace vitrel {
namespace {

using vitrel_test::read_manifest;
using vitrel_test::read_raw;

TEST(PilResizeReference, MatchesPilWithinOneAndMostlyExactly) {
  size_t total = 0, exact = 0;
  int worst = 0;
  for (const auto& f : read_manifest("resize")) {
    SCOPED_TRACE(f[0]);
    const int w = std::stoi(f[1]), h = std::stoi(f[2]);
    const int ow = std::stoi(f[3]), oh = std::stoi(f[4]);
    const auto rgba = read_raw<uint8_t>(f[6], size_t(w) * h * 4);
    const auto expected = read_raw<uint8_t>(f[7], size_t(ow) * oh * 3);
    const auto got =
        pil_resize_rgb(rgba.data(), rgba.size(), w, h, ow, oh, from_id<Interpolation>(f[5]));
    ASSERT_EQ(got.size(), expected.size());
    int case_worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const int d = std::abs(int(got[i]) - int(expected[i]));
      case_worst = std::max(case_worst, d);
      exact += d == 0;
    }
    total += got.size();
    worst = std::max(worst, case_worst);
    EXPECT_LE(case_worst, 1);
  }
  std::printf("PIL resize: %zu of %zu values exact, max |diff| %d\n", exact, total, worst);
  EXPECT_GE(double(exact) / double(total), 0.999);
}

PreprocessSpec spec_of(const vitrel_test::ManifestLine& f) {
  PreprocessSpec spec;
  spec.resize_mode = from_id<ResizeMode>(f[4]);
  spec.resize_size = std::stoi(f[5]);
  if (spec.resize_mode == ResizeMode::Exact) {
    spec.resize_width = std::stoi(f[5]);
    spec.resize_height = std::stoi(f[6]);
  }
  spec.center_crop = f[7] == "1";
  spec.crop_width = std::stoi(f[8]);
  spec.crop_height = std::stoi(f[9]);
  spec.interpolation = from_id<Interpolation>(f[10]);
  spec.mean = {std::stof(f[11]), std::stof(f[12]), std::stof(f[13])};
  spec.stddev = {std::stof(f[14]), std::stof(f[15]), std::stof(f[16])};
  spec.exact_size_passthrough = f[17] == "1";
  return spec;
}

TEST(PreprocessReference, MatchesTorchvisionPipelineAndGoldenInput) {
  size_t total = 0, exact = 0;
  for (const auto& f : read_manifest("pipeline")) {
    SCOPED_TRACE(f[0]);
    const int w = std::stoi(f[1]), h = std::stoi(f[2]);
    const int ow = std::stoi(f[18]), oh = std::stoi(f[19]);
    const auto rgba = read_raw<uint8_t>(f[3], size_t(w) * h * 4);
    const auto expected = read_raw<float>(f[20], size_t(3) * ow * oh);
    // The "no crop" lines are made with with_crop_mode from DeiT's spec, the core's one way
    // to that framing.
    const bool no_crop =
        f[0].size() > 12 && f[0].compare(f[0].size() - 12, 12, "_deit_nocrop") == 0;
    const PreprocessSpec spec =
        no_crop ? with_crop_mode(PreprocessSpec{}, CropMode::None) : spec_of(f);
    if (no_crop) {
      EXPECT_EQ(f[4], "exact");
      EXPECT_EQ(spec.resize_width, std::stoi(f[5]));
      EXPECT_EQ(spec.resize_height, std::stoi(f[6]));
      EXPECT_EQ(f[7], "0");
    }
    const PreprocessedImage got = preprocess_image(rgba.data(), rgba.size(), w, h, spec);
    ASSERT_EQ(got.width, ow);
    ASSERT_EQ(got.height, oh);
    ASSERT_EQ(got.chw.size(), expected.size());
    // One uint8 step, normalised, is 1/(255 * std); allow that, count exact matches.
    const float step = 1.0f / (255.0f * *std::min_element(spec.stddev.begin(), spec.stddev.end()));
    float worst = 0.0f;
    for (size_t i = 0; i < got.chw.size(); ++i) {
      const float d = std::fabs(got.chw[i] - expected[i]);
      worst = std::max(worst, d);
      exact += d <= 1e-6f;
    }
    total += got.chw.size();
    EXPECT_LE(worst, step * 1.001f);
    if (f[0] == "catdog_golden" || f[0].find("catdog_deit") == 0) {
      EXPECT_TRUE(got.passthrough);
      EXPECT_LE(worst, 1e-6f);  // the golden input is a pure normalisation
    }
  }
  std::printf("Pipeline: %zu of %zu values exact\n", exact, total);
  EXPECT_GE(double(exact) / double(total), 0.999);
}

}  // namespace
}  // namespace vitrel
