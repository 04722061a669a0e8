#pragma once
// The one error type of the core's public API.

#include <stdexcept>

namespace vitrel {

// Every rejected input (bad shape, non-finite value, unknown id, out-of-range option)
// is reported as an InputError whose message names the argument and what was wrong.
class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace vitrel
