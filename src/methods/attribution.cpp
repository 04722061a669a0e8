#include "methods/attribution.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>

namespace vitrel {

namespace {

struct Dims {
  int blocks, heads, tokens;
};

Dims check_attr(const TensorView& attr, int min_blocks, int min_tokens) {
  require_shape(attr, {-1, -1, -1, -1}, "attribution");
  if (attr.shape[2] != attr.shape[3])
    throw InputError("attribution: expected [B,h,S,S], got " + attr.shape_string());
  if (attr.shape[0] < min_blocks || attr.shape[2] < min_tokens)
    throw InputError("attribution: the tree needs at least " + std::to_string(min_blocks) +
                     " blocks and " + std::to_string(min_tokens) + " tokens, got " +
                     attr.shape_string());
  require_finite(attr, "attribution");
  return {static_cast<int>(attr.shape[0]), static_cast<int>(attr.shape[1]),
          static_cast<int>(attr.shape[2])};
}

// T[b] = Σ_h Attr[b] as S x S doubles, one vector per block.
std::vector<std::vector<double>> head_sums(const TensorView& attr, const Dims& d) {
  const size_t SS = static_cast<size_t>(d.tokens) * d.tokens;
  std::vector<std::vector<double>> t(d.blocks, std::vector<double>(SS, 0.0));
  for (int b = 0; b < d.blocks; ++b)
    for (int k = 0; k < d.heads; ++k) {
      const float* head = attr.data + (static_cast<size_t>(b) * d.heads + k) * SS;
      for (size_t e = 0; e < SS; ++e) t[b][e] += head[e];
    }
  return t;
}

// T / |max(T[P:, :])|, entries <= threshold set to 0 (a zero max leaves nothing).
std::vector<double> proportion(const std::vector<double>& t, int S, int P, double threshold) {
  const double peak = std::fabs(*std::max_element(t.begin() + int64_t{P} * S, t.end()));
  std::vector<double> p(t.size(), 0.0);
  if (peak == 0.0) return p;
  for (size_t e = 0; e < t.size(); ++e) {
    const double v = t[e] / peak;
    p[e] = v > threshold ? v : 0.0;
  }
  return p;
}

// Row sums of Σ_b T[b] without the diagonal, negative entries and the P prefix rows (its
// scaling by |max| in the official code does not change the order); the largest, ties to
// the later.
int top_node(const std::vector<std::vector<double>>& t, int S, int P) {
  std::vector<double> total(t.front().size(), 0.0);
  for (const auto& block : t)
    for (size_t e = 0; e < total.size(); ++e) total[e] += block[e];
  int top = P;
  double best = -1.0;
  for (int i = P; i < S; ++i) {
    double sum = 0.0;
    for (int j = 0; j < S; ++j)
      if (j != i && total[static_cast<size_t>(i) * S + j] > 0.0)
        sum += total[static_cast<size_t>(i) * S + j];
    if (sum >= best) best = sum, top = i;
  }
  return top;
}

}  // namespace

std::vector<float> head_importance(const TensorView& attr) {
  const Dims d = check_attr(attr, 1, 1);
  const size_t SS = static_cast<size_t>(d.tokens) * d.tokens;
  std::vector<float> out(static_cast<size_t>(d.blocks) * d.heads);
  for (size_t bk = 0; bk < out.size(); ++bk)
    out[bk] = *std::max_element(attr.data + bk * SS, attr.data + (bk + 1) * SS);
  return out;
}

std::vector<float> taylor_importance(const TensorView& attn, const TensorView& attn_grad) {
  const Dims d = check_attr(attn, 1, 1);
  check_attr(attn_grad, 1, 1);
  if (attn.shape != attn_grad.shape)
    throw InputError("taylor importance: attn is " + attn.shape_string() + " but attn_grad is " +
                     attn_grad.shape_string());
  const size_t SS = static_cast<size_t>(d.tokens) * d.tokens;
  std::vector<float> out(static_cast<size_t>(d.blocks) * d.heads);
  for (size_t bk = 0; bk < out.size(); ++bk) {
    double sum = 0.0;
    for (size_t e = bk * SS; e < (bk + 1) * SS; ++e)
      sum += static_cast<double>(attn.data[e]) * attn_grad.data[e];
    out[bk] = static_cast<float>(std::fabs(sum));
  }
  return out;
}

AttributionTree attribution_tree(const TensorView& attr, float threshold, int special_tokens) {
  if (!(std::isfinite(threshold) && threshold > 0.f))
    throw InputError("threshold: must be a finite number > 0, got " + std::to_string(threshold));
  const Dims d = check_attr(attr, 2, 2);
  const int S = d.tokens, P = special_tokens;
  if (P < 0 || P >= S)
    throw InputError("attribution tree: special_tokens " + std::to_string(P) +
                     " is out of range [0," + std::to_string(S) + ") for " + std::to_string(S) +
                     " tokens");
  const std::vector<std::vector<double>> t = head_sums(attr, d);
  const double tau = threshold;
  auto prop = [&](int b) { return proportion(t[b], S, P, tau); };

  enum State { kAbsent = -1, kLeaf = 0, kFixed = 1 };  // "fixed": has a child
  std::vector<int> state(S, kAbsent);
  AttributionTree tree;
  tree.top = top_node(t, S, P);
  state[tree.top] = kLeaf;
  std::set<std::pair<int, int>> linked;
  auto add = [&](int i, int j, int b) {
    tree.edges.push_back({i, j, b});
    linked.insert({i, j});
  };

  const std::vector<double> second_last = prop(d.blocks - 2);
  for (int j = 0; j < S; ++j)
    if (j != tree.top && second_last[static_cast<size_t>(tree.top) * S + j] > tau) {
      state[j] = kLeaf;
      state[tree.top] = kFixed;
      add(tree.top, j, d.blocks - 2);
    }

  for (int b = d.blocks - 3; b >= 0; --b) {
    const std::vector<double> p = prop(b);
    for (int i = P; i < S; ++i)
      for (int j = 0; j < S; ++j) {
        if (p[static_cast<size_t>(i) * S + j] < tau || state[i] == kAbsent) continue;
        if (state[j] == kFixed || linked.count({i, j})) continue;
        if (state[j] == kLeaf) continue;  // both leaves, or a fixed node and a leaf
        // j is new: it becomes a leaf under i, which is fixed from now on
        state[i] = kFixed;
        state[j] = kLeaf;
        add(i, j, b);
      }
  }
  for (int i = 0; i < S; ++i)
    if (state[i] != kAbsent) tree.nodes.push_back(i);
  return tree;
}

}  // namespace vitrel
