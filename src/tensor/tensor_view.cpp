#include "tensor/tensor_view.h"

#include <cstring>
#include <limits>

namespace vitrel {

namespace {

// "[12,3,197,197]"; with `wildcards`, -1 prints as "?".
std::string join_dims(const std::vector<int64_t>& dims, bool wildcards) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += wildcards && dims[i] == -1 ? std::string("?") : std::to_string(dims[i]);
  }
  return s + "]";
}

// The element count of `shape`, or an InputError naming `what` for a negative dim or
// an int64 overflow.
int64_t checked_numel(const std::vector<int64_t>& shape, const std::string& what) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw InputError(what + ": negative dimension in shape " + join_dims(shape, false));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      throw InputError(what + ": shape " + join_dims(shape, false) + " has too many elements");
    n *= d;
  }
  return n;
}

}  // namespace

int64_t TensorView::numel() const { return checked_numel(shape, "tensor"); }

std::string TensorView::shape_string() const { return join_dims(shape, false); }

std::string shape_to_string(const std::vector<int64_t>& dims) { return join_dims(dims, true); }

void require_shape(const TensorView& t, const std::vector<int64_t>& dims, const char* what,
                   const char* like) {
  const std::string name(what);
  const std::string expected =
      "expected shape " + shape_to_string(dims) + (like ? std::string(" like ") + like : "");
  if (t.empty()) throw InputError(name + ": missing (no data), " + expected);

  bool matches = t.shape.size() == dims.size();
  for (size_t i = 0; matches && i < dims.size(); ++i)
    matches = dims[i] < 0 ? t.shape[i] >= 1 : t.shape[i] == dims[i];
  if (!matches) throw InputError(name + ": " + expected + ", got " + t.shape_string());

  // The element count must also be addressable here (32-bit size_t under WebAssembly).
  const int64_t n = checked_numel(t.shape, name);
  if (static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / sizeof(float))
    throw InputError(name + ": shape " + t.shape_string() + " is too large to address");
}

void require_shape(const TensorView& t, std::initializer_list<int64_t> dims, const char* what) {
  require_shape(t, std::vector<int64_t>(dims), what, nullptr);
}

// Exponent bits all set <=> infinity or NaN. Testing the bits (not std::isfinite) lets the
// scan of each chunk vectorise; the exact index is only searched once a chunk fails.
static bool is_finite_bits(uint32_t bits) { return (bits & 0x7f800000u) != 0x7f800000u; }

int64_t first_non_finite(const float* data, int64_t n) {
  constexpr int64_t kChunk = 1024;
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t len = n - start < kChunk ? n - start : kChunk;
    uint32_t any_bad = 0;
    for (int64_t i = 0; i < len; ++i) {
      uint32_t bits;
      std::memcpy(&bits, data + start + i, sizeof bits);
      any_bad |= static_cast<uint32_t>(!is_finite_bits(bits));
    }
    if (!any_bad) continue;
    for (int64_t i = 0; i < len; ++i) {
      uint32_t bits;
      std::memcpy(&bits, data + start + i, sizeof bits);
      if (!is_finite_bits(bits)) return start + i;
    }
  }
  return -1;
}

void require_finite(const TensorView& t, const char* what) {
  if (t.empty()) throw InputError(std::string(what) + ": missing (no data)");
  const int64_t bad = first_non_finite(t.data, t.numel());
  if (bad >= 0) {
    const float v = t.data[bad];
    const char* kind = v != v ? "NaN" : (v > 0 ? "+inf" : "-inf");
    throw InputError(std::string(what) + ": non-finite value " + kind + " at flat index " +
                     std::to_string(bad) + " of " + t.shape_string());
  }
}

}  // namespace vitrel
