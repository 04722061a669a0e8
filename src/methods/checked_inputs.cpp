#include "methods/checked_inputs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace vitrel {

namespace {

TensorSet needs_of(const std::vector<Method>& methods) {
  TensorSet all;
  for (Method m : methods) all |= method_info(m).needs;
  return all;
}

// Names the first method that needs a tensor which is missing.
void require_present(const std::vector<Method>& methods, const RelevanceInputs& in) {
  for (Method m : methods)
    for (const TensorInfo& t : id_table(Tensor{}))
      if (method_info(m).needs.contains(t.value) && in[t.value].empty())
        throw InputError(std::string(to_id(m)) + ": needs " + t.id + ", which is missing");
}

// Upper bound on S, B and h: keeps every index the kernels compute in int (one row) or
// int64 (a tensor) arithmetic far from overflow.
constexpr int64_t kMaxDim = 1 << 20;

}  // namespace

void check_layout(const TokenLayout& layout) {
  if (layout.text_tokens < 0)
    throw InputError("layout: text_tokens must be >= 0, got " + std::to_string(layout.text_tokens));
  if (layout.is_text()) {
    if (layout.grid_rows != 0 || layout.grid_cols != 0 || layout.special_tokens != 1)
      throw InputError("layout: a text layout has no grid and one special token ([CLS]) first");
    if (layout.text_tokens > kMaxDim)
      throw InputError("layout: " + std::to_string(layout.text_tokens) +
                       " tokens is more than the supported " + std::to_string(kMaxDim));
    return;
  }
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
  if (layout.is_text()) return std::to_string(layout.tokens()) + " text tokens";
  return std::to_string(layout.tokens()) + " tokens = " + std::to_string(layout.special_tokens) +
         " special + " + std::to_string(layout.grid_rows) + "x" + std::to_string(layout.grid_cols) +
         " grid";
}

namespace {

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

// A [rows, cols] map at the pixels: any size up to kMaxDim a side, finite.
PixelTensor check_pixel_tensor(const TensorView& t, const char* name) {
  require_shape(t, {-1, -1}, name, nullptr);
  if (t.shape[0] > kMaxDim || t.shape[1] > kMaxDim)
    throw InputError(std::string(name) + ": shape " + t.shape_string() + " is too large");
  require_finite(t, name);
  return PixelTensor{t.data, to_int(t.shape[0]), to_int(t.shape[1])};
}

// On a text, the same tensor is [S]: one value per token.
PixelTensor check_token_tensor(const TensorView& t, const char* name, const TokenLayout& layout) {
  try {
    require_shape(t, {layout.tokens()}, name);
  } catch (const InputError& e) {
    if (t.empty()) throw;
    throw InputError(std::string(e.what()) + " (" + layout_string(layout) + ")");
  }
  require_finite(t, name);
  return PixelTensor{t.data, 1, layout.tokens()};
}

}  // namespace

TensorView& RelevanceInputs::operator[](Tensor t) {
  return const_cast<TensorView&>(static_cast<const RelevanceInputs&>(*this)[t]);
}

const TensorView& RelevanceInputs::operator[](Tensor t) const {
  switch (t) {
    case Tensor::Attn: return attn;
    case Tensor::AttnGrad: return attn_grad;
    case Tensor::AttnRel: return attn_rel;
    case Tensor::AttnRelClassicLast: return attn_rel_classic_last;
    case Tensor::InputRelClassic: return input_rel_classic;
    case Tensor::Attr: return attr;
    case Tensor::InputRelAttnLrp: return input_rel_attnlrp;
    case Tensor::InputRelCpLrp: return input_rel_cp_lrp;
  }
  throw InputError("tensor: unknown value");  // unreachable for a Tensor of the table
}

bool has_inputs_for(Method m, const RelevanceInputs& in) {
  const MethodInfo& info = method_info(m);
  for (const TensorInfo& t : id_table(Tensor{}))
    if (info.needs.contains(t.value) && in[t.value].empty()) return false;
  // A model with fewer blocks than the method is defined for (ablation_second_block on one
  // block) has no inputs for it: 'all' leaves it out, naming it still refuses it.
  for (Tensor t : {Tensor::Attn, Tensor::AttnGrad, Tensor::AttnRel})
    if (info.needs.contains(t) && in[t].shape.size() == 4 && in[t].shape[0] < info.min_blocks)
      return false;
  return true;
}

namespace {

std::string magnitude_text(float v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", static_cast<double>(v));
  return text;
}

float largest_magnitude(const float* data, int64_t n) {
  float largest = 0.f;
  for (int64_t i = 0; i < n; ++i) largest = std::max(largest, std::fabs(data[i]));
  return largest;
}

// The checked per-block tensor `t` (the input_rel_* pixel tensors, which no step can
// overflow, have none).
const BlockStack* stack_of(const CheckedInputs& in, Tensor t) {
  switch (t) {
    case Tensor::Attn: return &in.attn;
    case Tensor::AttnGrad: return &in.attn_grad;
    case Tensor::AttnRel: return &in.attn_rel;
    case Tensor::AttnRelClassicLast: return &in.attn_rel_classic_last;
    case Tensor::InputRelClassic: return nullptr;
    case Tensor::Attr: return &in.attr;
    case Tensor::InputRelAttnLrp: return nullptr;
    case Tensor::InputRelCpLrp: return nullptr;
  }
  return nullptr;
}

}  // namespace

