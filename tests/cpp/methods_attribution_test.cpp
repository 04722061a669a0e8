// Self-Attention Attribution's summaries (src/methods/attribution.h) and the attattr
// rollout, on small tensors worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "methods/attribution.h"
#include "methods/relevance.h"

namespace vitrel {
namespace {

TensorView view(const std::vector<float>& v, std::vector<int64_t> shape) {
  return {v.data(), shape};
}

TEST(HeadImportance, MaxOverEveryLinkPerHead) {
  // B=2, h=2, S=2: heads in (block, head) order
  const std::vector<float> attr = {1, -2, 3, 0, -5, -1, -3, -2, 0, 0, 0, 0.5f, 7, 1, 2, 3};
  EXPECT_EQ(head_importance(view(attr, {2, 2, 2, 2})), (std::vector<float>{3, -1, 0.5f, 7}));
}

TEST(HeadImportance, RejectsBadShapesAndValues) {
  const std::vector<float> a(8, 1.f);
  EXPECT_THROW(head_importance(view(a, {2, 2, 2})), InputError);
  EXPECT_THROW(head_importance(view(a, {1, 2, 1, 4})), InputError);
  std::vector<float> nan = a;
  nan[3] = NAN;
  EXPECT_THROW(head_importance(view(nan, {1, 2, 2, 2})), InputError);
}

TEST(TaylorImportance, AbsoluteSumOfAttentionTimesGradientPerHead) {
  // B=1, h=2, S=2: head 0: 1*2 + 0*5 + 0.5*(-4) + 0.5*(-2) = -1 -> 1; head 1: 0.25*4*4 = 4
  const std::vector<float> attn = {1, 0, 0.5f, 0.5f, 0.25f, 0.25f, 0.25f, 0.25f};
  const std::vector<float> grad = {2, 5, -4, -2, 4, 4, 4, 4};
  EXPECT_EQ(taylor_importance(view(attn, {1, 2, 2, 2}), view(grad, {1, 2, 2, 2})),
            (std::vector<float>{1, 4}));
}

TEST(TaylorImportance, RejectsMismatchedOrBadTensors) {
  const std::vector<float> a(8, 1.f);
  EXPECT_THROW(taylor_importance(view(a, {1, 2, 2, 2}), view(a, {2, 1, 2, 2})), InputError);
  std::vector<float> inf = a;
  inf[0] = INFINITY;
  EXPECT_THROW(taylor_importance(view(a, {1, 2, 2, 2}), view(inf, {1, 2, 2, 2})), InputError);
}

// One head per block, S = 3 tokens, so T[b] = Attr[b].
std::vector<float> blocks3(std::initializer_list<std::vector<float>> per_block) {
  std::vector<float> out;
  for (const auto& b : per_block) out.insert(out.end(), b.begin(), b.end());
  return out;
}

TEST(AttributionTree, TopNodeAndTheSecondToLastBlock) {
  // Σ_b T: row 1 = [0, 1+1+0, 2+0+0] → off-diagonal positive sum 2 (col 2);
  // row 2 = [0, 1+4+0, 0] → 5: the top node is token 2.
  // Block 1 (B-2) normalised by max(rows 1..) = 4: row 2 = [0, 1, 0] > 0.4 → edge 2→1.
  // Block 0 (max 2): row 1 = [0, .5, 1] → 1 is a leaf, 2 is fixed: no edge (fixed j);
  // 1's link to itself: j = 1 is a leaf (skipped).
  const std::vector<float> attr =
      blocks3({{9, 9, 9, 0, 1, 2, 0, 1, 0},    // block 0
               {9, 9, 9, 0, 1, 0, 0, 4, 0},    // block 1
               {9, 9, 9, 0, 0, 0, 0, 0, 0}});  // block 2 (only in the top-node sum)
  const AttributionTree tree = attribution_tree(view(attr, {3, 1, 3, 3}));
  EXPECT_EQ(tree.top, 2);
  EXPECT_EQ(tree.edges, (std::vector<TreeEdge>{{2, 1, 1}}));
  EXPECT_EQ(tree.nodes, (std::vector<int>{1, 2}));
}

TEST(AttributionTree, PrefixRowsFollowTheSpecialTokenCount) {
  // The first test's tensor. With no prefix token (special_tokens 0, e.g. an avg-pool
  // model without CLS) row 0 is a patch: Σ_b row 0 = [27, 27, 27], off-diagonal 54, the top
  // node is 0; block 1 over its max 9 has row 0 = [1, 1, 1] → edges 0→1 and 0→2; in block 0
  // both are leaves already. With 2 (cls + dist) only row 2 counts, as with 1 here.
  const std::vector<float> attr = blocks3(
      {{9, 9, 9, 0, 1, 2, 0, 1, 0}, {9, 9, 9, 0, 1, 0, 0, 4, 0}, {9, 9, 9, 0, 0, 0, 0, 0, 0}});
  const AttributionTree none = attribution_tree(view(attr, {3, 1, 3, 3}), kTreeThreshold, 0);
  EXPECT_EQ(none.top, 0);
  EXPECT_EQ(none.edges, (std::vector<TreeEdge>{{0, 1, 1}, {0, 2, 1}}));
  EXPECT_EQ(none.nodes, (std::vector<int>{0, 1, 2}));
  const AttributionTree two = attribution_tree(view(attr, {3, 1, 3, 3}), kTreeThreshold, 2);
  EXPECT_EQ(two.top, 2);
  EXPECT_EQ(two.edges, (std::vector<TreeEdge>{{2, 1, 1}}));
  try {
    attribution_tree(view(attr, {3, 1, 3, 3}), kTreeThreshold, 3);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "attribution tree: special_tokens 3 is out of range [0,3) for 3 tokens");
  }
}

TEST(AttributionTree, LowerBlocksGrowFromLeavesAndReachTokenZero) {
  // S = 3, B = 3. Top: row 1 sums 4 (cols 0, 2), row 2 sums 1 → top 1.
  // Block 1: row 1 / max 2 = [1, .5, 0] → edge 1→0 (0.5 > 0.4), 0 a leaf.
  // Block 0: row 1 = [0, 0, 1] (max 1): 1 is fixed, 2 new → edge 1→2;
  //          row 2 = [1, 0, 0]: 2 is a leaf now, 0 a leaf → skipped.
  const std::vector<float> attr = blocks3(
      {{0, 0, 0, 0, 0, 1, 1, 0, 0}, {0, 0, 0, 2, 1, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 1, 0, 0, 0}});
  const AttributionTree tree = attribution_tree(view(attr, {3, 1, 3, 3}));
  EXPECT_EQ(tree.top, 1);
  EXPECT_EQ(tree.edges, (std::vector<TreeEdge>{{1, 0, 1}, {1, 2, 0}}));
  EXPECT_EQ(tree.nodes, (std::vector<int>{0, 1, 2}));
}

TEST(AttributionTree, ThresholdIsStrictAndHeadsAreSummed) {
  // B = 2 (the top's edges come from block 0), two heads: block 0 row 1 = [0, 0, .5],
  // row 2 = [0, 0, 1] (the max). Top: Σ_b row 1 = [0, 0, 1.5]; row 2's only entry is
  // diagonal → top 1. With τ = 0.4 the edge 1→2 is kept, with τ = 0.5 (= the value) not.
  const std::vector<float> attr = {0, 0, 0, 0, 0, 0.25f, 0, 0, 0.5f,  // b0 h0
                                   0, 0, 0, 0, 0, 0.25f, 0, 0, 0.5f,  // b0 h1
                                   0, 0, 0, 0, 0, 1,     0, 0, 0,     // b1 h0
                                   0, 0, 0, 0, 0, 0,     0, 0, 0};    // b1 h1
  const AttributionTree tree = attribution_tree(view(attr, {2, 2, 3, 3}));
  EXPECT_EQ(tree.top, 1);
  EXPECT_EQ(tree.edges, (std::vector<TreeEdge>{{1, 2, 0}}));
  const AttributionTree strict = attribution_tree(view(attr, {2, 2, 3, 3}), 0.5f);
  EXPECT_TRUE(strict.edges.empty());
  EXPECT_EQ(strict.nodes, (std::vector<int>{1}));
}

TEST(AttributionTree, RejectsTooFewBlocksAndBadThresholds) {
  const std::vector<float> one(9, 1.f);
  EXPECT_THROW(attribution_tree(view(one, {1, 1, 3, 3})), InputError);
  const std::vector<float> two(18, 1.f);
  EXPECT_THROW(attribution_tree(view(two, {2, 1, 3, 3}), 0.f), InputError);
  EXPECT_THROW(attribution_tree(view(two, {2, 1, 3, 3}), NAN), InputError);
}

TEST(AttAttr, RollsOutThePositiveAttributionFromStartLayer) {
  // B = 2, h = 1, S = 2 (CLS + 1 patch). Ā[b] = Attr[b]⁺ + I.
  // Ā1 = [[1, 2], [0, 1]] (the -3 clamped); Ā0 = [[2, 0], [1, 1]].
  // row 0 of Ā1·Ā0 = [1·2 + 2·1, 0 + 2·1] = [4, 2] → map [2]; start_layer 1: Ā1 row 0 → [2].
  const std::vector<float> attr = {1, 0, 1, 0, 0, 2, -3, 0};
  RelevanceInputs in;
  in.attr = view(attr, {2, 1, 2, 2});
  const TokenLayout layout{1, 1, 1};
  EXPECT_EQ(compute_relevance(Method::AttAttr, in, layout).data, (std::vector<float>{2}));
  const std::vector<float> attr2 = {1, 0, 1, 0, 0, 5, -3, 0};
  in.attr = view(attr2, {2, 1, 2, 2});
  EXPECT_EQ(compute_relevance(Method::AttAttr, in, layout).data, (std::vector<float>{5}));
  EXPECT_EQ(relevance_row(Method::AttAttr, in, layout), (std::vector<float>{7, 5}));
  EXPECT_EQ(compute_relevance(Method::AttAttr, in, layout, {1, 0}).data, (std::vector<float>{5}));
  EXPECT_STREQ(to_id(Method::AttAttr), "attattr");
  EXPECT_FALSE(has_inputs_for(Method::AttAttr, RelevanceInputs{}));
}

}  // namespace
}  // namespace vitrel
