#include "bytes.h"

#include <cmath>
#include <string>

#include "tensor/tensor_view.h"

namespace vitrel::wasm {

Bytes Bytes::with_size(double size) {
  if (!(size >= 0) || size != std::floor(size) || size >= 2147483648.0) {
    throw InputError("byte buffer size must be an integer in [0, 2 GB), got " +
                     std::to_string(size));
  }
  return Bytes(std::vector<uint8_t>(static_cast<size_t>(size), 0));
}

}  // namespace vitrel::wasm
