// The methods that read one block (raw attention, GradCAM, partial LRP, the two
// gradient x relevance ablations) and the lrp_full pass-through, on hand-computed cases.

#include <gtest/gtest.h>

#include "methods/relevance.h"
#include "support/test_tensors.h"

namespace vitrel {
namespace {

using test::OwnedTensor;

// S = 5: CLS + a 2x2 grid.
const TokenLayout kGrid2x2{2, 2, 1};

TEST(RawAttention, ClampsThenAveragesTheHeadsOfTheLastBlock) {
  OwnedTensor a({2, 2, 5, 5});
  a.set_row(0, 0, 0, {9, 9, 9, 9, 9});  // block 0 is ignored
  a.set_row(1, 0, 0, {0.5f, 0.2f, -0.4f, 0.6f, 0.f});
  a.set_row(1, 1, 0, {0.1f, 0.4f, 0.2f, -0.2f, 0.8f});
  RelevanceInputs in;
  in.attn = a.view();
  const RelevanceMap map = compute_relevance(Method::RawAttention, in, kGrid2x2);
  EXPECT_EQ(map.rows, 2);
  EXPECT_EQ(map.cols, 2);
  const std::vector<float> expected{0.3f, 0.1f, 0.3f, 0.4f};
  for (size_t j = 0; j < 4; ++j) EXPECT_FLOAT_EQ(map.data[j], expected[j]);
}

TEST(RawAttention, QueryTokenSelectsTheRow) {
  OwnedTensor a({1, 1, 5, 5});
  a.set_row(0, 0, 3, {1, 2, 3, 4, 5});
  RelevanceInputs in;
  in.attn = a.view();
  EXPECT_EQ(compute_relevance(Method::RawAttention, in, kGrid2x2, {0, 3}).data,
            (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(relevance_row(Method::RawAttention, in, kGrid2x2, {0, 3}),
            (std::vector<float>{1, 2, 3, 4, 5}));
}

TEST(GradCam, WeightsHeadsByMeanPatchGradientClampsAndMinMaxes) {
  // w0 = mean(1,1,1,1) = 1, w1 = mean(-2,0,0,-2) = -1. (A0 w0 + A1 w1)/2 =
  // ([.1,.2,.3,.4] - [.4,.1,.1,.1])/2 = [-.15,.05,.1,.15] -> clamp -> /0.15.
  // The CLS column of G (100) is not part of the patch mean.
  OwnedTensor a({1, 2, 5, 5}), g({1, 2, 5, 5});
  a.set_row(0, 0, 0, {0.9f, 0.1f, 0.2f, 0.3f, 0.4f});
  a.set_row(0, 1, 0, {0.9f, 0.4f, 0.1f, 0.1f, 0.1f});
  g.set_row(0, 0, 0, {100, 1, 1, 1, 1});
  g.set_row(0, 1, 0, {100, -2, 0, 0, -2});
  RelevanceInputs in;
  in.attn = a.view();
  in.attn_grad = g.view();
  const RelevanceMap map = compute_relevance(Method::GradCam, in, kGrid2x2);
  EXPECT_EQ(map.rows, 2);
  EXPECT_EQ(map.cols, 2);
  const std::vector<float> expected{0.f, 1.f / 3, 2.f / 3, 1.f};
  for (size_t j = 0; j < 4; ++j) EXPECT_NEAR(map.data[j], expected[j], 1e-6);
}

TEST(GradCam, ConstantMapGivesZerosWhereTheReferenceGivesNaN) {
  // Every weight negative: the clamped map is all 0, max == min.
  OwnedTensor a({1, 2, 5, 5}, 0.2f), g({1, 2, 5, 5}, -1.f);
  RelevanceInputs in;
  in.attn = a.view();
  in.attn_grad = g.view();
  EXPECT_EQ(compute_relevance(Method::GradCam, in, kGrid2x2).data, std::vector<float>(4, 0.f));
}

TEST(PartialLrp, ClampsThenAveragesTheClassicRelevance) {
  OwnedTensor rc({2, 5, 5});
  rc.set_row(-1, 0, 0, {5, -1, 2, 4, 0});
  rc.set_row(-1, 1, 0, {5, 3, -2, 0, 6});
  RelevanceInputs in;
  in.attn_rel_classic_last = rc.view();
  EXPECT_EQ(compute_relevance(Method::PartialLrp, in, kGrid2x2).data,
            (std::vector<float>{1.5f, 1, 2, 3}));
}

// G and R of 3 blocks where only the product's sign survives the clamp.
struct GradRel {
  OwnedTensor grad{{3, 2, 5, 5}}, rel{{3, 2, 5, 5}};
  GradRel() {
    for (int b = 0; b < 3; ++b) {
      const float s = static_cast<float>(b + 1);
      grad.set_row(b, 0, 0, {1, -1, 2, -2, 1});
      rel.set_row(b, 0, 0, {s, -s, -s, -s, 0});  // products s, s, -2s, 2s, 0
      grad.set_row(b, 1, 0, {1, 1, 1, 1, 1});
      rel.set_row(b, 1, 0, {s, s, s, -s, -s});  // products s, s, s, -s, -s
    }
  }
  RelevanceInputs inputs() const {
    RelevanceInputs in;
    in.attn_grad = grad.view();
    in.attn_rel = rel.view();
    return in;
  }
};

TEST(AblationLastBlock, ClampsTheProductOfTheLastBlock) {
  const GradRel gr;
  // Block 2 (s = 3): heads give [3,-6,6,0] and [3,3,-3,-3] on the patches, clamped:
  // mean = [3, 1.5, 3, 0].
  EXPECT_EQ(compute_relevance(Method::AblationLastBlock, gr.inputs(), kGrid2x2).data,
            (std::vector<float>{3, 1.5f, 3, 0}));
}

TEST(AblationSecondBlock, UsesBlockIndexOne) {
  const GradRel gr;
  // Block 1 (s = 2): [2, 1, 2, 0].
  EXPECT_EQ(compute_relevance(Method::AblationSecondBlock, gr.inputs(), kGrid2x2).data,
            (std::vector<float>{2, 1, 2, 0}));
  EXPECT_EQ(relevance_row(Method::AblationSecondBlock, gr.inputs(), kGrid2x2),
            (std::vector<float>{2, 2, 1, 2, 0}));
}

TEST(LrpFull, ReturnsTheInputRelevanceUnchangedWithItsOwnShape) {
  OwnedTensor x({3, 5});
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = (i % 2 ? -1e9f : 3e9f) * float(i);
  RelevanceInputs in;
  in.input_rel_classic = x.view();
  // The layout is irrelevant to the pixel map, even an unset one.
  const RelevanceMap map = compute_relevance(Method::LrpFull, in, TokenLayout{});
  EXPECT_EQ(map.rows, 3);
  EXPECT_EQ(map.cols, 5);
  EXPECT_EQ(map.data, x.data);
}

TEST(SingleBlockMethods, NonSquareGridWithTwoSpecialTokens) {
  const TokenLayout layout{3, 2, 2};  // S = 8
  const test::RandomModelOutputs model(2, 3, layout, 5);
  const RelevanceInputs in = model.inputs();
  for (Method m : {Method::RawAttention, Method::PartialLrp, Method::AblationLastBlock,
                   Method::AblationSecondBlock}) {
    const RelevanceMap map = compute_relevance(m, in, layout, {0, 4});
    const std::vector<float> row = relevance_row(m, in, layout, {0, 4});
    EXPECT_EQ(map.rows, 3);
    EXPECT_EQ(map.cols, 2);
    EXPECT_EQ(map.data, std::vector<float>(row.begin() + 2, row.end())) << to_id(m);
  }
  const RelevanceMap gradcam = compute_relevance(Method::GradCam, in, layout);
  EXPECT_EQ(gradcam.data.size(), 6u);
}

}  // namespace
}  // namespace vitrel
