#pragma once
// Floats: a float32 buffer owned by the WebAssembly heap, with a shape. JavaScript
// allocates one, fills it through view().set(...) (one memcpy, no per-element calls) and
// hands it to the core; results come back as Floats that JS copies out with
// view().slice() and then delete()s.

#include <emscripten/val.h>

#include <cstdint>
#include <vector>

#include "tensor/tensor_view.h"

namespace vitrel::wasm {

class Floats {
 public:
  Floats() = default;
  Floats(std::vector<float> values, std::vector<int64_t> shape);

  // Zero-filled buffer of the given JS shape (array of positive integers); InputError if
  // the shape is not one.
  static Floats with_shape(const emscripten::val& shape);

  // A Float32Array over the heap memory. It is invalidated when the heap grows, so fill or
  // copy it right away.
  emscripten::val view();
  emscripten::val shape() const;  // JS array of numbers
  int size() const { return static_cast<int>(values_.size()); }

  TensorView tensor() const;  // read-only view for the core
  const std::vector<float>& values() const { return values_; }
  const std::vector<int64_t>& dims() const { return shape_; }

 private:
  std::vector<float> values_;
  std::vector<int64_t> shape_;
};

// Reads the Floats a JS value holds; undefined/null give nullptr.
const Floats* floats_or_null(const emscripten::val& v);

}  // namespace vitrel::wasm
