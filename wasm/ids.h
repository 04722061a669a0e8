#pragma once
// The one way an enum's public ids reach JS: bind_ids<E>("colormapIds") registers a
// function returning the ids of E's table (common/ids.h) in table order; runtime/core*.js
// freezes the list into core.<name>. JS passes ids back as strings, checked by from_id.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "common/ids.h"

namespace vitrel::wasm {

template <class E>
emscripten::val id_list() {
  emscripten::val out = emscripten::val::array();
  for (E v : all_values<E>()) out.call<void>("push", std::string(to_id(v)));
  return out;
}

template <class E>
void bind_ids(const char* js_name) {
  emscripten::function(js_name, &id_list<E>);
}

}  // namespace vitrel::wasm
