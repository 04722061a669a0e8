// The readout row vector of a pool (relevance.h, docs/layouts.md).

#include <string>

#include "methods/checked_inputs.h"
#include "methods/relevance.h"

namespace vitrel {

namespace {

// The fewest prefix tokens a pool reads: cls (and dist) must be among them.
int prefix_tokens_needed(Pool pool) {
  switch (pool) {
    case Pool::Cls:
    case Pool::ClsAvg: return 1;
    case Pool::ClsDist: return 2;
    case Pool::Avg:
    case Pool::AvgPrefix: return 0;
  }
  return 0;
}

}  // namespace

std::vector<float> readout_weights(const TokenLayout& layout, const MethodOptions& options) {
  to_id(options.pool);  // rejects a value outside the table
  check_layout(layout);
  const int S = layout.tokens();
  const int P = layout.special_tokens;
  const Pool pool = options.pool;
  const int q = options.query_token;
  if (q != kReadout && (q < 0 || q >= S))
    throw InputError("options: query_token " + std::to_string(q) + " is out of range [0," +
                     std::to_string(S) + ") for " + layout_string(layout) + " (or " +
                     std::to_string(kReadout) + " for the pool's readout)");
  // BERT's head reads [CLS] alone (its pooler, DistilBERT's pre_classifier).
  if (layout.is_text() && q == kReadout && pool != Pool::Cls)
    throw InputError(std::string("options: pool ") + to_id(pool) +
                     " is not a text model's: BERT reads [CLS] (pool cls)");
  // A token's own row reads no pool; the pool's readout must find its tokens.
  const int needed = q == kReadout ? prefix_tokens_needed(pool) : 0;
  if (P < needed)
    throw InputError(std::string("options: pool ") + to_id(pool) + " reads token" +
                     (needed > 1 ? "s 0 and 1" : " 0") + " (" +
                     (needed > 1 ? "cls and dist" : "cls") + "), but the layout has " +
                     std::to_string(P) + " special token" + (P == 1 ? "" : "s"));

  std::vector<float> r(static_cast<size_t>(S), 0.f);
  if (q != kReadout) {
    r[q] = 1.f;
    return r;
  }
  const int patches = S - P;
  switch (pool) {
    case Pool::Cls: r[0] = 1.f; break;
    case Pool::ClsDist: r[0] = r[1] = 0.5f; break;
    case Pool::Avg:
      for (int j = P; j < S; ++j) r[j] = 1.f / static_cast<float>(patches);
      break;
    case Pool::AvgPrefix:
      for (int j = 0; j < S; ++j) r[j] = 1.f / static_cast<float>(S);
      break;
    case Pool::ClsAvg:
      // The head's two halves get the same share; their true split depends on the head's
      // weights, which the gradients (not the readout) already carry.
      for (int j = P; j < S; ++j) r[j] = 0.5f / static_cast<float>(patches);
      r[0] += 0.5f;
      break;
  }
  return r;
}

}  // namespace vitrel
