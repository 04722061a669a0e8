#include "floats.h"

#include <emscripten/bind.h>

#include <cmath>
#include <string>
#include <utility>

namespace vitrel::wasm {

using emscripten::val;

namespace {
// The heap is at most 2 GB (-sMAXIMUM_MEMORY); refuse anything that could not fit.
constexpr int64_t kMaxElements = (int64_t{1} << 29) - 1;
}  // namespace

Floats::Floats(std::vector<float> values, std::vector<int64_t> shape)
    : values_(std::move(values)), shape_(std::move(shape)) {}

Floats Floats::with_shape(const val& shape) {
  if (!shape.isArray()) throw InputError("shape must be an array of positive integers");
  const int rank = shape["length"].as<int>();
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    const val d = shape[i];
    const double x = d.isNumber() ? d.as<double>() : -1.0;
    if (!(x >= 1.0) || x != std::floor(x) || x > static_cast<double>(kMaxElements)) {
      throw InputError("shape must be an array of positive integers, got dim " + std::to_string(i) +
                       " = " + d.call<std::string>("toString"));
    }
    dims.push_back(static_cast<int64_t>(x));
    count *= dims.back();
    if (count > kMaxElements) {
      throw InputError("shape " + shape_to_string(dims) +
                       "... is too large for the WebAssembly heap");
    }
  }
  return Floats(std::vector<float>(static_cast<size_t>(count), 0.0f), std::move(dims));
}

val Floats::view() { return val(emscripten::typed_memory_view(values_.size(), values_.data())); }

val Floats::shape() const {
  val out = val::array();
  for (int64_t d : shape_) out.call<void>("push", static_cast<double>(d));
  return out;
}

TensorView Floats::tensor() const {
  TensorView t;
  t.data = values_.data();
  t.shape = shape_;
  return t;
}

const Floats* floats_or_null(const val& v) {
  if (v.isUndefined() || v.isNull()) return nullptr;
  return v.as<Floats*>(emscripten::allow_raw_pointers());
}

}  // namespace vitrel::wasm
