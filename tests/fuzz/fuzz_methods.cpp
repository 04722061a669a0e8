// Every relevance method (src/methods) on fuzzed layouts (images and texts), shapes,
// options and values: maps of the layout's size holding only finite values (gradcam in
// [0,1]), or InputError.
// The rollouts whose terms are non-negative must also agree with the naive full-matrix
// products of METHODS.md (rollout_reference.h) wherever those stay finite.

#include <algorithm>

#include "fuzz_support.h"
#include "methods/relevance.h"
#include "support/rollout_reference.h"

using namespace vitrel;

namespace {

struct FuzzedTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
  bool present = false;
  TensorView view() const { return present ? TensorView{data.data(), shape} : TensorView{}; }
};

// Mostly the shape the layout asks for, sometimes one dim or the rank changed. The data
// always holds as many values as the shape claims (a caller lying about that is not
// something the core can detect).
FuzzedTensor fuzz_tensor(FuzzedDataProvider& in, std::vector<int64_t> shape) {
  FuzzedTensor t;
  t.present = in.ConsumeIntegralInRange(0, 7) != 0;
  if (!t.present) return t;
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0:
      shape[in.ConsumeIntegralInRange<size_t>(0, shape.size() - 1)] =
          in.ConsumeIntegralInRange(-1, 7);
      break;
    case 1: shape.pop_back(); break;
    case 2: shape.push_back(in.ConsumeIntegralInRange(1, 2)); break;
    default: break;
  }
  int64_t n = 1;
  for (int64_t d : shape) n *= std::max<int64_t>(d, 0);
  t.shape = shape;
  t.data = fuzz::fuzz_floats(in, static_cast<size_t>(n));
  return t;
}

bool has_token_row(Method m) { return method_info(m).form != MethodForm::Map; }

// Nonzero values within [1e-6, 1e6]: every entry of a rollout row then holds a single-block
// term of at least 1e-12 (the identity carries it through the other blocks), so products
// of B <= 4 factors that become subnormal, and round differently in the two association
// orders, cannot move it by a relative 1e-4. Outside that band they can (found: 7.6e-7 vs
// 6.6e-7 beside entries of 1e38, inputs from 1.4e-45 to 3.4e38), and the check is skipped.
bool within_normal_band(const TensorView& t) {
  if (t.empty()) return true;
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    const float a = std::fabs(t.data[i]);
    if (a != 0.f && (a < 1e-6f || a > 1e6f)) return false;
  }
  return true;
}

