// Embind bindings of src/methods: method ids, the batch of maps, the token row.
// Thin by design: argument conversion here, every rule and check in the core.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "floats.h"
#include "js_errors.h"
#include "methods/checked_inputs.h"
#include "methods/relevance.h"
#include "methods/rollout_reference.h"
#include "options.h"

namespace vitrel::wasm {
namespace {

using emscripten::val;

val method_ids() {
  val out = val::array();
  for (Method m : all_methods()) out.call<void>("push", std::string(method_id(m)));
  return out;
}

bool has_inputs(const std::string& id, const val& tensors) {
  return call_or_throw_js([&] { return has_inputs_for(method_from_id(id), relevance_inputs(tensors)); });
}

// ids: JS array of method ids. Returns { [id]: Floats [rows, cols] } in the order given.
val compute_maps(const val& ids, const val& tensors, const val& options) {
  return call_or_throw_js([&] {
    if (!ids.isArray()) throw InputError("methods must be an array of method ids");
    std::vector<Method> methods;
    for (const std::string& id : emscripten::vecFromJSArray<std::string>(ids)) {
      methods.push_back(method_from_id(id));
    }
    std::vector<RelevanceMap> maps = compute_relevance_maps(
        methods, relevance_inputs(tensors), token_layout(options), method_options(options));
    val out = val::object();
    for (size_t i = 0; i < maps.size(); ++i) {
      out.set(method_id(methods[i]),
              val(Floats(std::move(maps[i].data), {maps[i].rows, maps[i].cols})));
    }
    return out;
  });
}

Floats relevance_row_of(const std::string& id, const val& tensors, const val& options) {
  return call_or_throw_js([&] {
    std::vector<float> row = relevance_row(method_from_id(id), relevance_inputs(tensors),
                                           token_layout(options), method_options(options));
    const int64_t n = static_cast<int64_t>(row.size());
    return Floats(std::move(row), {n});
  });
}

// The same row by full S x S matrix products (METHODS.md as written), for the benchmark's
// row-vector vs full-matrix comparison. Inputs go through the core's checks first.
Floats rollout_full_matrix(const std::string& id, const val& tensors, const val& options) {
  return call_or_throw_js([&] {
    const Method m = method_from_id(id);
    if (!is_rollout_method(m)) {
      throw InputError(std::string(method_id(m)) + ": not a rollout method (no full-matrix form)");
    }
    const RelevanceInputs in = relevance_inputs(tensors);
    const MethodOptions opts = method_options(options);
    check_inputs({m}, in, token_layout(options), opts);
    std::vector<float> row = reference::rollout_row(m, in, opts);
    const int64_t n = static_cast<int64_t>(row.size());
    return Floats(std::move(row), {n});
  });
}

// The product stage alone on given block matrices [B,S,S]: row `query` of X[B-1]...X[0],
// as a row vector or by full matrix products (benchmark only).
Floats rollout_chain(const Floats& blocks, int query, bool full_matrices) {
  return call_or_throw_js([&] {
    require_shape(blocks.tensor(), {-1, -1, -1}, "blocks");
    const auto& d = blocks.dims();
    if (d[1] != d[2]) throw InputError("blocks: expected [B,S,S] square block matrices");
    const int B = static_cast<int>(d[0]), S = static_cast<int>(d[1]);
    if (query < 0 || query >= S) throw InputError("query token out of range");
    const float* data = blocks.values().data();
    std::vector<float> row = full_matrices ? reference::chain_full_matrices(data, B, S, query)
                                           : reference::chain_row_vector(data, B, S, query);
    return Floats(std::move(row), {S});
  });
}

Floats floats_with_shape(const val& shape) {
  return call_or_throw_js([&] { return Floats::with_shape(shape); });
}

}  // namespace
}  // namespace vitrel::wasm

EMSCRIPTEN_BINDINGS(vit_relevance_methods) {
  using namespace emscripten;
  using vitrel::wasm::Floats;
  class_<Floats>("Floats")
      .constructor(&vitrel::wasm::floats_with_shape)
      .function("view", &Floats::view)
      .function("shape", &Floats::shape)
      .function("size", &Floats::size);
  function("methodIds", &vitrel::wasm::method_ids);
  function("hasInputsFor", &vitrel::wasm::has_inputs);
  function("computeMaps", &vitrel::wasm::compute_maps);
  function("relevanceRow", &vitrel::wasm::relevance_row_of);
  function("rolloutFullMatrix", &vitrel::wasm::rollout_full_matrix);
  function("rolloutChain", &vitrel::wasm::rollout_chain);
}
