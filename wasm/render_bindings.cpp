// Embind bindings of src/render: min-max and signed normalisation (the map scales), bilinear
// upsampling, colormaps and their legend, thresholds, compositing a heatmap over an image of
// the same size, and the heat image every view draws (renderHeat: heat_image.h). Maps travel
// as Floats, images as Bytes (RGBA); ids are the core's strings.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bytes.h"
#include "floats.h"
#include "ids.h"
#include "js_errors.h"
#include "options.h"
#include "render/colormap.h"
#include "render/composite.h"
#include "render/heat_image.h"
#include "render/map_scale.h"
#include "render/normalize.h"
#include "render/threshold.h"
#include "render/upsample.h"

namespace vitrel::wasm {
namespace {

using emscripten::val;

Floats as_map(std::vector<float> values, int rows, int cols) {
  return Floats(std::move(values), {rows, cols});
}

Floats normalize(const Floats& map) {
  return call_or_throw_js([&] { return Floats(normalize_min_max(map.values()), map.dims()); });
}

// A map's rows and cols: its shape if 2-D, else one row.
std::pair<int, int> map_dims(const Floats& map) {
  const auto& d = map.dims();
  if (d.size() == 2) return {static_cast<int>(d[0]), static_cast<int>(d[1])};
  return {1, map.size()};
}

Floats normalize_scaled(const Floats& map, const std::string& scale) {
  return call_or_throw_js([&] {
    const auto [rows, cols] = map_dims(map);
    return Floats(normalize_for_scale(map.values(), rows, cols, from_id<MapScale>(scale)),
                  map.dims());
  });
}

std::string scale_colormap(const std::string& scale, const std::string& colormap) {
  return call_or_throw_js([&] {
    return std::string(
        to_id(colormap_for_scale(from_id<MapScale>(scale), from_id<Colormap>(colormap))));
  });
}

// { min, max, negativeShare, low, high, clippedShare, smoothed }: MapSummary
val summarize(const Floats& map, const std::string& scale) {
  return call_or_throw_js([&] {
    const auto [rows, cols] = map_dims(map);
    const MapSummary s = summarize_map(map.values(), rows, cols, from_id<MapScale>(scale));
    val out = val::object();
    out.set("min", s.min);
    out.set("max", s.max);
    out.set("negativeShare", s.negative_share);
    out.set("low", s.low);
    out.set("high", s.high);
    out.set("clippedShare", s.clipped_share);
    out.set("smoothed", s.smoothed);
    return out;
  });
}

Floats upsample(const Floats& map, int rows, int cols, int out_rows, int out_cols) {
  return call_or_throw_js([&] {
    return as_map(upsample_bilinear(map.values(), rows, cols, out_rows, out_cols), out_rows,
                  out_cols);
  });
}

Bytes colorize(const Floats& map01, const std::string& colormap) {
  return call_or_throw_js(
      [&] { return Bytes(apply_colormap(map01.values(), from_id<Colormap>(colormap))); });
}

Bytes legend(const std::string& colormap) {
  return call_or_throw_js([&] { return Bytes(colormap_legend(from_id<Colormap>(colormap))); });
}

Floats threshold(const Floats& map01, const std::string& id) {
  return call_or_throw_js(
      [&] { return Floats(binarize(map01.values(), from_id<Threshold>(id)), map01.dims()); });
}

int otsu(const Floats& map01) {
  return call_or_throw_js([&] { return otsu_level(map01.values()); });
}

// options: { colormap: 'jet', mode: 'alpha' | 'notebook', opacity: 0.5 }
Bytes composite(const Bytes& rgba, int width, int height, const Floats& map01, const val& options) {
  return call_or_throw_js([&] {
    CompositeOptions o;
    o.colormap = from_id<Colormap>(string_field(options, "colormap", "jet"));
    o.mode = from_id<BlendMode>(string_field(options, "mode", "alpha"));
    o.opacity = float_field(options, "opacity", 0.5f);
    return Bytes(
        composite_heatmap(rgba.data(), rgba.byte_size(), width, height, map01.values(), o));
  });
}

// The threshold option: 'none' (or absent) or a Threshold id.
std::optional<Threshold> threshold_option(const val& options) {
  const std::string id = string_field(options, "threshold", "none");
  if (id == "none") return std::nullopt;
  return from_id<Threshold>(id);
}

// options: { scale: 'positive', colormap: 'jet', sampling: 'bilinear', threshold: 'none',
//            width, height (absent: the smooth or patch-grid size, heat_image.h) }
// → { width, height, rgba: Bytes }
val heat(const Floats& map, int rows, int cols, const val& options) {
  return call_or_throw_js([&] {
    HeatOptions o;
    o.scale = from_id<MapScale>(string_field(options, "scale", "positive"));
    o.colormap = from_id<Colormap>(string_field(options, "colormap", "jet"));
    o.sampling = from_id<MapSampling>(string_field(options, "sampling", "bilinear"));
    o.threshold = threshold_option(options);
    o.out_rows = int_field(options, "height", 0);
    o.out_cols = int_field(options, "width", 0);
    HeatImage image = render_heat(map.values(), rows, cols, o);
    val out = val::object();
    out.set("width", image.cols);
    out.set("height", image.rows);
    out.set("rgba", val(Bytes(std::move(image.rgba))));
    return out;
  });
}

}  // namespace

}  // namespace vitrel::wasm

EMSCRIPTEN_BINDINGS(vit_relevance_render) {
  using namespace emscripten;
  using vitrel::wasm::Bytes;
  class_<Bytes>("Bytes")
      .constructor(+[](double size) {
        return vitrel::wasm::call_or_throw_js([&] { return Bytes::with_size(size); });
      })
      .function("view", &Bytes::view)
      .function("size", &Bytes::size);
  vitrel::wasm::bind_ids<vitrel::Colormap>("colormapIds");
  vitrel::wasm::bind_ids<vitrel::Threshold>("thresholdIds");
  vitrel::wasm::bind_ids<vitrel::BlendMode>("blendModeIds");
  vitrel::wasm::bind_ids<vitrel::MapScale>("mapScaleIds");
  function("normalizeForScale", &vitrel::wasm::normalize_scaled);
  function("colormapForScale", &vitrel::wasm::scale_colormap);
  function("summarizeMap", &vitrel::wasm::summarize);
  function("normalizeMinMax", &vitrel::wasm::normalize);
  function("upsampleBilinear", &vitrel::wasm::upsample);
  function("applyColormap", &vitrel::wasm::colorize);
  function("colormapLegend", &vitrel::wasm::legend);
  function("binarize", &vitrel::wasm::threshold);
  function("otsuLevel", &vitrel::wasm::otsu);
  function("compositeHeatmap", &vitrel::wasm::composite);
  function("renderHeat", &vitrel::wasm::heat);
}