void require_unscanned_finite(const CheckedInputs& in) {
  for (const BlockStack& t : in.unscanned)
    require_finite(TensorView{t.data, {t.blocks, t.heads, t.tokens, t.tokens}}, t.name);
}

void report_overflow(Method m, const CheckedInputs& in, const std::string& what) {
  require_unscanned_finite(in);
  const MethodInfo& info = method_info(m);
  std::string sizes;
  for (const TensorInfo& t : id_table(Tensor{})) {
    const BlockStack* stack = stack_of(in, t.value);
    if (!info.needs.contains(t.value) || !stack || stack->empty()) continue;
    sizes += (sizes.empty() ? "" : ", ") + std::string("|") + stack->name + "| up to " +
             magnitude_text(largest_magnitude(stack->data, stack->blocks * stack->block_numel()));
  }
  throw InputError(std::string(info.id) + ": " + what +
                   " overflows float32: the inputs are finite but too large for this method (" +
                   sizes + ")");
}

void require_finite_result(Method m, const CheckedInputs& in, const float* values, int64_t n,
                           const std::string& what) {
  const int64_t bad = first_non_finite(values, n);
  if (bad < 0) return;
  const float v = values[bad];
  report_overflow(m, in,
                  what + " (" +
                      (v != v  ? "NaN"
                       : v > 0 ? "+inf"
                               : "-inf") +
                      " at index " + std::to_string(bad) + ")");
}

CheckedInputs check_inputs(const std::vector<Method>& methods, const RelevanceInputs& in,
                           const TokenLayout& layout, const MethodOptions& options) {
  for (Method m : methods) method_info(m);  // rejects e.g. an integer cast from a binding
  require_present(methods, in);
  const TensorSet needs = needs_of(methods);
  const bool needs_tokens = needs.contains(Tensor::Attn) || needs.contains(Tensor::AttnGrad) ||
                            needs.contains(Tensor::AttnRel) ||
                            needs.contains(Tensor::AttnRelClassicLast) ||
                            needs.contains(Tensor::Attr);

  CheckedInputs out;
  out.layout = layout;
  out.options = options;
  if (layout.is_text()) check_layout(layout);  // the token tensors need S even without a block

  if (needs_tokens) {
    out.readout = readout_weights(layout, options);  // checks the layout, pool and token
    const int S = layout.tokens();

    // Per-block tensors: the first one needed fixes the shape the others must have.
    struct Slot {
      bool needed;
      const TensorView& view;
      const char* name;
      BlockStack& stack;
    };
    Slot slots[] = {{needs.contains(Tensor::Attn), in.attn, "attn", out.attn},
                    {needs.contains(Tensor::AttnGrad), in.attn_grad, "attn_grad", out.attn_grad},
                    {needs.contains(Tensor::AttnRel), in.attn_rel, "attn_rel", out.attn_rel},
                    {needs.contains(Tensor::Attr), in.attr, "attr", out.attr}};
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

    if (needs.contains(Tensor::AttnRelClassicLast)) {
      const TensorView& t = in.attn_rel_classic_last;
      if (first) {
        const std::string like = std::string("the heads of ") + first_name;
        require_shape(t, {heads, S, S}, "attn_rel_classic_last", like.c_str());
      } else {
        require_shape(t, {-1, S, S}, "attn_rel_classic_last", nullptr);
        if (t.shape[0] > kMaxDim)
          throw InputError("attn_rel_classic_last: shape " + t.shape_string() + " is too large");
        heads = to_int(t.shape[0]);
      }
      require_finite(t, "attn_rel_classic_last");
      out.attn_rel_classic_last = as_stack(t, "attn_rel_classic_last", 1, heads, S);
    }
  }

  struct Pixels {
    Tensor tensor;
    PixelTensor& out;
  };
  for (Pixels p : {Pixels{Tensor::InputRelClassic, out.input_rel_classic},
                   Pixels{Tensor::InputRelAttnLrp, out.input_rel_attnlrp},
                   Pixels{Tensor::InputRelCpLrp, out.input_rel_cp_lrp}})
    if (needs.contains(p.tensor))
      p.out = layout.is_text() ? check_token_tensor(in[p.tensor], to_id(p.tensor), layout)
                               : check_pixel_tensor(in[p.tensor], to_id(p.tensor));

  for (Method m : methods) {
    const MethodInfo& info = method_info(m);
    if (info.start_layer && (options.start_layer < 0 || options.start_layer >= out.blocks))
      throw InputError("options: start_layer " + std::to_string(options.start_layer) +
                       " is out of range [0," + std::to_string(out.blocks) + ") for " +
                       std::to_string(out.blocks) + " blocks");
    if (info.min_blocks > 1 && out.blocks < info.min_blocks)
      throw InputError(std::string(info.id) + ": needs at least " +
                       std::to_string(info.min_blocks) + " blocks, got " +
                       std::to_string(out.blocks));
  }
  return out;
}

}  // namespace vitrel