// Sums of non-negative terms in another order: within a relative 1e-4 (B*h*S <= 150
// roundings of 6e-8 each), plus slack for products that underflow differently.
void check_against_reference(Method m, const std::vector<float>& row, const RelevanceInputs& in,
                             const TokenLayout& layout, const MethodOptions& options) {
  if (m != Method::TransformerAttribution && m != Method::AblationNoGrad &&
      m != Method::GenericAttention && m != Method::AttAttr)
    return;
  // On a text transformer_attribution is row-normalised and its own entry rewritten
  // (text_rules.h): not the reference's product.
  if (layout.is_text() && m == Method::TransformerAttribution) return;
  // The reference takes B and h from any tensor present: give it only the method's own.
  RelevanceInputs own;
  for (Tensor t : all_values<Tensor>())
    if (method_info(m).needs.contains(t)) {
      own[t] = in[t];
      if (!within_normal_band(in[t])) return;
    }
  const std::vector<float> ref =
      reference::rollout_readout_row(m, own, options, readout_weights(layout, options));
  if (!fuzz::all_finite(ref)) return;  // the full-matrix products may overflow where rows do not
  FUZZ_CHECK(ref.size() == row.size());
  for (size_t j = 0; j < row.size(); ++j)
    FUZZ_CHECK(std::fabs(row[j] - ref[j]) <= 1e-4f * std::fabs(ref[j]) + 1e-30f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  TokenLayout layout;
  layout.grid_rows = fuzz::fuzz_size(in, 3);
  layout.grid_cols = fuzz::fuzz_size(in, 3);
  layout.special_tokens = in.ConsumeIntegralInRange(0, 7) == 0 ? in.ConsumeIntegral<int>()
                                                               : in.ConsumeIntegralInRange(0, 2);
  const int64_t layout_tokens =
      int64_t{layout.special_tokens} + int64_t{layout.grid_rows} * layout.grid_cols;
  const int64_t S =
      layout_tokens >= 1 && layout_tokens <= 12 ? layout_tokens : in.ConsumeIntegralInRange(1, 6);
  const int64_t B = in.ConsumeIntegralInRange(1, 4), h = in.ConsumeIntegralInRange(1, 3);

  std::vector<Method> methods(in.ConsumeIntegralInRange(1, 4));
  for (Method& m : methods)
    m = in.ConsumeIntegralInRange(0, 31) == 0
            ? static_cast<Method>(in.ConsumeIntegralInRange(-2, 20))
            : all_values<Method>()[in.ConsumeIntegralInRange<size_t>(
                  0, all_values<Method>().size() - 1)];
  MethodOptions options;
  options.start_layer = in.ConsumeIntegralInRange(0, 7) == 0
                            ? in.ConsumeIntegral<int>()
                            : in.ConsumeIntegralInRange(0, int(B) - 1);
  options.query_token = in.ConsumeIntegralInRange(0, 7) == 0
                            ? in.ConsumeIntegral<int>()
                            : in.ConsumeIntegralInRange(kReadout, int(S) - 1);
  options.pool = static_cast<Pool>(in.ConsumeIntegralInRange(-1, 5));  // -1, 5: off the table

  const FuzzedTensor a = fuzz_tensor(in, {B, h, S, S}), g = fuzz_tensor(in, {B, h, S, S}),
                     r = fuzz_tensor(in, {B, h, S, S}), rc = fuzz_tensor(in, {h, S, S}),
                     x = fuzz_tensor(
                         in, {in.ConsumeIntegralInRange(1, 8), in.ConsumeIntegralInRange(1, 8)}),
                     attr = fuzz_tensor(in, {B, h, S, S}),
                     x_attnlrp = fuzz_tensor(
                         in, {in.ConsumeIntegralInRange(1, 8), in.ConsumeIntegralInRange(1, 8)}),
                     x_cp_lrp = fuzz_tensor(
                         in, {in.ConsumeIntegralInRange(1, 8), in.ConsumeIntegralInRange(1, 8)});
  RelevanceInputs inputs{a.view(), g.view(),    r.view(),         rc.view(),
                         x.view(), attr.view(), x_attnlrp.view(), x_cp_lrp.view()};
  // Read last, so the image seeds keep their meaning: a text of the same S tokens, its
  // input maps read as [values] vectors.
  const bool text = in.ConsumeBool();
  if (text) {
    layout = text_layout(static_cast<int>(S));
    for (auto [t, f] :
         {std::pair{Tensor::InputRelClassic, &x}, std::pair{Tensor::InputRelAttnLrp, &x_attnlrp},
          std::pair{Tensor::InputRelCpLrp, &x_cp_lrp}})
      if (f->present) inputs[t] = TensorView{f->data.data(), {int64_t(f->data.size())}};
  }
  const int64_t tokens = text ? S : layout_tokens;

  try {
    const std::vector<RelevanceMap> maps = compute_relevance_maps(methods, inputs, layout, options);
    FUZZ_CHECK(maps.size() == methods.size());
    for (size_t k = 0; k < maps.size(); ++k) {
      const RelevanceMap& map = maps[k];
      FUZZ_CHECK(map.data.size() == size_t(map.rows) * size_t(map.cols));
      FUZZ_CHECK(fuzz::all_finite(map.data));
      if (text) {
        FUZZ_CHECK(map.rows == 1 && map.cols == S);
        if (methods[k] == Method::LrpFull) {
          FUZZ_CHECK(map.data[0] == 0.f);
          FUZZ_CHECK(std::equal(map.data.begin() + 1, map.data.end(), x.data.begin() + 1));
        }
      } else if (methods[k] == Method::LrpFull) {
        FUZZ_CHECK(map.data == x.data);
      } else if (methods[k] == Method::AttnLrp) {
        FUZZ_CHECK(map.data == x_attnlrp.data);
      } else if (methods[k] == Method::CpLrp) {
        FUZZ_CHECK(map.data == x_cp_lrp.data);
      } else {
        FUZZ_CHECK(map.rows == layout.grid_rows && map.cols == layout.grid_cols);
      }
      if (methods[k] == Method::GradCam)
        for (float v : map.data) FUZZ_CHECK(v >= 0.f && v <= 1.f);
    }
  } catch (const InputError&) {
  }
  try {
    const std::vector<float> row = relevance_row(methods[0], inputs, layout, options);
    FUZZ_CHECK(has_token_row(methods[0]));
    FUZZ_CHECK(int64_t(row.size()) == tokens);
    FUZZ_CHECK(fuzz::all_finite(row));
    check_against_reference(methods[0], row, inputs, layout, options);
  } catch (const InputError&) {
  }
  return 0;
}
