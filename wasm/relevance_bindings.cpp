// Embind bindings of src/methods: the registry, the batch of maps, the token row.
// Thin by design: argument conversion here, every rule and check in the core.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "floats.h"
#include "ids.h"
#include "js_errors.h"
#include "methods/contrast.h"
#include "methods/patch_sum.h"
#include "methods/registry.h"
#include "methods/relevance.h"
#include "options.h"

namespace vitrel::wasm {
namespace {

using emscripten::val;

// The method registry as plain JS objects, in registry order (runtime/core.js: core.methods).
val method_registry() {
  val out = val::array();
  for (const MethodInfo& m : id_table(Method{})) {
    val tensors = val::array();
    for (const TensorInfo& t : id_table(Tensor{}))
      if (m.needs.contains(t.value)) tensors.call<void>("push", std::string(t.id));
    val entry = val::object();
    entry.set("id", std::string(m.id));
    entry.set("name", std::string(m.name));
    entry.set("shortName", std::string(m.short_name));
    entry.set("description", std::string(m.description));
    entry.set("paper", std::string(m.paper));
    entry.set("about", std::string(m.about));
    entry.set("tensors", tensors);
    entry.set("startLayer", m.start_layer);
    entry.set("minBlocks", m.min_blocks);
    entry.set("tokenRow", m.form != MethodForm::Map);
    entry.set("contrast", can_contrast(m.value));
    out.call<void>("push", entry);
  }
  return out;
}

// The tensor vocabulary: [{ id, description }] in registry order (core.tensors).
val tensor_registry() {
  val out = val::array();
  for (const TensorInfo& t : id_table(Tensor{})) {
    val entry = val::object();
    entry.set("id", std::string(t.id));
    entry.set("description", std::string(t.description));
    out.call<void>("push", entry);
  }
  return out;
}

bool has_inputs(const std::string& id, const val& tensors) {
  return call_or_throw_js(
      [&] { return has_inputs_for(from_id<Method>(id), relevance_inputs(tensors)); });
}

// ids: JS array of method ids. Returns { [id]: Floats [rows, cols] } in the order given
// ([S] on a text layout).
val compute_maps(const val& ids, const val& tensors, const val& options) {
  return call_or_throw_js([&] {
    if (!ids.isArray()) throw InputError("methods must be an array of method ids");
    std::vector<Method> methods;
    for (const std::string& id : emscripten::vecFromJSArray<std::string>(ids)) {
      methods.push_back(from_id<Method>(id));
    }
    const TokenLayout layout = token_layout(options);
    std::vector<RelevanceMap> maps =
        compute_relevance_maps(methods, relevance_inputs(tensors), layout, method_options(options));
    val out = val::object();
    for (size_t i = 0; i < maps.size(); ++i) {
      std::vector<int64_t> shape{maps[i].rows, maps[i].cols};
      if (layout.is_text()) shape = {maps[i].cols};
      out.set(to_id(methods[i]), val(Floats(std::move(maps[i].data), std::move(shape))));
    }
    return out;
  });
}

Floats relevance_row_of(const std::string& id, const val& tensors, const val& options) {
  return call_or_throw_js([&] {
    std::vector<float> row = relevance_row(from_id<Method>(id), relevance_inputs(tensors),
                                           token_layout(options), method_options(options));
    const int64_t n = static_cast<int64_t>(row.size());
    return Floats(std::move(row), {n});
  });
}

// One class's [rows, cols] map, or a text's [S] as 1 x S, for the contrast functions
// (methods/contrast.h).
RelevanceMap contrast_input(const Floats& f) {
  const auto& d = f.dims();
  if (d.size() == 1) return RelevanceMap{1, static_cast<int>(d[0]), f.values()};
  if (d.size() != 2) throw InputError("contrast: maps must be [rows, cols] (or a text's [S])");
  return RelevanceMap{static_cast<int>(d[0]), static_cast<int>(d[1]), f.values()};
}

// Why A rather than B: two maps of one method, in map A's shape.
Floats contrast_of(const std::string& id, const Floats& a, const Floats& b) {
  return call_or_throw_js([&] {
    if (a.dims().size() != b.dims().size())
      throw InputError("contrast: the maps of the two classes differ in shape");
    RelevanceMap out = contrast_map(from_id<Method>(id), contrast_input(a), contrast_input(b));
    return Floats(std::move(out.data), a.dims());
  });
}

// The two classes' maps' Pearson r (NaN when one is constant).
double contrast_correlation_of(const std::string& id, const Floats& a, const Floats& b) {
  return call_or_throw_js([&] {
    return contrast_correlation(from_id<Method>(id), contrast_input(a), contrast_input(b));
  });
}

// A pixel map's patch map: the sum over each patch of the grid (methods/patch_sum.h).
Floats patch_sum_of(const Floats& pixels, int grid_rows, int grid_cols) {
  return call_or_throw_js([&] {
    const auto& d = pixels.dims();
    if (d.size() != 2) throw InputError("patch_sum: the pixel map must be [rows, cols]");
    RelevanceMap out =
        patch_sum(RelevanceMap{static_cast<int>(d[0]), static_cast<int>(d[1]), pixels.values()},
                  grid_rows, grid_cols);
    return Floats(std::move(out.data), {out.rows, out.cols});
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
  function("methodRegistry", &vitrel::wasm::method_registry);
  function("tensorRegistry", &vitrel::wasm::tensor_registry);
  function("hasInputsFor", &vitrel::wasm::has_inputs);
  function("computeMaps", &vitrel::wasm::compute_maps);
  function("relevanceRow", &vitrel::wasm::relevance_row_of);
  function("contrastMap", &vitrel::wasm::contrast_of);
  function("contrastCorrelation", &vitrel::wasm::contrast_correlation_of);
  vitrel::wasm::bind_ids<vitrel::Pool>("poolIds");
  function("patchSum", &vitrel::wasm::patch_sum_of);
}
