#pragma once
// Every binding runs its body through call_or_throw_js(): a C++ exception never crosses
// into JavaScript as an opaque pointer; it becomes a JS Error whose message is the C++
// what() text and whose name says which kind ("InputError" for bad inputs).

#include <emscripten/val.h>

#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "tensor/tensor_view.h"

namespace vitrel::wasm {

[[noreturn]] inline void throw_js_error(const char* name, const std::string& message) {
  emscripten::val error = emscripten::val::global("Error").new_(message);
  error.set("name", emscripten::val(name));
  error.throw_();
}

template <class F>
auto call_or_throw_js(F&& body) -> decltype(body()) {
  // The JS throw happens outside the catch blocks so the C++ exception is released first.
  const char* name = "Error";
  std::string message;
  try {
    return body();
  } catch (const InputError& e) {
    name = "InputError";
    message = e.what();
  } catch (const std::bad_alloc&) {
    name = "RangeError";
    message = "out of memory in the WebAssembly core";
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "unknown C++ exception in the WebAssembly core";
  }
  throw_js_error(name, message);
}

}  // namespace vitrel::wasm
