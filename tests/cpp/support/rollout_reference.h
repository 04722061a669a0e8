#pragma once
// The rollouts as written in METHODS.md: build every block's S x S matrix and multiply
// them, O(B*S^3). Header-only and deliberately naive; the library computes the same
// rows as vector-matrix products (row_rollout.h). Tests check the two agree and the
// benchmark times both. Inputs must already pass compute_relevance's checks.

#include <Eigen/Dense>
#include <vector>

#include "methods/relevance.h"

namespace vitrel::reference {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Head h of block b of a [B,h,S,S] tensor as an S x S matrix.
inline Eigen::Map<const Matrix> head_matrix(const TensorView& t, int b, int k) {
  const int64_t heads = t.shape[1], S = t.shape[2];
  return Eigen::Map<const Matrix>(t.data + (b * heads + k) * S * S, S, S);
}

// Any per-block tensor present: they all have the shape [B,h,S,S].
inline const TensorView& any_block_tensor(const RelevanceInputs& in) {
  if (!in.attn.empty()) return in.attn;
  if (!in.attr.empty()) return in.attr;
  return in.attn_grad.empty() ? in.attn_rel : in.attn_grad;
}

// The per-block matrix of a rollout method, before any identity or normalisation:
// E_h[(G.R)+], E_h[R+], E_h[A] or E_h[(G.A)+].
inline Matrix head_mean(Method m, const RelevanceInputs& in, int b) {
  const int heads = static_cast<int>(any_block_tensor(in).shape[1]);
  const int S = static_cast<int>(any_block_tensor(in).shape[2]);
  Matrix mean = Matrix::Zero(S, S);
  for (int k = 0; k < heads; ++k) {
    switch (m) {
      case Method::TransformerAttribution:
        mean += head_matrix(in.attn_grad, b, k)
                    .cwiseProduct(head_matrix(in.attn_rel, b, k))
                    .cwiseMax(0.f);
        break;
      case Method::AblationNoGrad: mean += head_matrix(in.attn_rel, b, k).cwiseMax(0.f); break;
      case Method::AttAttr: mean += head_matrix(in.attr, b, k).cwiseMax(0.f); break;
      case Method::AttentionRollout: mean += head_matrix(in.attn, b, k); break;
      case Method::GenericAttention:
        mean +=
            head_matrix(in.attn_grad, b, k).cwiseProduct(head_matrix(in.attn, b, k)).cwiseMax(0.f);
        break;
      default: break;
    }
  }
  return mean / static_cast<float>(heads);
}

// The full S x S matrix whose row q is relevance_row(m, ...) for m a rollout method.
inline Matrix rollout_matrix(Method m, const RelevanceInputs& in, const MethodOptions& options) {
  const int blocks = static_cast<int>(any_block_tensor(in).shape[0]);
  const int S = static_cast<int>(any_block_tensor(in).shape[2]);
  const Matrix I = Matrix::Identity(S, S);

  if (m == Method::GenericAttention) {  // P = I; P <- P + Abar P for b = 0..B-1
    Matrix P = I;
    for (int b = 0; b < blocks; ++b) P += head_mean(m, in, b) * P;
    return P;
  }
  Matrix M = I;  // M = X[B-1] ... X[s]: each later block multiplies on the left
  for (int b = options.start_layer; b < blocks; ++b) {
    Matrix X = head_mean(m, in, b) + I;
    if (m == Method::AttentionRollout) {
      const Eigen::VectorXf row_sums = X.rowwise().sum();
      X = row_sums.cwiseInverse().asDiagonal() * X;
    }
    M = X * M;
  }
  return M;
}

inline std::vector<float> rollout_row(Method m, const RelevanceInputs& in,
                                      const MethodOptions& options) {
  const Matrix M = rollout_matrix(m, in, options);
  const auto row = M.row(options.query_token);
  return std::vector<float>(row.data(), row.data() + row.size());
}

// r M for a readout r (token weights, length S): the pooled row.
inline std::vector<float> rollout_readout_row(Method m, const RelevanceInputs& in,
                                              const MethodOptions& options,
                                              const std::vector<float>& readout) {
  const Matrix M = rollout_matrix(m, in, options);
  const Eigen::RowVectorXf r = Eigen::Map<const Eigen::RowVectorXf>(
      readout.data(), static_cast<Eigen::Index>(readout.size()));
  const Eigen::RowVectorXf row = r * M;
  return std::vector<float>(row.data(), row.data() + row.size());
}

// The product stage alone, on B given S x S block matrices X[0..B-1] ([B,S,S], block 0
// first): row q of X[B-1]...X[0]. The benchmark times the two ways on the same matrices,
// where the row-vector rollout and the full-matrix product differ (O(B*S^2) vs O(B*S^3)).
inline std::vector<float> chain_row_vector(const float* blocks, int B, int S, int q) {
  Eigen::RowVectorXf v = Eigen::RowVectorXf::Unit(S, q);
  for (int b = B - 1; b >= 0; --b) {
    v = v * Eigen::Map<const Matrix>(blocks + int64_t(b) * S * S, S, S);
  }
  return std::vector<float>(v.data(), v.data() + S);
}

inline std::vector<float> chain_full_matrices(const float* blocks, int B, int S, int q) {
  Matrix M = Eigen::Map<const Matrix>(blocks, S, S);
  for (int b = 1; b < B; ++b) M = Eigen::Map<const Matrix>(blocks + int64_t(b) * S * S, S, S) * M;
  const Eigen::RowVectorXf row = M.row(q);
  return std::vector<float>(row.data(), row.data() + S);
}

}  // namespace vitrel::reference
