// The pools (relevance.h, docs/layouts.md): each pool's readout weights worked by hand,
// every rollout and one-block method on each pool against the naive full-matrix product
// and against the readout's weighted sum of single-token rows, Grad-CAM's pooled head
// weights worked by hand, and the errors for a pool the layout cannot have.

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "methods/relevance.h"
#include "support/rollout_reference.h"
#include "support/test_tensors.h"

namespace vitrel {
namespace {

using test::OwnedTensor;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

MethodOptions pooled(Pool pool, int start_layer = 0) { return {start_layer, kReadout, pool}; }

// Two prefix tokens (e.g. cls + dist, or cls + one register) and a 2x2 grid: S = 6.
const TokenLayout kTwoPrefix{2, 2, 2};

TEST(Pools, ReadoutWeightsByHand) {
  using V = std::vector<float>;
  EXPECT_EQ(readout_weights(kTwoPrefix, pooled(Pool::Cls)), (V{1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(readout_weights(kTwoPrefix, pooled(Pool::ClsDist)), (V{.5f, .5f, 0, 0, 0, 0}));
  EXPECT_EQ(readout_weights(kTwoPrefix, pooled(Pool::Avg)), (V{0, 0, .25f, .25f, .25f, .25f}));
  const float sixth = 1.f / 6.f;
  EXPECT_EQ(readout_weights(kTwoPrefix, pooled(Pool::AvgPrefix)),
            (V{sixth, sixth, sixth, sixth, sixth, sixth}));
  EXPECT_EQ(readout_weights(kTwoPrefix, pooled(Pool::ClsAvg)),
            (V{.5f, 0, .125f, .125f, .125f, .125f}));
  // No prefix token at all (timm class_token=False, global_pool avg): the patch mean.
  EXPECT_EQ(readout_weights({1, 2, 0}, pooled(Pool::Avg)), (V{.5f, .5f}));
  // A token's own row ignores the pool.
  EXPECT_EQ(readout_weights(kTwoPrefix, {0, 3, Pool::Avg}), (V{0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(readout_weights({1, 2, 0}, {0, 1, Pool::Cls}), (V{0, 1}));
}

TEST(Pools, PoolIdsRoundTrip) {
  for (Pool p : all_values<Pool>()) EXPECT_EQ(from_id<Pool>(to_id(p)), p);
  EXPECT_EQ(error_of([] { from_id<Pool>("gap"); }),
            "pool: unknown id \"gap\" (valid: cls, cls+dist, avg, avg+prefix, cls+avg)");
}

TEST(Pools, APoolTheLayoutCannotHaveIsAnError) {
  const test::RandomModelOutputs model(2, 2, {2, 2, 0}, 3);
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::RawAttention, model.inputs(), {2, 2, 0}, pooled(Pool::Cls));
            }),
            "options: pool cls reads token 0 (cls), but the layout has 0 special tokens");
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::GradCam, model.inputs(), {2, 2, 0}, pooled(Pool::ClsAvg));
            }),
            "options: pool cls+avg reads token 0 (cls), but the layout has 0 special tokens");
  const test::RandomModelOutputs one(2, 2, {2, 2, 1}, 3);
  EXPECT_EQ(
      error_of([&] {
        compute_relevance(Method::AttentionRollout, one.inputs(), {2, 2, 1}, pooled(Pool::ClsDist));
      }),
      "options: pool cls+dist reads tokens 0 and 1 (cls and dist), but the layout has 1 "
      "special token");
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::RawAttention, one.inputs(), {2, 2, 1},
                                pooled(static_cast<Pool>(9)));
            }),
            "pool: unknown value 9");
}

struct PoolCase {
  int blocks, heads;
  TokenLayout layout;
  Pool pool;
  int start_layer;
};

const PoolCase kPoolCases[] = {
    {2, 2, {2, 2, 1}, Pool::Cls, 0},       {4, 3, {3, 5, 2}, Pool::ClsDist, 1},
    {3, 2, {2, 3, 0}, Pool::Avg, 0},       {5, 2, {3, 2, 5}, Pool::Avg, 2},
    {3, 4, {2, 4, 1}, Pool::AvgPrefix, 1}, {4, 2, {3, 3, 5}, Pool::ClsAvg, 0},
};

TEST(Pools, RolloutsAgreeWithTheReadoutTimesTheFullMatrixProduct) {
  unsigned seed = 11;
  for (const PoolCase& c : kPoolCases) {
    const test::RandomModelOutputs model(c.blocks, c.heads, c.layout, seed++);
    const RelevanceInputs in = model.inputs();
    const MethodOptions options = pooled(c.pool, c.start_layer);
    const std::vector<float> r = readout_weights(c.layout, options);
    for (Method m : {Method::TransformerAttribution, Method::AttentionRollout,
                     Method::AblationNoGrad, Method::GenericAttention, Method::AttAttr}) {
      const std::vector<float> fast = relevance_row(m, in, c.layout, options);
      const std::vector<float> naive = reference::rollout_readout_row(m, in, options, r);
      EXPECT_LT(test::max_relative_difference(fast, naive), 1e-5)
          << to_id(m) << " pool " << to_id(c.pool);
      // The map is the row's patch columns: every prefix token is left out.
      const RelevanceMap map = compute_relevance(m, in, c.layout, options);
      EXPECT_EQ(map.rows, c.layout.grid_rows);
      EXPECT_EQ(map.cols, c.layout.grid_cols);
      EXPECT_EQ(map.data, std::vector<float>(fast.begin() + c.layout.special_tokens, fast.end()))
          << to_id(m) << " pool " << to_id(c.pool);
    }
  }
}

