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

// The field's value, or undefined when the object or the field is absent/null.
static val field(const val& object, const char* key) {
  if (object.isUndefined() || object.isNull()) return val::undefined();
  const val v = object[key];
  return v.isNull() ? val::undefined() : v;
}

float float_field(const val& object, const char* key, float fallback) {
  const val v = field(object, key);
  if (v.isUndefined()) return fallback;
  if (!v.isNumber()) throw InputError(std::string("option ") + key + " must be a number");
  return v.as<float>();
}

bool bool_field(const val& object, const char* key, bool fallback, const char* prefix) {
  const val v = field(object, key);
  if (v.isUndefined()) return fallback;
  if (!v.isTrue() && !v.isFalse())
    throw InputError(std::string(prefix) + key + " must be true or false");
  return v.isTrue();
}

std::string string_field(const val& object, const char* key, const std::string& fallback,
                         const char* prefix) {
  const val v = field(object, key);
  if (v.isUndefined()) return fallback;
  if (!v.isString()) throw InputError(std::string(prefix) + key + " must be a string");
  return v.as<std::string>();
}

std::vector<float> float_list_field(const val& object, const char* key,
                                    const std::vector<float>& fallback) {
  const val v = field(object, key);
  if (v.isUndefined()) return fallback;
  if (!v.isArray()) throw InputError(std::string("option ") + key + " must be an array of numbers");
  std::vector<float> out;
  const int n = v["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    if (!v[i].isNumber())
      throw InputError(std::string("option ") + key + " must be an array of numbers");
    out.push_back(v[i].as<float>());
  }
  return out;
}

static TensorView tensor_field(const val& tensors, const char* key) {
  const Floats* f = floats_or_null(tensors[key]);
  return f ? f->tensor() : TensorView{};
}

RelevanceInputs relevance_inputs(const val& tensors) {
  RelevanceInputs in;
  if (tensors.isUndefined() || tensors.isNull()) return in;
  for (const TensorInfo& t : id_table(Tensor{})) in[t.value] = tensor_field(tensors, t.id);
  return in;
}

TokenLayout token_layout(const val& options) {
  TokenLayout layout;
  layout.grid_rows = int_field(options, "gridRows", 0);
  layout.grid_cols = int_field(options, "gridCols", 0);
  layout.special_tokens = int_field(options, "specialTokens", 1);
  layout.text_tokens = int_field(options, "textTokens", 0);
  return layout;
}

MethodOptions method_options(const val& options) {
  MethodOptions o;
  o.start_layer = int_field(options, "startLayer", 0);
  o.query_token = int_field(options, "queryToken", kReadout);
  o.pool = from_id<Pool>(string_field(options, "pool", to_id(Pool::Cls)));
  return o;
}

}  // namespace vitrel::wasm
