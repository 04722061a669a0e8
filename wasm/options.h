#pragma once
// Reading the plain JS objects the wrapper passes (tensor sets and option bags) into the
// core's structs. Field names match runtime/core.js.

#include <emscripten/val.h>

#include <string>
#include <vector>

#include "methods/relevance.h"

namespace vitrel::wasm {

// An integer field of a JS object; `fallback` when absent. InputError when it is present
// but not an integer.
int int_field(const emscripten::val& object, const char* key, int fallback);

// The same for other field types; absent → fallback, wrong type → InputError. The
// message names the field as `prefix` + key ("option startLayer", "tokenizer.cls_token").
float float_field(const emscripten::val& object, const char* key, float fallback);
bool bool_field(const emscripten::val& object, const char* key, bool fallback,
                const char* prefix = "option ");
std::string string_field(const emscripten::val& object, const char* key,
                         const std::string& fallback, const char* prefix = "option ");
std::vector<float> float_list_field(const emscripten::val& object, const char* key,
                                    const std::vector<float>& fallback);

// { attn, attn_grad, attn_rel, attn_rel_classic_last, input_rel_classic } (the tensor
// ids, registry.h): Floats or undefined each. The views borrow the Floats' memory.
RelevanceInputs relevance_inputs(const emscripten::val& tensors);

// { gridRows, gridCols, specialTokens, textTokens (> 0: a text layout) }
TokenLayout token_layout(const emscripten::val& options);

// { startLayer, queryToken (default: the pool's readout), pool (an id, default "cls") }
MethodOptions method_options(const emscripten::val& options);

}  // namespace vitrel::wasm
