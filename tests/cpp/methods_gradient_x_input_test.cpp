// AttnLRP and CP-LRP (their signed pixel maps, computed by the graph, as given) and the
// patch map of a pixel map, on hand-computed cases; their errors.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "methods/contrast.h"
#include "methods/patch_sum.h"
#include "methods/relevance.h"
#include "support/test_tensors.h"

namespace vitrel {
namespace {

using test::OwnedTensor;

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// A signed 4x6 map: value 10 * row + col, negated on odd columns.
OwnedTensor signed_pixels() {
  OwnedTensor x({4, 6});
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) x.data[r * 6 + c] = float(10 * r + c) * (c % 2 ? -1.f : 1.f);
  return x;
}

TEST(GradientXInput, EachMethodReadsItsOwnPixelTensorSignedAndUnchanged) {
  const OwnedTensor a = signed_pixels(), c({4, 6}, 0.5f);
  RelevanceInputs in;
  in.input_rel_attnlrp = a.view();
  in.input_rel_cp_lrp = c.view();
  // The layout is irrelevant to a pixel map, even an unset one.
  const std::vector<RelevanceMap> maps =
      compute_relevance_maps({Method::AttnLrp, Method::CpLrp}, in, TokenLayout{});
  EXPECT_EQ(maps[0].rows, 4);
  EXPECT_EQ(maps[0].cols, 6);
  EXPECT_EQ(maps[0].data, a.data);
  EXPECT_EQ(maps[1].data, c.data);
}

TEST(GradientXInput, IsAMapWithoutATokenRowAndCanContrast) {
  for (Method m : {Method::AttnLrp, Method::CpLrp}) {
    EXPECT_EQ(method_info(m).form, MethodForm::Map) << to_id(m);
    EXPECT_FALSE(method_info(m).start_layer) << to_id(m);
    EXPECT_TRUE(can_contrast(m)) << to_id(m);
  }
  EXPECT_STREQ(to_id(Method::AttnLrp), "attnlrp");
  EXPECT_STREQ(to_id(Method::CpLrp), "cp_lrp");
}

TEST(GradientXInput, Errors) {
  RelevanceInputs in;
  const OwnedTensor c({4, 6});
  in.input_rel_cp_lrp = c.view();
  EXPECT_EQ(error_of([&] { compute_relevance(Method::AttnLrp, in, TokenLayout{}); }),
            "attnlrp: needs input_rel_attnlrp, which is missing");
  EXPECT_FALSE(has_inputs_for(Method::AttnLrp, in));
  EXPECT_TRUE(has_inputs_for(Method::CpLrp, in));

  const OwnedTensor three({1, 4, 6});
  in.input_rel_attnlrp = three.view();
  EXPECT_EQ(error_of([&] { compute_relevance(Method::AttnLrp, in, TokenLayout{}); }),
            "input_rel_attnlrp: expected shape [?,?], got [1,4,6]");

  OwnedTensor bad = signed_pixels();
  bad.data[7] = std::numeric_limits<float>::quiet_NaN();
  in.input_rel_cp_lrp = bad.view();
  EXPECT_EQ(error_of([&] { compute_relevance(Method::CpLrp, in, TokenLayout{}); }),
            "input_rel_cp_lrp: non-finite value NaN at flat index 7 of [4,6]");
}

TEST(PatchSum, SumsEachPatchSignedRowMajor) {
  const OwnedTensor x = signed_pixels();
  // 2x3 patches of 2x2 pixels: patch (r, q) sums rows 2r, 2r+1 and columns 2q, 2q+1.
  // Row y, columns 2q and 2q+1 give (10y + 2q) - (10y + 2q + 1) = -1: each patch -2.
  const RelevanceMap patches = patch_sum(RelevanceMap{4, 6, x.data}, 2, 3);
  EXPECT_EQ(patches.rows, 2);
  EXPECT_EQ(patches.cols, 3);
  EXPECT_EQ(patches.data, (std::vector<float>(6, -2.f)));
  // 1x2 patches of 4x3: row y gives 10y + 1 on columns 0..2 (10y - (10y+1) + (10y+2)) and
  // -10y - 4 on columns 3..5, so the halves are 64 and -76.
  EXPECT_EQ(patch_sum(RelevanceMap{4, 6, x.data}, 1, 2).data, (std::vector<float>{64, -76}));
  // Conservative: one patch holds all the relevance of the pixels.
  EXPECT_EQ(patch_sum(RelevanceMap{4, 6, x.data}, 1, 1).data, (std::vector<float>{-12}));
}

TEST(PatchSum, Errors) {
  const OwnedTensor x = signed_pixels();
  EXPECT_EQ(error_of([&] {
              patch_sum(RelevanceMap{4, 6, x.data}, 3, 3);
            }),
            "patch_sum: the grid 3x3 does not divide the pixel map 4x6");
  EXPECT_EQ(error_of([&] {
              patch_sum(RelevanceMap{4, 6, x.data}, 0, 3);
            }),
            "patch_sum: the grid 0x3 does not divide the pixel map 4x6");
  EXPECT_EQ(error_of([&] {
              patch_sum(RelevanceMap{4, 5, x.data}, 1, 1);
            }),
            "patch_sum: the pixel map 4x5 is empty or not rows x cols values");
  const float big = std::numeric_limits<float>::max();
  EXPECT_EQ(error_of([&] {
              patch_sum(RelevanceMap{1, 2, {big, big}}, 1, 1);
            }),
            "patch_sum: patch 0 sums to beyond float32 range (is the pixel map finite?)");
}

}  // namespace
}  // namespace vitrel
