// Every method on a text layout against a float64 reference written here from METHODS.md,
// "Text (BERT)" (the official BERT code's definitions), on random tensors; and the text
// layout's checks.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <random>
#include <vector>

#include "methods/contrast.h"
#include "methods/relevance.h"
#include "support/expect_input_error.h"
#include "support/test_tensors.h"

namespace vitrel {
namespace {

using Matrix = Eigen::MatrixXd;
using Row = Eigen::RowVectorXd;
using test::OwnedTensor;
using testing::expect_input_error;

constexpr int B = 3, H = 2, S = 7;

struct TextTensors {
  OwnedTensor attn, attn_grad, attn_rel, attn_rel_classic_last, attr, input_rel_classic,
      input_rel_attnlrp, input_rel_cp_lrp;

  explicit TextTensors(unsigned seed) {
    std::mt19937 rng(seed);
    attn = test::random_attention(B, H, S, rng);
    attn_grad = test::random_tensor({B, H, S, S}, rng, -1.f, 1.f);
    attn_rel = test::random_tensor({B, H, S, S}, rng, -0.2f, 0.5f);
    attn_rel_classic_last = test::random_tensor({H, S, S}, rng, -0.2f, 0.5f);
    attr = test::random_tensor({B, H, S, S}, rng, -0.1f, 0.3f);
    input_rel_classic = test::random_tensor({S}, rng, -1.f, 1.f);
    input_rel_attnlrp = test::random_tensor({S}, rng, -1.f, 1.f);
    input_rel_cp_lrp = test::random_tensor({S}, rng, -1.f, 1.f);
  }
  RelevanceInputs inputs() const {
    RelevanceInputs in;
    in.attn = attn.view();
    in.attn_grad = attn_grad.view();
    in.attn_rel = attn_rel.view();
    in.attn_rel_classic_last = attn_rel_classic_last.view();
    in.attr = attr.view();
    in.input_rel_classic = input_rel_classic.view();
    in.input_rel_attnlrp = input_rel_attnlrp.view();
    in.input_rel_cp_lrp = input_rel_cp_lrp.view();
    return in;
  }
};

// Head k of block b of a [B,h,S,S] tensor (b = 0 for [h,S,S]) in float64.
Matrix head(const OwnedTensor& t, int b, int k) {
  Matrix m(S, S);
  for (int i = 0; i < S; ++i)
    for (int j = 0; j < S; ++j) m(i, j) = const_cast<OwnedTensor&>(t).at(b, k, i, j);
  return m;
}

// E_h[f(head k of each tensor)] of block b.
template <class F>
Matrix head_mean(int b, F f) {
  Matrix m = Matrix::Zero(S, S);
  for (int k = 0; k < H; ++k) m += f(k);
  return m / H;
}

Matrix positive(const Matrix& m) { return m.cwiseMax(0.0); }

// compute_rollout_attention of the BERT code: (X + I) row-normalised when `normalise`,
// product of the later blocks on the left from `start`.
Matrix rollout(const std::vector<Matrix>& blocks, int start, bool normalise) {
  std::vector<Matrix> x;
  for (const Matrix& m : blocks) {
    Matrix a = m + Matrix::Identity(S, S);
    if (normalise) a = a.array().colwise() / a.rowwise().sum().array();
    x.push_back(a);
  }
  Matrix joint = x[start];
  for (int b = start + 1; b < B; ++b) joint = x[b] * joint;
  return joint;
}

// The reference map of every method, row `q` (METHODS.md's definitions with [CLS] = q).
Row reference(Method m, const TextTensors& t, int start, int q) {
  std::vector<Matrix> product, attention, relevance, attr;
  for (int b = 0; b < B; ++b) {
    product.push_back(head_mean(b, [&](int k) {
      return positive(head(t.attn_grad, b, k).cwiseProduct(head(t.attn_rel, b, k)));
    }));
    attention.push_back(head_mean(b, [&](int k) { return head(t.attn, b, k); }));
    relevance.push_back(head_mean(b, [&](int k) { return positive(head(t.attn_rel, b, k)); }));
    attr.push_back(head_mean(b, [&](int k) { return positive(head(t.attr, b, k)); }));
  }
  const auto vector_of = [](const OwnedTensor& x) {
    Row r(S);
    for (int j = 0; j < S; ++j) r(j) = x.data[j];
    return r;
  };
  Row row;
  switch (m) {
    case Method::TransformerAttribution:
      row = rollout(product, start, true).row(q);
      row(q) = row.minCoeff();
      return row;
    case Method::AttentionRollout:
      row = rollout(attention, start, true).row(q);
      row(q) = 0;
      return row;
    case Method::RawAttention:
      row = attention[B - 1].row(q);
      row(q) = 0;
      return row;
    case Method::GradCam: {
      Matrix cam = Matrix::Zero(S, S);
      for (int k = 0; k < H; ++k)
        cam += head(t.attn, B - 1, k) * head(t.attn_grad, B - 1, k).mean();
      cam = positive(cam / H);
      // A constant matrix (every weight negative) is NaN in the official code, zeros here.
      const double range = cam.maxCoeff() - cam.minCoeff();
      cam = range > 0 ? Matrix((cam.array() - cam.minCoeff()) / range) : Matrix::Zero(S, S);
      row = cam.row(q);
      row(q) = 0;
      return row;
    }
    case Method::PartialLrp:
      row =
          head_mean(0, [&](int k) { return positive(head(t.attn_rel_classic_last, 0, k)); }).row(q);
      row(q) = 0;
      return row;
    case Method::LrpFull:
      row = vector_of(t.input_rel_classic);
      row(0) = 0;
      return row;
    case Method::GenericAttention: {
      Matrix p = Matrix::Identity(S, S);
      for (int b = 0; b < B; ++b)
        p += head_mean(b,
                       [&](int k) {
                         return positive(head(t.attn_grad, b, k).cwiseProduct(head(t.attn, b, k)));
                       }) *
             p;
      return p.row(q);
    }
    case Method::AblationNoGrad: return rollout(relevance, start, false).row(q);
    case Method::AttAttr: return rollout(attr, start, false).row(q);
    case Method::AblationLastBlock: return product[B - 1].row(q);
    case Method::AblationSecondBlock: return product[1].row(q);
    case Method::AttnLrp: return vector_of(t.input_rel_attnlrp);
    case Method::CpLrp: return vector_of(t.input_rel_cp_lrp);
  }
  return row;
}

void expect_close(const std::vector<float>& got, const Row& want, const char* id) {
  ASSERT_EQ(got.size(), static_cast<size_t>(S)) << id;
  const double scale = std::max(1e-12, want.cwiseAbs().maxCoeff());
  for (int j = 0; j < S; ++j)  // float32 arithmetic of a few dozen terms: 1e-5 is ~100 ulps
    EXPECT_NEAR(got[j], want(j), 1e-5 * scale) << id << " token " << j;
}

TEST(TextMethods, EveryMethodIsTheBertCodesDefinition) {
  int gradcams_not_constant = 0;
  for (unsigned seed : {1u, 2u, 3u}) {
    const TextTensors t(seed);
    for (int start : {0, B - 1}) {
      MethodOptions options;
      options.start_layer = start;
      std::vector<Method> all;
      for (const MethodInfo& info : id_table(Method{})) all.push_back(info.value);
      const std::vector<RelevanceMap> maps =
          compute_relevance_maps(all, t.inputs(), text_layout(S), options);
      for (size_t i = 0; i < all.size(); ++i) {
        SCOPED_TRACE(::testing::Message() << "seed " << seed << " start " << start);
        EXPECT_EQ(maps[i].rows, 1);
        EXPECT_EQ(maps[i].cols, S);
        expect_close(maps[i].data, reference(all[i], t, start, 0), to_id(all[i]));
        if (all[i] == Method::GradCam)
          gradcams_not_constant += *std::max_element(maps[i].data.begin(), maps[i].data.end()) > 0;
      }
    }
  }
  EXPECT_GE(gradcams_not_constant, 2);  // the min-max was tested, not only the zero case
}

TEST(TextMethods, TokenRowsOfAQueryToken) {
  const TextTensors t(4);
  MethodOptions options;
  options.query_token = 3;
  for (const MethodInfo& info : id_table(Method{})) {
    if (info.form == MethodForm::Map) continue;
    expect_close(relevance_row(info.value, t.inputs(), text_layout(S), options),
                 reference(info.value, t, 0, 3), info.id);
  }
}

TEST(TextMethods, TheImageDefinitionsStayWhereTheyDiffer) {
  // The same tensors on an image layout (CLS + a 2x3 grid): transformer_attribution's
  // rollout is not row-normalised, no [CLS] entry rule, patch columns only.
  const TextTensors t(5);
  const RelevanceMap image =
      compute_relevance(Method::TransformerAttribution, t.inputs(), TokenLayout{2, 3, 1});
  std::vector<Matrix> product;
  for (int b = 0; b < B; ++b)
    product.push_back(head_mean(b, [&](int k) {
      return positive(head(t.attn_grad, b, k).cwiseProduct(head(t.attn_rel, b, k)));
    }));
  const Row want = rollout(product, 0, false).row(0);
  ASSERT_EQ(image.data.size(), static_cast<size_t>(S - 1));
  for (int j = 1; j < S; ++j) EXPECT_NEAR(image.data[j - 1], want(j), 1e-5 * want.maxCoeff());
}

TEST(TextMethods, ContrastOfTwoClassesAsForImages) {
  const TextTensors a(6), b(7);
  const RelevanceMap ma =
      compute_relevance(Method::TransformerAttribution, a.inputs(), text_layout(S));
  const RelevanceMap mb =
      compute_relevance(Method::TransformerAttribution, b.inputs(), text_layout(S));
  const RelevanceMap c = contrast_map(Method::TransformerAttribution, ma, mb);
  const float pa = *std::max_element(ma.data.begin(), ma.data.end());
  const float pb = *std::max_element(mb.data.begin(), mb.data.end());
  ASSERT_EQ(c.cols, S);
  for (int j = 0; j < S; ++j) EXPECT_NEAR(c.data[j], ma.data[j] / pa - mb.data[j] / pb, 1e-6);
}

TEST(TextMethods, LayoutAndShapeErrors) {
  const TextTensors t(8);
  RelevanceInputs in = t.inputs();
  expect_input_error([&] { compute_relevance(Method::RawAttention, in, text_layout(S + 1)); },
                     "(8 text tokens)");
  expect_input_error([&] { compute_relevance(Method::LrpFull, in, text_layout(S + 1)); },
                     "(8 text tokens)");
  expect_input_error(
      [&] {
        compute_relevance(Method::RawAttention, in, TokenLayout{2, 3, 1, S});
      },
      "layout: a text layout has no grid");
  MethodOptions avg;
  avg.pool = Pool::Avg;
  expect_input_error([&] { compute_relevance(Method::RawAttention, in, text_layout(S), avg); },
                     "options: pool avg is not a text model's");
}

}  // namespace
}  // namespace vitrel
