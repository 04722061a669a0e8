#include "methods/gradient_x_input.h"

#include <cstddef>
#include <vector>

namespace vitrel {

namespace {

RelevanceMap copy_of(const PixelTensor& x) {
  const size_t n = static_cast<size_t>(x.rows) * static_cast<size_t>(x.cols);
  return RelevanceMap{x.rows, x.cols, std::vector<float>(x.data, x.data + n)};
}

}  // namespace

RelevanceMap attnlrp_map(const CheckedInputs& in) { return copy_of(in.input_rel_attnlrp); }

RelevanceMap cp_lrp_map(const CheckedInputs& in) { return copy_of(in.input_rel_cp_lrp); }

}  // namespace vitrel
