// Every rejected input: each is an InputError whose message names the argument and what
// was wrong, raised before any element is read.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "methods/relevance.h"
#include "support/test_tensors.h"

namespace vitrel {
namespace {

using test::OwnedTensor;

// The message of the InputError `f` throws ("" and a test failure if it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError thrown";
  return "";
}

const TokenLayout kLayout{2, 2, 1};  // S = 5

struct SmallModel {
  test::RandomModelOutputs outputs{3, 2, kLayout, 11};
  RelevanceInputs inputs() const { return outputs.inputs(); }
};

TEST(InputErrors, MismatchedGradientShapeNamesBothTensors) {
  // The example of the API notes, at DeiT-tiny size.
  const TokenLayout deit{14, 14, 1};
  OwnedTensor a({12, 3, 197, 197}, 0.f), g({12, 3, 197, 196}, 0.f);
  RelevanceInputs in;
  in.attn = a.view();
  in.attn_grad = g.view();
  EXPECT_EQ(error_of([&] { compute_relevance(Method::GradCam, in, deit); }),
            "attn_grad: expected shape [12,3,197,197] like attn, got [12,3,197,196]");
}

TEST(InputErrors, RelevanceShapeMustMatchTheGradient) {
  SmallModel m;
  OwnedTensor rel({3, 1, 5, 5});
  RelevanceInputs in = m.inputs();
  in.attn_rel = rel.view();
  EXPECT_EQ(error_of([&] { compute_relevance(Method::TransformerAttribution, in, kLayout); }),
            "attn_rel: expected shape [3,2,5,5] like attn_grad, got [3,1,5,5]");
}

TEST(InputErrors, TokenCountMustMatchTheLayout) {
  SmallModel m;
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::RawAttention, m.inputs(), TokenLayout{2, 3, 1});
            }),
            "attn: expected shape [?,?,7,7], got [3,2,5,5] (7 tokens = 1 special + 2x3 grid)");
}

TEST(InputErrors, WrongRank) {
  OwnedTensor a({2, 5, 5});
  RelevanceInputs in;
  in.attn = a.view();
  EXPECT_EQ(error_of([&] { compute_relevance(Method::RawAttention, in, kLayout); }),
            "attn: expected shape [?,?,5,5], got [2,5,5] (5 tokens = 1 special + 2x2 grid)");
}

TEST(InputErrors, ClassicRelevanceHeadsMustMatch) {
  SmallModel m;
  OwnedTensor rc({3, 5, 5});
  RelevanceInputs in = m.inputs();
  in.attn_rel_classic_last = rc.view();
  EXPECT_EQ(error_of([&] {
              compute_relevance_maps({Method::RawAttention, Method::PartialLrp}, in, kLayout);
            }),
            "attn_rel_classic_last: expected shape [2,5,5] like the heads of attn, got [3,5,5]");
}

TEST(InputErrors, MissingTensorNamesTheMethodAndTheTensor) {
  SmallModel m;
  RelevanceInputs in = m.inputs();
  in.attn_grad = TensorView{};
  EXPECT_EQ(error_of([&] { compute_relevance(Method::TransformerAttribution, in, kLayout); }),
            "transformer_attribution: needs attn_grad, which is missing");
  EXPECT_FALSE(has_inputs_for(Method::TransformerAttribution, in));
  EXPECT_FALSE(has_inputs_for(Method::GradCam, in));
  EXPECT_TRUE(has_inputs_for(Method::AttentionRollout, in));
  EXPECT_TRUE(has_inputs_for(Method::AblationNoGrad, in));
}

TEST(InputErrors, NullDataWithAShapeIsMissing) {
  RelevanceInputs in;
  in.input_rel_classic = TensorView{nullptr, {4, 4}};
  EXPECT_EQ(error_of([&] { compute_relevance(Method::LrpFull, in, kLayout); }),
            "lrp_full: needs input_rel_classic, which is missing");
}

