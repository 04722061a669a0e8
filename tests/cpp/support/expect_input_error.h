// Test helper: runs fn and expects an InputError whose message contains `part`.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tensor/tensor_view.h"

namespace vitrel::testing {

template <class F>
void expect_input_error(F fn, const std::string& part) {
  try {
    fn();
    FAIL() << "no InputError (expected one mentioning '" << part << "')";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace vitrel::testing
