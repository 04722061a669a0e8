#include "methods/checked_inputs.h"

#include <algorithm>
#include <string>

namespace vitrel {

namespace {

// Which exported tensors a method reads (only what its formula in METHODS.md uses).
struct Needs {
  bool attention = false;
  bool attention_grad = false;
  bool attention_rel = false;
  bool rel_classic_last = false;
  bool input_rel_classic = false;
  bool attribution = false;
};

Needs needs_of(Method m) {
  Needs n;
  switch (m) {
    case Method::TransformerAttribution:
    case Method::AblationLastBlock:
    case Method::AblationSecondBlock:
      n.attention_grad = n.attention_rel = true;
      break;
    case Method::AttentionRollout:
    case Method::RawAttention:
      n.attention = true;
      break;
    case Method::GradCam:
    case Method::GenericAttention:
      n.attention = n.attention_grad = true;
      break;
    case Method::PartialLrp:
      n.rel_classic_last = true;
      break;
    case Method::LrpFull:
      n.input_rel_classic = true;
      break;
    case Method::AblationNoGrad:
      n.attention_rel = true;
      break;
    case Method::AttAttr:
      n.attribution = true;
      break;
  }
  return n;
}

Needs merge(const std::vector<Method>& methods) {
  Needs all;
  for (Method m : methods) {
    const Needs n = needs_of(m);
    all.attention |= n.attention;
    all.attention_grad |= n.attention_grad;
    all.attention_rel |= n.attention_rel;
    all.rel_classic_last |= n.rel_classic_last;
    all.input_rel_classic |= n.input_rel_classic;
    all.attribution |= n.attribution;
  }
  return all;
}

// Names the first method that needs a tensor which is missing.
void require_present(const std::vector<Method>& methods, const RelevanceInputs& in) {
  for (Method m : methods) {
    const Needs n = needs_of(m);
    const char* missing = nullptr;
    if (n.attention && in.attention.empty()) missing = "attention";
    else if (n.attention_grad && in.attention_grad.empty()) missing = "attention_grad";
    else if (n.attention_rel && in.attention_rel.empty()) missing = "attention_rel";
    else if (n.rel_classic_last && in.rel_classic_last.empty()) missing = "rel_classic_last";
    else if (n.input_rel_classic && in.input_rel_classic.empty()) missing = "input_rel_classic";
    else if (n.attribution && in.attribution.empty()) missing = "attribution";
    if (missing)
      throw InputError(std::string(method_id(m)) + ": needs " + missing + ", which is missing");
  }
}

// Upper bound on S, B and h: keeps every index the kernels compute in int (one row) or
// int64 (a tensor) arithmetic far from overflow.
constexpr int64_t kMaxDim = 1 << 20;

void check_layout(const TokenLayout& layout) {
  if (layout.grid_rows < 1 || layout.grid_cols < 1)
    throw InputError("layout: grid must be at least 1x1, got " + std::to_string(layout.grid_rows) +
                     "x" + std::to_string(layout.grid_cols));
  if (layout.special_tokens < 0)
    throw InputError("layout: special_tokens must be >= 0, got " +
                     std::to_string(layout.special_tokens));
  const int64_t tokens = static_cast<int64_t>(layout.special_tokens) +
                         static_cast<int64_t>(layout.grid_rows) * layout.grid_cols;
  if (tokens > kMaxDim)
    throw InputError("layout: " + std::to_string(tokens) + " tokens is more than the supported " +
                     std::to_string(kMaxDim));
}

std::string layout_string(const TokenLayout& layout) {
  return std::to_string(layout.tokens()) + " tokens = " + std::to_string(layout.special_tokens) +
         " special + " + std::to_string(layout.grid_rows) + "x" +
         std::to_string(layout.grid_cols) + " grid";
}

BlockStack as_stack(const TensorView& t, const char* name, int blocks, int heads, int tokens) {
  return BlockStack{name, t.data, blocks, heads, tokens};
}

int to_int(int64_t v) { return static_cast<int>(v); }

// The first per-block tensor fixes B and h; its last two dims must be the layout's S.
void check_first_block_tensor(const TensorView& t, const char* name, const TokenLayout& layout) {
  const int64_t S = layout.tokens();
  try {
    require_shape(t, {-1, -1, S, S}, name);
  } catch (const InputError& e) {
    if (t.empty()) throw;
    throw InputError(std::string(e.what()) + " (" + layout_string(layout) + ")");
  }
  if (t.shape[0] > kMaxDim || t.shape[1] > kMaxDim)
    throw InputError(std::string(name) + ": shape " + t.shape_string() + " is too large");
}

}  // namespace

bool has_inputs_for(Method m, const RelevanceInputs& in) {
  const Needs n = needs_of(m);
  return !(n.attention && in.attention.empty()) &&
         !(n.attention_grad && in.attention_grad.empty()) &&
         !(n.attention_rel && in.attention_rel.empty()) &&
         !(n.rel_classic_last && in.rel_classic_last.empty()) &&
         !(n.input_rel_classic && in.input_rel_classic.empty()) &&
         !(n.attribution && in.attribution.empty());
}

bool is_rollout_method(Method m) {
  return m == Method::TransformerAttribution || m == Method::AttentionRollout ||
         m == Method::AblationNoGrad || m == Method::GenericAttention || m == Method::AttAttr;
}

bool uses_start_layer(Method m) {
  return m == Method::TransformerAttribution || m == Method::AttentionRollout ||
         m == Method::AblationNoGrad || m == Method::AttAttr;
}

CheckedInputs check_inputs(const std::vector<Method>& methods, const RelevanceInputs& in,
                           const TokenLayout& layout, const MethodOptions& options) {
  for (Method m : methods)  // e.g. an integer cast from a binding
    if (std::find(all_methods().begin(), all_methods().end(), m) == all_methods().end())
      throw InputError("method: unknown method value " + std::to_string(static_cast<int>(m)));
  require_present(methods, in);
  const Needs needs = merge(methods);
  const bool needs_tokens = needs.attention || needs.attention_grad || needs.attention_rel ||
                            needs.rel_classic_last || needs.attribution;

  CheckedInputs out;
  out.layout = layout;
  out.options = options;

  if (needs_tokens) {
    check_layout(layout);
    const int S = layout.tokens();
    if (options.query_token < 0 || options.query_token >= S)
      throw InputError("options: query_token " + std::to_string(options.query_token) +
                       " is out of range [0," + std::to_string(S) + ") for " +
                       layout_string(layout));

    // Per-block tensors: the first one needed fixes the shape the others must have.
    struct Slot {
      bool needed;
      const TensorView& view;
      const char* name;
      BlockStack& stack;
    };
    Slot slots[] = {{needs.attention, in.attention, "attention", out.attention},
                    {needs.attention_grad, in.attention_grad, "attention_grad", out.attention_grad},
                    {needs.attention_rel, in.attention_rel, "attention_rel", out.attention_rel},
                    {needs.attribution, in.attribution, "attribution", out.attribution}};
    const TensorView* first = nullptr;
    const char* first_name = nullptr;
    for (Slot& s : slots) {
      if (!s.needed) continue;
      if (!first) {
        check_first_block_tensor(s.view, s.name, layout);
        first = &s.view;
        first_name = s.name;
      } else {
        require_shape(s.view, first->shape, s.name, first_name);
      }
    }
    int heads = -1;
    if (first) {
      out.blocks = to_int(first->shape[0]);
      heads = to_int(first->shape[1]);
      for (Slot& s : slots)
        if (s.needed) {
          s.stack = as_stack(s.view, s.name, out.blocks, heads, S);
          out.unscanned.push_back(s.stack);
        }
    }

    if (needs.rel_classic_last) {
      const TensorView& t = in.rel_classic_last;
      if (first) {
        const std::string like = std::string("the heads of ") + first_name;
        require_shape(t, {heads, S, S}, "rel_classic_last", like.c_str());
      } else {
        require_shape(t, {-1, S, S}, "rel_classic_last", nullptr);
        if (t.shape[0] > kMaxDim)
          throw InputError("rel_classic_last: shape " + t.shape_string() + " is too large");
        heads = to_int(t.shape[0]);
      }
      require_finite(t, "rel_classic_last");
      out.rel_classic_last = as_stack(t, "rel_classic_last", 1, heads, S);
    }
  }

  if (needs.input_rel_classic) {
    const TensorView& t = in.input_rel_classic;
    require_shape(t, {-1, -1}, "input_rel_classic", nullptr);
    if (t.shape[0] > kMaxDim || t.shape[1] > kMaxDim)
      throw InputError("input_rel_classic: shape " + t.shape_string() + " is too large");
    require_finite(t, "input_rel_classic");
    out.input_rel_classic = t.data;
    out.input_rows = to_int(t.shape[0]);
    out.input_cols = to_int(t.shape[1]);
  }

  for (Method m : methods) {
    if (uses_start_layer(m) && (options.start_layer < 0 || options.start_layer >= out.blocks))
      throw InputError("options: start_layer " + std::to_string(options.start_layer) +
                       " is out of range [0," + std::to_string(out.blocks) + ") for " +
                       std::to_string(out.blocks) + " blocks");
    if (m == Method::AblationSecondBlock && out.blocks < 2)
      throw InputError("ablation_second_block: needs at least 2 blocks (it reads block 1), got " +
                       std::to_string(out.blocks));
  }
  return out;
}

}  // namespace vitrel