TEST(InputErrors, NegativeAndOverflowingDims) {
  const float x = 0.f;
  RelevanceInputs in;
  in.input_rel_classic = TensorView{&x, {-2, 4}};
  EXPECT_EQ(error_of([&] { compute_relevance(Method::LrpFull, in, kLayout); }),
            "input_rel_classic: expected shape [?,?], got [-2,4]");
  // Each dim alone is plausible; their product overflows int64.
  const int64_t huge = int64_t{1} << 40;
  in.attn = TensorView{&x, {huge, huge, 5, 5}};
  EXPECT_NE(error_of([&] {
              compute_relevance(Method::RawAttention, in, kLayout);
            }).find("too many elements"),
            std::string::npos);
  in.attn = TensorView{&x, {1 << 21, 1 << 21, 5, 5}};
  EXPECT_NE(
      error_of([&] { compute_relevance(Method::RawAttention, in, kLayout); }).find("too large"),
      std::string::npos);
}

TEST(InputErrors, NonFiniteValuesAreReportedWithTheirIndex) {
  SmallModel m;
  OwnedTensor g = m.outputs.attn_grad;
  g.data[17] = std::numeric_limits<float>::quiet_NaN();
  RelevanceInputs in = m.inputs();
  in.attn_grad = g.view();
  EXPECT_EQ(error_of([&] { compute_relevance(Method::GradCam, in, kLayout); }),
            "attn_grad: non-finite value NaN at flat index 17 of [3,2,5,5]");
  g.data[17] = 0.f;
  g.data[149] = -std::numeric_limits<float>::infinity();
  EXPECT_EQ(error_of([&] { compute_relevance(Method::GenericAttention, in, kLayout); }),
            "attn_grad: non-finite value -inf at flat index 149 of [3,2,5,5]");

  OwnedTensor x({4, 4});
  x.data[15] = std::numeric_limits<float>::infinity();
  in.input_rel_classic = x.view();
  EXPECT_EQ(error_of([&] { compute_relevance(Method::LrpFull, in, kLayout); }),
            "input_rel_classic: non-finite value +inf at flat index 15 of [4,4]");
}

TEST(InputErrors, NonFiniteReportedInArgumentOrderWhicheverBlockHoldsIt) {
  // The block walk meets block 2 of attn_rel first, but a whole-tensor check would
  // name attn_grad (block 0) first: so must the walk.
  SmallModel m;
  OwnedTensor g = m.outputs.attn_grad, r = m.outputs.attn_rel;
  g.at(0, 1, 2, 3) = std::numeric_limits<float>::infinity();
  r.at(2, 0, 0, 0) = std::nanf("");
  RelevanceInputs in = m.inputs();
  in.attn_grad = g.view();
  in.attn_rel = r.view();
  EXPECT_EQ(error_of([&] { compute_relevance(Method::TransformerAttribution, in, kLayout); }),
            "attn_grad: non-finite value +inf at flat index 38 of [3,2,5,5]");
}

TEST(InputErrors, EveryBlockIsCheckedEvenTheOnesAMethodSkips) {
  // start_layer 2 skips blocks 0 and 1, and raw_attention reads the last block only;
  // a NaN in block 0 is still an error: a tensor is validated whole.
  SmallModel m;
  OwnedTensor a = m.outputs.attn;
  a.at(0, 0, 4, 4) = std::nanf("");
  RelevanceInputs in = m.inputs();
  in.attn = a.view();
  const std::string expected = "attn: non-finite value NaN at flat index 24 of [3,2,5,5]";
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::AttentionRollout, in, kLayout, {2, 0});
            }),
            expected);
  EXPECT_EQ(error_of([&] { compute_relevance(Method::RawAttention, in, kLayout); }), expected);
  EXPECT_EQ(error_of([&] { relevance_row(Method::RawAttention, in, kLayout); }), expected);
}

