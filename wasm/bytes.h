#pragma once
// Bytes: a uint8 buffer owned by the WebAssembly heap (RGBA photos and rendered images),
// the byte counterpart of Floats: JS fills it with view().set(...) and copies results out
// with view().slice(), one memcpy each way.

#include <emscripten/val.h>

#include <cstdint>
#include <vector>

namespace vitrel::wasm {

class Bytes {
 public:
  Bytes() = default;
  explicit Bytes(std::vector<uint8_t> values) : values_(std::move(values)) {}

  // Zero-filled; InputError unless 0 <= size < 2 GB.
  static Bytes with_size(double size);

  // A Uint8Array over the heap memory; invalidated when the heap grows.
  emscripten::val view() {
    return emscripten::val(emscripten::typed_memory_view(values_.size(), values_.data()));
  }
  double size() const { return static_cast<double>(values_.size()); }

  const uint8_t* data() const { return values_.data(); }
  uint8_t* data() { return values_.data(); }
  size_t byte_size() const { return values_.size(); }

 private:
  std::vector<uint8_t> values_;
};

}  // namespace vitrel::wasm
