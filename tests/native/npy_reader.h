#pragma once
// The one C++ reader of NumPy .npy files (write_maps, the golden GoogleTests, the npy
// fuzz target): float32 little-endian in C order, format versions 1-3. Anything else,
// or any inconsistency between header and bytes, is an NpyError naming the file; it never
// guesses and never reads outside the bytes it was given.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/tensor_view.h"

namespace vitrel::test {

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;
  TensorView view() const { return TensorView{data.data(), shape}; }
};

// `name` is used in messages.
NpyArray parse_npy(const uint8_t* bytes, size_t size, const std::string& name);
NpyArray read_npy(const std::string& path);

}  // namespace vitrel::test
