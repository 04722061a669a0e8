// The four token-mixing methods on hand-computed cases, and the row-vector propagation
// against the naive full-matrix product on random inputs.

#include <gtest/gtest.h>

#include "methods/relevance.h"
#include "support/rollout_reference.h"
#include "support/test_tensors.h"

namespace vitrel {
namespace {

using test::OwnedTensor;

// B=2 blocks, h=2 heads, S=3 tokens: CLS + a 1x2 grid. The per-block matrices X[b]
// (before head mean) are chosen so that, after clamping and the head mean,
//   Xbar[0] = [[0,1,1],[0,0,0],[0,0,1]]    Xbar[1] = [[0,1,0],[1,0,0],[0,2,0]]
// and with the identity added
//   I+Xbar[0] = [[1,1,1],[0,1,0],[0,0,2]]  I+Xbar[1] = [[1,1,0],[1,1,0],[0,2,1]]
// so row 0 of (I+Xbar[1])(I+Xbar[0]) = [1,1,0].(I+Xbar[0]) = [1,2,1].
const TokenLayout kLayout{1, 2, 1};

OwnedTensor signed_blocks() {
  OwnedTensor x({2, 2, 3, 3});
  x.set_row(0, 0, 0, {0, 2, 0});
  x.set_row(0, 1, 0, {0, -4, 2});  // the -4 is clamped away
  x.set_row(0, 1, 2, {0, 0, 2});
  x.set_row(1, 0, 0, {0, 2, 0});
  x.set_row(1, 0, 1, {2, 0, 0});
  x.set_row(1, 0, 2, {0, 4, 0});
  x.set_row(1, 1, 0, {-2, 0, 0});  // clamped away
  return x;
}

OwnedTensor negated(const OwnedTensor& t) {
  OwnedTensor n = t;
  for (float& v : n.data) v = -v;
  return n;
}

std::vector<float> map_of(Method m, const RelevanceInputs& in, MethodOptions options = {}) {
  return compute_relevance(m, in, kLayout, options).data;
}

TEST(TransformerAttribution, ClampsTheProductNotTheFactorsThenRollsOut) {
  // G = -X and R = -1: clamping G or R alone would give zero; G.R = X.
  const OwnedTensor grad = negated(signed_blocks());
  const OwnedTensor rel({2, 2, 3, 3}, -1.f);
  RelevanceInputs in;
  in.attn_grad = grad.view();
  in.attn_rel = rel.view();

  const RelevanceMap map = compute_relevance(Method::TransformerAttribution, in, kLayout);
  EXPECT_EQ(map.rows, 1);
  EXPECT_EQ(map.cols, 2);
  EXPECT_EQ(map.data, (std::vector<float>{2, 1}));
}

TEST(TransformerAttribution, StartLayerDropsTheFirstBlocks) {
  const OwnedTensor grad = negated(signed_blocks());
  const OwnedTensor rel({2, 2, 3, 3}, -1.f);
  RelevanceInputs in;
  in.attn_grad = grad.view();
  in.attn_rel = rel.view();
  // Only I+Xbar[1]: row 0 = [1,1,0].
  EXPECT_EQ(map_of(Method::TransformerAttribution, in, {1, 0}), (std::vector<float>{1, 0}));
}

TEST(TransformerAttribution, RowOfAnyQueryToken) {
  const OwnedTensor grad = negated(signed_blocks());
  const OwnedTensor rel({2, 2, 3, 3}, -1.f);
  RelevanceInputs in;
  in.attn_grad = grad.view();
  in.attn_rel = rel.view();
  // Row 1 of I+Xbar[1] = [1,1,0] -> [1,2,1]; row 2 = [0,2,1] -> 2*[0,1,0] + [0,0,2].
  EXPECT_EQ(relevance_row(Method::TransformerAttribution, in, kLayout, {0, 1}),
            (std::vector<float>{1, 2, 1}));
  EXPECT_EQ(relevance_row(Method::TransformerAttribution, in, kLayout, {0, 2}),
            (std::vector<float>{0, 2, 2}));
  // The map of a patch query is its row's patch columns.
  EXPECT_EQ(map_of(Method::TransformerAttribution, in, {0, 2}), (std::vector<float>{2, 2}));
}

TEST(AblationNoGrad, RollsOutThePositiveRelevance) {
  const OwnedTensor rel = signed_blocks();
  RelevanceInputs in;
  in.attn_rel = rel.view();
  EXPECT_EQ(map_of(Method::AblationNoGrad, in), (std::vector<float>{2, 1}));
  EXPECT_EQ(map_of(Method::AblationNoGrad, in, {1, 0}), (std::vector<float>{1, 0}));
}

TEST(GenericAttention, AccumulatesFromTheFirstBlockAndIgnoresStartLayer) {
  // G = -X, A = -1: (G.A)+ = X+, so P = (I+Xbar[1])(I+Xbar[0]) as above.
  const OwnedTensor grad = negated(signed_blocks());
  const OwnedTensor attention({2, 2, 3, 3}, -1.f);
  RelevanceInputs in;
  in.attn = attention.view();
  in.attn_grad = grad.view();
  EXPECT_EQ(map_of(Method::GenericAttention, in), (std::vector<float>{2, 1}));
  EXPECT_EQ(map_of(Method::GenericAttention, in, {1, 0}), (std::vector<float>{2, 1}));
}

// Attention of the same pattern, non-negative: E_h[A[0]] + I = [[1,1,1],[0,1,0],[0,0,2]]
// normalises to [[1/3,1/3,1/3],[0,1,0],[0,0,1]]; E_h[A[1]] + I = [[1,1,0],[1,1,0],[0,2,1]]
// to [[1/2,1/2,0],[1/2,1/2,0],[0,2/3,1/3]]. Row 0 of the product:
// 1/2 [1/3,1/3,1/3] + 1/2 [0,1,0] = [1/6, 2/3, 1/6].
OwnedTensor positive_attention() {
  OwnedTensor a({2, 2, 3, 3});
  a.set_row(0, 0, 0, {0, 2, 0});
  a.set_row(0, 1, 0, {0, 0, 2});
  a.set_row(0, 1, 2, {0, 0, 2});
  a.set_row(1, 0, 0, {0, 2, 0});
  a.set_row(1, 0, 1, {2, 0, 0});
  a.set_row(1, 0, 2, {0, 4, 0});
  return a;
}

TEST(AttentionRollout, NormalisesEachRowOfMeanPlusIdentity) {
  const OwnedTensor attention = positive_attention();
  RelevanceInputs in;
  in.attn = attention.view();
  const std::vector<float> row = relevance_row(Method::AttentionRollout, in, kLayout);
  ASSERT_EQ(row.size(), 3u);
  EXPECT_FLOAT_EQ(row[0], 1.f / 6);
  EXPECT_FLOAT_EQ(row[1], 2.f / 3);
  EXPECT_FLOAT_EQ(row[2], 1.f / 6);

  const std::vector<float> start1 = map_of(Method::AttentionRollout, in, {1, 0});
  EXPECT_FLOAT_EQ(start1[0], 0.5f);
  EXPECT_FLOAT_EQ(start1[1], 0.f);
}

TEST(AttentionRollout, DoesNotClampNegativeAttention) {
  // One head of -1/2 and one of +1 on column 1: mean 1/4, + I row 0 = [1, 1/4, 0],
  // sum 5/4 -> [4/5, 1/5, 0].
  OwnedTensor a({1, 2, 3, 3});
  a.set_row(0, 0, 0, {0, -0.5f, 0});
  a.set_row(0, 1, 0, {0, 1, 0});
  RelevanceInputs in;
  in.attn = a.view();
  const std::vector<float> map = map_of(Method::AttentionRollout, in);
  EXPECT_FLOAT_EQ(map[0], 0.2f);
  EXPECT_FLOAT_EQ(map[1], 0.f);
}

TEST(Rollouts, TwoSpecialTokensAndANonSquareGrid) {
  // S = 2 + 2x3: the map is columns 2..7 of the row, 2 rows of 3.
  const TokenLayout layout{2, 3, 2};
  const test::RandomModelOutputs model(3, 2, layout, 7);
  const RelevanceInputs in = model.inputs();
  for (Method m : {Method::TransformerAttribution, Method::AttentionRollout, Method::AblationNoGrad,
                   Method::GenericAttention, Method::AttAttr}) {
    const RelevanceMap map = compute_relevance(m, in, layout, {0, 1});
    const std::vector<float> row = relevance_row(m, in, layout, {0, 1});
    EXPECT_EQ(map.rows, 2);
    EXPECT_EQ(map.cols, 3);
    EXPECT_EQ(map.data, std::vector<float>(row.begin() + 2, row.end())) << to_id(m);
  }
}

struct AgreementCase {
  int blocks, heads;
  TokenLayout layout;
  int start_layer, query_token;
};

TEST(Rollouts, RowVectorAgreesWithFullMatrixProductOnRandomInputs) {
  const AgreementCase cases[] = {
      {2, 2, {2, 2, 1}, 0, 0},   {4, 3, {3, 5, 2}, 1, 0}, {6, 4, {7, 7, 1}, 2, 9},
      {12, 3, {4, 4, 1}, 11, 3}, {1, 1, {1, 1, 1}, 0, 1}, {5, 2, {2, 6, 0}, 3, 11},
  };
  unsigned seed = 1;
  for (const AgreementCase& c : cases) {
    const test::RandomModelOutputs model(c.blocks, c.heads, c.layout, seed++);
    const RelevanceInputs in = model.inputs();
    const MethodOptions options{c.start_layer, c.query_token};
    for (Method m : {Method::TransformerAttribution, Method::AttentionRollout,
                     Method::AblationNoGrad, Method::GenericAttention, Method::AttAttr}) {
      const std::vector<float> fast = relevance_row(m, in, c.layout, options);
      const std::vector<float> naive = reference::rollout_row(m, in, options);
      ASSERT_EQ(fast.size(), naive.size());
      EXPECT_LT(test::max_relative_difference(fast, naive), 1e-5)
          << to_id(m) << " B=" << c.blocks << " h=" << c.heads << " S=" << fast.size();
    }
  }
}

TEST(Rollouts, BatchGivesTheSameMapsAsOneMethodAtATime) {
  const TokenLayout layout{3, 4, 1};
  const test::RandomModelOutputs model(4, 3, layout, 42);
  const RelevanceInputs in = model.inputs();
  const MethodOptions options{1, 0};
  const std::vector<RelevanceMap> maps =
      compute_relevance_maps(all_values<Method>(), in, layout, options);
  ASSERT_EQ(maps.size(), all_values<Method>().size());
  for (size_t i = 0; i < maps.size(); ++i) {
    const RelevanceMap one = compute_relevance(all_values<Method>()[i], in, layout, options);
    EXPECT_EQ(maps[i].rows, one.rows);
    EXPECT_EQ(maps[i].cols, one.cols);
    EXPECT_EQ(maps[i].data, one.data) << to_id(all_values<Method>()[i]);
  }
}

}  // namespace
}  // namespace vitrel