TEST(InputErrors, NonFiniteValueFarIntoALargeTensor) {
  OwnedTensor big({1, 1, 5000});
  big.data[4321] = std::nanf("");
  EXPECT_EQ(error_of([&] { require_finite(big.view(), "big"); }),
            "big: non-finite value NaN at flat index 4321 of [1,1,5000]");
}

TEST(InputErrors, OptionsOutOfRange) {
  SmallModel m;
  const RelevanceInputs in = m.inputs();
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::RawAttention, in, kLayout, {0, 5});
            }),
            "options: query_token 5 is out of range [0,5) for 5 tokens = 1 special + 2x2 grid "
            "(or -1 for the pool's readout)");
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::RawAttention, in, kLayout, {0, -2});
            }),
            "options: query_token -2 is out of range [0,5) for 5 tokens = 1 special + 2x2 grid "
            "(or -1 for the pool's readout)");
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::AttentionRollout, in, kLayout, {3, 0});
            }),
            "options: start_layer 3 is out of range [0,3) for 3 blocks");
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::AblationNoGrad, in, kLayout, {-1, 0});
            }),
            "options: start_layer -1 is out of range [0,3) for 3 blocks");
  // Methods without a start layer ignore it, generic_attention included.
  EXPECT_NO_THROW(compute_relevance(Method::RawAttention, in, kLayout, {3, 0}));
  EXPECT_NO_THROW(compute_relevance(Method::GenericAttention, in, kLayout, {3, 0}));
}

TEST(InputErrors, BadLayouts) {
  SmallModel m;
  const RelevanceInputs in = m.inputs();
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::RawAttention, in, TokenLayout{0, 5, 0});
            }),
            "layout: grid must be at least 1x1, got 0x5");
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::RawAttention, in, TokenLayout{2, 2, -1});
            }),
            "layout: special_tokens must be >= 0, got -1");
  EXPECT_NE(error_of([&] {
              compute_relevance(Method::RawAttention, in, TokenLayout{1 << 16, 1 << 16, 1});
            }).find("more than the supported"),
            std::string::npos);
}

TEST(InputErrors, SecondBlockAblationNeedsTwoBlocks) {
  const test::RandomModelOutputs one_block(1, 2, kLayout, 3);
  EXPECT_EQ(error_of([&] {
              compute_relevance(Method::AblationSecondBlock, one_block.inputs(), kLayout);
            }),
            "ablation_second_block: needs at least 2 blocks, got 1");
}

TEST(InputErrors, RelevanceRowOfMethodsWithoutATokenRow) {
  SmallModel m;
  for (Method method : {Method::GradCam, Method::LrpFull}) {
    const std::string message = error_of([&] { relevance_row(method, m.inputs(), kLayout); });
    EXPECT_EQ(message.rfind(std::string("relevance_row: ") + to_id(method), 0), 0u) << message;
  }
}

TEST(InputErrors, UnknownMethodIdListsTheValidOnes) {
  std::string valid;
  for (Method m : all_values<Method>())
    valid += (valid.empty() ? "" : ", ") + std::string(to_id(m));
  EXPECT_EQ(error_of([] { from_id<Method>("rollout"); }),
            "method: unknown id \"rollout\" (valid: " + valid + ")");
  EXPECT_EQ(valid.rfind("transformer_attribution, attention_rollout, raw_attention, ", 0), 0u);
}

TEST(InputErrors, MethodValueOutsideTheEnum) {
  SmallModel m;
  EXPECT_EQ(error_of([&] { compute_relevance(static_cast<Method>(42), m.inputs(), kLayout); }),
            "method: unknown value 42");
}

TEST(MethodIds, RoundTripInDeclarationOrder) {
  EXPECT_EQ(all_values<Method>().front(), Method::TransformerAttribution);
  for (Method m : all_values<Method>()) EXPECT_EQ(from_id<Method>(to_id(m)), m);
  EXPECT_STREQ(to_id(Method::AblationSecondBlock), "ablation_second_block");
}

