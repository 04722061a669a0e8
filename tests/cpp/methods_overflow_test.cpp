// Finite inputs whose arithmetic leaves float32 range (METHODS.md's formulas on values
// near FLT_MAX): each method either returns the exact finite map or an InputError naming
// the method and the inputs' magnitudes, never a silently zeroed or non-finite map.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "methods/relevance.h"
#include "support/expect_input_error.h"
#include "support/test_tensors.h"

namespace vitrel {
namespace {

using test::OwnedTensor;
using testing::expect_input_error;

const TokenLayout kLayout{2, 2, 1};  // S = 5
constexpr float kHuge = 3e38f;       // below FLT_MAX (3.4e38); any sum of two overflows

RelevanceInputs inputs_of(const OwnedTensor& a, const OwnedTensor& g, const OwnedTensor& r) {
  RelevanceInputs in;
  in.attn = a.view();
  in.attn_grad = g.view();
  in.attn_rel = r.view();
  return in;
}

TEST(Overflow, RolloutOfHugeAttentionIsAnErrorNotAZeroMap) {
  // The hostile probe's case: every attention value 3e38 gave an all-zero rollout.
  const OwnedTensor a({3, 2, 5, 5}, kHuge);
  RelevanceInputs in;
  in.attn = a.view();
  expect_input_error([&] { compute_relevance(Method::AttentionRollout, in, kLayout); },
                     "attention_rollout: the sum of row 0 of block 2's head-mean attention "
                     "overflows float32: the inputs are finite but too large for this method "
                     "(|attn| up to 3e+38)");
  expect_input_error([&] { relevance_row(Method::AttentionRollout, in, kLayout); },
                     "attention_rollout: the sum of row 0");
}

TEST(Overflow, AHeadMeanThatFitsIsExact) {
  // E_h[A+] of 3e38 everywhere is 3e38: representable, so no error.
  const OwnedTensor a({3, 2, 5, 5}, kHuge);
  RelevanceInputs in;
  in.attn = a.view();
  const RelevanceMap map = compute_relevance(Method::RawAttention, in, kLayout);
  for (float v : map.data) EXPECT_FLOAT_EQ(v, kHuge);
}

TEST(Overflow, ProductsPastFloatRangeNameTheMethodAndMagnitudes) {
  const OwnedTensor a({3, 2, 5, 5}, kHuge), g({3, 2, 5, 5}, 1e30f), r({3, 2, 5, 5}, 1e30f);
  const RelevanceInputs in = inputs_of(a, g, r);
  expect_input_error([&] { compute_relevance(Method::GenericAttention, in, kLayout); },
                     "generic_attention: the rollout's row after block 2 (");
  // (inf, or NaN where an overflowed product met a zero weight)
  expect_input_error([&] { compute_relevance(Method::GenericAttention, in, kLayout); },
                     ") overflows float32: the inputs are finite but too large for this method "
                     "(|attn| up to 3e+38, |attn_grad| up to 1e+30)");
  expect_input_error([&] { compute_relevance(Method::AblationLastBlock, in, kLayout); },
                     "ablation_last_block: the head mean (+inf at index 0) overflows float32");
  expect_input_error([&] { relevance_row(Method::AblationSecondBlock, in, kLayout); },
                     "ablation_second_block: the head mean (+inf at index 0) overflows");
}

TEST(Overflow, GradCamOverflowIsNotClampedToAZeroMap) {
  // w_k = 1e30 times A = 3e38 is +inf; the old code's min-max of infinities gave zeros.
  const OwnedTensor a({3, 2, 5, 5}, kHuge), g({3, 2, 5, 5}, 1e30f);
  RelevanceInputs in;
  in.attn = a.view();
  in.attn_grad = g.view();
  expect_input_error([&] { compute_relevance(Method::GradCam, in, kLayout); },
                     "gradcam: the weighted head mean (+inf at index 0) overflows float32");
  // A negative infinite weight makes -inf, which the clamp would have hidden as 0.
  const OwnedTensor negative({3, 2, 5, 5}, -1e30f);
  in.attn_grad = negative.view();
  expect_input_error([&] { compute_relevance(Method::GradCam, in, kLayout); },
                     "gradcam: the weighted head mean (-inf at index 0)");
}

TEST(Overflow, RolloutThatGrowsPastFloatRangeNamesTheBlock) {
  // (G . R)+ = 1e19 per entry: each block multiplies the row by about 4e19, so block 2
  // alone fits and the product with block 1 does not.
  const OwnedTensor a({3, 2, 5, 5}, 0.2f), g({3, 2, 5, 5}, 1e10f), r({3, 2, 5, 5}, 1e9f);
  const RelevanceInputs in = inputs_of(a, g, r);
  expect_input_error([&] { compute_relevance(Method::TransformerAttribution, in, kLayout); },
                     "transformer_attribution: the rollout's row after block 1 (+inf at index");
  // From start_layer 2 only block 2 is rolled out: finite, and exactly I + E_h[(G . R)+].
  const RelevanceMap map = compute_relevance(Method::TransformerAttribution, in, kLayout, {2, 0});
  for (float v : map.data) EXPECT_FLOAT_EQ(v, 1e19f);
}

TEST(Overflow, AttAttrOverflowNamesTheAttributionTensor) {
  // E_h[Attr+] + I of 3e38 everywhere: block 2's row (3e38 + 1 at q) still fits, block 1
  // multiplies it by 3e38 again.
  const OwnedTensor attr({3, 2, 5, 5}, kHuge);
  RelevanceInputs in;
  in.attr = attr.view();
  expect_input_error(
      [&] { compute_relevance(Method::AttAttr, in, kLayout); },
      "attattr: the rollout's row after block 1 (+inf at index 0) overflows float32: "
      "the inputs are finite but too large for this method (|attr| up to 3e+38)");
}

TEST(Overflow, AnInputNaNIsReportedAsSuchEvenWhenAnOverflowComesFirst) {
  // The walk meets block 2's overflowing row sum before it scans block 0's NaN: the
  // input error still wins, as for a whole-tensor check.
  OwnedTensor a({3, 2, 5, 5}, kHuge);
  a.at(0, 1, 4, 4) = std::numeric_limits<float>::quiet_NaN();
  RelevanceInputs in;
  in.attn = a.view();
  expect_input_error([&] { compute_relevance(Method::AttentionRollout, in, kLayout); },
                     "attn: non-finite value NaN at flat index 49 of [3,2,5,5]");
}

}  // namespace
}  // namespace vitrel
