// Embind bindings of src/methods/attribution.h: head importance and the attribution tree.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "floats.h"
#include "js_errors.h"
#include "methods/attribution.h"

namespace vitrel::wasm {
namespace {

using emscripten::val;

const Floats& required(const val& attr) {
  const Floats* f = floats_or_null(attr);
  if (!f) throw InputError("attribution: expected a Floats [B,h,S,S]");
  return *f;
}

// Floats [B,h]: per head, max over (i,j) of Attr.
Floats importance_of(const val& attr) {
  return call_or_throw_js([&] {
    const Floats& a = required(attr);
    std::vector<float> v = head_importance(a.tensor());
    return Floats(std::move(v), {a.dims()[0], a.dims()[1]});
  });
}

// Floats [B,h]: per head, |Σ A ⊙ ∂L/∂A| (the Taylor baseline of head pruning).
Floats taylor_of(const val& attn, const val& attn_grad) {
  return call_or_throw_js([&] {
    const Floats& a = required(attn);
    std::vector<float> v = taylor_importance(a.tensor(), required(attn_grad).tensor());
    return Floats(std::move(v), {a.dims()[0], a.dims()[1]});
  });
}

// { top, nodes: [token], edges: [{ from, to, block }] }
val tree_of(const val& attr, float threshold, int special_tokens) {
  return call_or_throw_js([&] {
    const AttributionTree tree =
        attribution_tree(required(attr).tensor(), threshold, special_tokens);
    val edges = val::array();
    for (const TreeEdge& e : tree.edges) {
      val edge = val::object();
      edge.set("from", e.from);
      edge.set("to", e.to);
      edge.set("block", e.block);
      edges.call<void>("push", edge);
    }
    val nodes = val::array();
    for (int n : tree.nodes) nodes.call<void>("push", n);
    val out = val::object();
    out.set("top", tree.top);
    out.set("nodes", nodes);
    out.set("edges", edges);
    return out;
  });
}

}  // namespace
}  // namespace vitrel::wasm

EMSCRIPTEN_BINDINGS(vit_relevance_attribution) {
  emscripten::function("headImportance", &vitrel::wasm::importance_of);
  emscripten::function("taylorImportance", &vitrel::wasm::taylor_of);
  emscripten::function("attributionTree", &vitrel::wasm::tree_of);
}
