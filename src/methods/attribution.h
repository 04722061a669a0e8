#pragma once
// Self-Attention Attribution's summaries of Attr [B,h,S,S] (Hao et al., AAAI 2021;
// METHODS.md): per-head importance and the attribution tree. The attattr image map is a
// rollout (relevance.h, Method::AttAttr).

#include <vector>

#include "tensor/tensor_view.h"

namespace vitrel {

// Head k of block b on one image: max over (i,j) of Attr[b][k,i,j]. Returns [B*h] in
// (block, head) order. Throws InputError unless attr is a finite [B,h,S,S].
std::vector<float> head_importance(const TensorView& attr);

// The Taylor baseline of head pruning (Michel et al. 2019, the official
// prune_head_with_taylor.py) on one image: per head |Σ_{i,j} A[b][k] ⊙ G[b][k]|, where G is
// ∂L/∂A for the cross-entropy L with the label (the explainer's attn_grad for the target row
// softmax(logits) − onehot(label)); with O_k = A_k·v this equals |Σ O_k ⊙ ∂L/∂O_k|. Summed in
// double. Returns [B*h]. Throws InputError unless both are finite [B,h,S,S] of one shape.
std::vector<float> taylor_importance(const TensorView& attn, const TensorView& attn_grad);

// "token `from` draws on token `to` in block `block`"
struct TreeEdge {
  int from = 0;
  int to = 0;
  int block = 0;
  bool operator==(const TreeEdge& o) const {
    return from == o.from && to == o.to && block == o.block;
  }
};

struct AttributionTree {
  int top = 0;                  // the top node (token index)
  std::vector<TreeEdge> edges;  // in the order the official loop adds them
  std::vector<int> nodes;       // every token in the tree, ascending
};

constexpr float kTreeThreshold = 0.4f;  // τ of the official attribution_tree.py

// The official attribution_tree.py for any B >= 2 blocks: T[b] = Σ_h Attr[b], divided by
// |max(T[b][P:, :])| and zeroed at or below `threshold`; the top node is the largest row
// sum of Σ_b T[b] with the diagonal, negative entries and the rows of the P prefix tokens
// removed (ties: the higher token, as NumPy's reversed argsort); then edges from block B-2
// down to 0, never from a prefix row. P = special_tokens: 1 (CLS) as in the official
// code, 0 for a model without prefix tokens, 2+ for dist/registers (docs/layouts.md).
// Throws InputError unless attr is a finite [B,h,S,S] with B >= 2, S >= 2, 0 <= P < S,
// and the threshold is finite and > 0.
AttributionTree attribution_tree(const TensorView& attr, float threshold = kTreeThreshold,
                                 int special_tokens = 1);

}  // namespace vitrel
