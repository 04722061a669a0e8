#pragma once
// Non-owning float tensors with explicit shapes, and the checks every entry point runs
// on them before reading a single element.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/errors.h"

namespace vitrel {

// A read-only view of `numel()` contiguous float32 values in C (row-major) order.
struct TensorView {
  const float* data = nullptr;
  std::vector<int64_t> shape;

  bool empty() const { return data == nullptr; }
  int64_t numel() const;             // throws InputError on a negative dim or int64 overflow
  std::string shape_string() const;  // e.g. "[12,3,197,197]"
};

// Throws InputError unless `t` is non-empty and has exactly these dims; a dim of -1
// matches any size >= 1. `what` names the argument in the message.
void require_shape(const TensorView& t, std::initializer_list<int64_t> dims, const char* what);

// The same check with dims known at run time. `like` (may be null) names the tensor the
// dims were taken from, for messages such as
// "attention_grad: expected shape [12,3,197,197] like attention, got [12,3,197,196]".
// Also rejects shapes whose element count cannot be addressed on this platform.
void require_shape(const TensorView& t, const std::vector<int64_t>& dims, const char* what,
                   const char* like);

// "[12,3,197,197]"; a -1 (the wildcard of require_shape) prints as "?".
std::string shape_to_string(const std::vector<int64_t>& dims);

// Flat index of the first NaN or infinity among data[0..n), or -1 if all are finite.
int64_t first_non_finite(const float* data, int64_t n);

// Throws InputError naming the first NaN or infinity (its flat index) in `t`.
void require_finite(const TensorView& t, const char* what);

}  // namespace vitrel
