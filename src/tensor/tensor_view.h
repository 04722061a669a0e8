#pragma once
// Non-owning float tensors with explicit shapes, and the checks every entry point runs
// on them before reading a single element.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace vitrel {

// Every rejected input (bad shape, non-finite value, unknown id, out-of-range option)
// is reported as an InputError whose message names the argument and what was wrong.
class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A read-only view of `numel()` contiguous float32 values in C (row-major) order.
struct TensorView {
  const float* data = nullptr;
  std::vector<int64_t> shape;

  bool empty() const { return data == nullptr; }
  int64_t numel() const;
  std::string shape_string() const;  // e.g. "[12,3,197,197]"
};

// Throws InputError unless `t` is non-empty and has exactly these dims; a dim of -1
// matches any size >= 1. `what` names the argument in the message.
void require_shape(const TensorView& t, std::initializer_list<int64_t> dims, const char* what);

// Throws InputError naming the first NaN or infinity (its flat index) in `t`.
void require_finite(const TensorView& t, const char* what);

}  // namespace vitrel
