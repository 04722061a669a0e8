#pragma once
// Reading the plain JS objects the wrapper passes (tensor sets and option bags) into the
// core's structs. Field names match runtime/core.js.

#include <emscripten/val.h>

#include "methods/relevance.h"

namespace vitrel::wasm {

// An integer field of a JS object; `fallback` when absent. InputError when it is present
// but not an integer.
int int_field(const emscripten::val& object, const char* key, int fallback);

// { attention, attentionGrad, attentionRel, relClassicLast, inputRelClassic }: Floats or
// undefined each. The views borrow the Floats' memory.
RelevanceInputs relevance_inputs(const emscripten::val& tensors);

// { gridRows, gridCols, specialTokens }
TokenLayout token_layout(const emscripten::val& options);

// { startLayer, queryToken }
MethodOptions method_options(const emscripten::val& options);

}  // namespace vitrel::wasm