TEST(MethodIds, HasInputsForFollowsWhatEachMethodReads) {
  SmallModel m;
  for (Method method : all_values<Method>()) {
    EXPECT_TRUE(has_inputs_for(method, m.inputs())) << to_id(method);
    EXPECT_FALSE(has_inputs_for(method, RelevanceInputs{})) << to_id(method);
  }
  RelevanceInputs only_rel;
  only_rel.attn_rel = m.outputs.attn_rel.view();
  for (Method method : all_values<Method>())
    EXPECT_EQ(has_inputs_for(method, only_rel), method == Method::AblationNoGrad) << to_id(method);
}

TEST(MethodIds, HasInputsForLeavesOutMethodsForMoreBlocks) {
  // One block: every method but ablation_second_block (min_blocks 2), which still refuses
  // by name when asked for.
  test::RandomModelOutputs one{1, 2, kLayout, 11};
  for (Method method : all_values<Method>())
    EXPECT_EQ(has_inputs_for(method, one.inputs()), method != Method::AblationSecondBlock)
        << to_id(method);
  EXPECT_EQ(
      error_of([&] { compute_relevance(Method::AblationSecondBlock, one.inputs(), kLayout); }),
      "ablation_second_block: needs at least 2 blocks, got 1");
}

// Every entry of the registry is complete and computable the way its form says.
TEST(MethodRegistry, EveryEntryIsComplete) {
  for (const MethodInfo& m : id_table(Method{})) {
    EXPECT_EQ(&method_info(m.value), &m) << m.id;
    EXPECT_GT(std::string(m.name).size(), 0u) << m.id;
    EXPECT_GT(std::string(m.short_name).size(), 0u) << m.id;
    EXPECT_GT(std::string(m.description).size(), 0u) << m.id;
    EXPECT_FALSE(m.needs.empty()) << m.id;
    EXPECT_EQ(m.row != nullptr, m.form == MethodForm::Row) << m.id;
    EXPECT_EQ(m.map != nullptr, m.form == MethodForm::Map) << m.id;
    EXPECT_TRUE(!m.start_layer || m.form == MethodForm::Rollout) << m.id;
  }
}

TEST(MethodRegistry, TensorIdsAreTheGraphOutputNames) {  // and attr (the attribution graphs)
  std::vector<std::string> ids;
  for (Tensor t : all_values<Tensor>()) ids.push_back(to_id(t));
  EXPECT_EQ(ids, (std::vector<std::string>{"attn", "attn_grad", "attn_rel", "attn_rel_classic_last",
                                           "input_rel_classic", "attr", "input_rel_attnlrp",
                                           "input_rel_cp_lrp"}));
  EXPECT_EQ(error_of([] { from_id<Tensor>("attention"); }),
            "tensor: unknown id \"attention\" (valid: attn, attn_grad, attn_rel, "
            "attn_rel_classic_last, input_rel_classic, attr, input_rel_attnlrp, input_rel_cp_lrp)");
}

TEST(TensorView, NumelAndShapeString) {
  const TensorView t{nullptr, {12, 3, 197, 197}};
  EXPECT_EQ(t.numel(), 12 * 3 * 197 * 197);
  EXPECT_EQ(t.shape_string(), "[12,3,197,197]");
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(TensorView{}.numel(), 1);  // a scalar shape
  EXPECT_THROW(TensorView({nullptr, {3, -2}}).numel(), InputError);
}

TEST(TensorView, RequireShapeWildcardsMatchOnlyPositiveSizes) {
  const float x = 0.f;
  EXPECT_NO_THROW(require_shape(TensorView{&x, {1, 1}}, {-1, 1}, "t"));
  EXPECT_EQ(error_of([&] {
              require_shape(TensorView{&x, {0, 1}}, {-1, 1}, "t");
            }),
            "t: expected shape [?,1], got [0,1]");
  EXPECT_EQ(error_of([&] {
              require_shape(TensorView{}, {-1, 1}, "t");
            }),
            "t: missing (no data), expected shape [?,1]");
}

}  // namespace
}  // namespace vitrel