// Every token-row method is linear in its readout: the pooled map is the readout's
// weighted sum of the single-token maps.
TEST(Pools, TokenRowMethodsAreTheReadoutsWeightedSumOfTokenRows) {
  unsigned seed = 29;
  for (const PoolCase& c : kPoolCases) {
    const test::RandomModelOutputs model(c.blocks, c.heads, c.layout, seed++);
    const RelevanceInputs in = model.inputs();
    const MethodOptions options = pooled(c.pool, c.start_layer);
    const std::vector<float> r = readout_weights(c.layout, options);
    for (Method m : all_values<Method>()) {
      if (method_info(m).form == MethodForm::Map) continue;
      if (c.blocks < method_info(m).min_blocks) continue;
      std::vector<float> sum(r.size(), 0.f);
      for (int q = 0; q < static_cast<int>(r.size()); ++q) {
        if (r[q] == 0.f) continue;
        const std::vector<float> row = relevance_row(m, in, c.layout, {c.start_layer, q, c.pool});
        for (size_t j = 0; j < sum.size(); ++j) sum[j] += r[q] * row[j];
      }
      EXPECT_LT(test::max_relative_difference(relevance_row(m, in, c.layout, options), sum), 1e-5)
          << to_id(m) << " pool " << to_id(c.pool);
    }
  }
}

TEST(Pools, ClsPoolIsTokenZerosRow) {
  const TokenLayout layout{3, 4, 2};
  const test::RandomModelOutputs model(3, 2, layout, 5);
  const std::vector<Method> methods = all_values<Method>();
  const auto by_pool = compute_relevance_maps(methods, model.inputs(), layout, pooled(Pool::Cls));
  const auto by_token = compute_relevance_maps(methods, model.inputs(), layout, {0, 0, Pool::Avg});
  for (size_t i = 0; i < methods.size(); ++i)
    EXPECT_EQ(by_pool[i].data, by_token[i].data) << to_id(methods[i]);
}

// Grad-CAM, 1 block, 2 heads, cls + dist + a 1x3 grid (S = 5); pool cls+dist reads
// r = (e_0 + e_1) / 2. The patch columns of rows 0 and 1:
//   head 0: A0 = [.2,.4,.4], A1 = [.6,.2,0]  -> r A = [.4,.3,.2]
//           G0 = [1,1,1],    G1 = [3,0,0]    -> r G = [2,.5,.5], weight = mean = 1
//   head 1: A0 = A1 = [0,0,.6]               -> r A = [0,0,.6]
//           G0 = G1 = [-1,-1,-1]             -> weight -1
//   map = (1 [.4,.3,.2] - 1 [0,0,.6]) / 2 = [.2,.15,-.2] -> clamp [.2,.15,0] -> min-max [1,.75,0]
// Token 0 alone (pool cls) gives ([.2,.4,.4] - [0,0,.6]) / 2 = [.1,.2,-.1] -> [.5,1,0].
TEST(Pools, GradCamWeighsTheReadoutsRowsByHand) {
  const TokenLayout layout{1, 3, 2};
  OwnedTensor A({1, 2, 5, 5}), G({1, 2, 5, 5});
  A.set_row(0, 0, 0, {0, 0, .2f, .4f, .4f});
  A.set_row(0, 0, 1, {0, 0, .6f, .2f, 0});
  G.set_row(0, 0, 0, {0, 0, 1, 1, 1});
  G.set_row(0, 0, 1, {0, 0, 3, 0, 0});
  A.set_row(0, 1, 0, {0, 0, 0, 0, .6f});
  A.set_row(0, 1, 1, {0, 0, 0, 0, .6f});
  G.set_row(0, 1, 0, {0, 0, -1, -1, -1});
  G.set_row(0, 1, 1, {0, 0, -1, -1, -1});
  RelevanceInputs in;
  in.attn = A.view();
  in.attn_grad = G.view();
  const RelevanceMap dist = compute_relevance(Method::GradCam, in, layout, pooled(Pool::ClsDist));
  const RelevanceMap cls = compute_relevance(Method::GradCam, in, layout, pooled(Pool::Cls));
  const std::vector<float> want_dist{1.f, .75f, 0.f}, want_cls{.5f, 1.f, 0.f};
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(dist.data[j], want_dist[j], 1e-6) << j;
    EXPECT_NEAR(cls.data[j], want_cls[j], 1e-6) << j;
  }
}

}  // namespace
}  // namespace vitrel
