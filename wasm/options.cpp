#include "options.h"

#include <cmath>
#include <string>

#include "floats.h"

namespace vitrel::wasm {

using emscripten::val;

int int_field(const val& object, const char* key, int fallback) {
  if (object.isUndefined() || object.isNull()) return fallback;
  const val v = object[key];
  if (v.isUndefined() || v.isNull()) return fallback;
  const double x = v.isNumber() ? v.as<double>() : NAN;
  if (!(std::fabs(x) <= 2147483647.0) || x != std::floor(x)) {
    throw InputError(std::string("option ") + key + " must be an integer, got " +
                     v.call<std::string>("toString"));
  }
  return static_cast<int>(x);
}

static TensorView tensor_field(const val& tensors, const char* key) {
  const Floats* f = floats_or_null(tensors[key]);
  return f ? f->tensor() : TensorView{};
}

RelevanceInputs relevance_inputs(const val& tensors) {
  RelevanceInputs in;
  if (tensors.isUndefined() || tensors.isNull()) return in;
  in.attention = tensor_field(tensors, "attention");
  in.attention_grad = tensor_field(tensors, "attentionGrad");
  in.attention_rel = tensor_field(tensors, "attentionRel");
  in.rel_classic_last = tensor_field(tensors, "relClassicLast");
  in.input_rel_classic = tensor_field(tensors, "inputRelClassic");
  return in;
}

TokenLayout token_layout(const val& options) {
  TokenLayout layout;
  layout.grid_rows = int_field(options, "gridRows", 0);
  layout.grid_cols = int_field(options, "gridCols", 0);
  layout.special_tokens = int_field(options, "specialTokens", 1);
  return layout;
}

MethodOptions method_options(const val& options) {
  MethodOptions o;
  o.start_layer = int_field(options, "startLayer", 0);
  o.query_token = int_field(options, "queryToken", 0);
  return o;
}

}  // namespace vitrel::wasm
