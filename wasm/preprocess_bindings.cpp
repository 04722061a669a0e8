// Embind bindings of src/preprocess: photo → model input (PIL-compatible resize, centre
// crop, normalisation), the region of the photo the model saw, and a map drawn over the
// original photo at full resolution inside that region.
//
// The spec is a flat bag (runtime/core-render.js builds it from the model metadata):
// { resizeMode: 'short_side'|'exact'|'none', resizeSize, resizeWidth, resizeHeight,
//   centerCrop, cropWidth, cropHeight, interpolation: 'bicubic'|'bilinear', mean: [3],
//   std: [3], exactSizePassthrough, cropMode: 'center'|'none' }. Absent fields keep the C++
// defaults (DeiT's); cropMode (default 'center') reframes the rest (with_crop_mode).

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "bytes.h"
#include "floats.h"
#include "ids.h"
#include "js_errors.h"
#include "options.h"
#include "preprocess/preprocess.h"
#include "preprocess/preprocess_spec.h"
#include "render/heat_image.h"
#include "render/photo_overlay.h"

namespace vitrel::wasm {
namespace {

using emscripten::val;

PreprocessSpec spec_from(const val& s) {
  PreprocessSpec spec;
  spec.resize_mode = from_id<ResizeMode>(string_field(s, "resizeMode", to_id(spec.resize_mode)));
  spec.resize_size = int_field(s, "resizeSize", spec.resize_size);
  spec.resize_width = int_field(s, "resizeWidth", spec.resize_width);
  spec.resize_height = int_field(s, "resizeHeight", spec.resize_height);
  spec.center_crop = bool_field(s, "centerCrop", spec.center_crop);
  spec.crop_width = int_field(s, "cropWidth", spec.crop_width);
  spec.crop_height = int_field(s, "cropHeight", spec.crop_height);
  spec.interpolation =
      from_id<Interpolation>(string_field(s, "interpolation", to_id(spec.interpolation)));
  spec.mean = float_list_field(s, "mean", spec.mean);
  spec.stddev = float_list_field(s, "std", spec.stddev);
  spec.exact_size_passthrough = bool_field(s, "exactSizePassthrough", spec.exact_size_passthrough);
  return with_crop_mode(spec, from_id<CropMode>(string_field(s, "cropMode", "center")));
}

val region_value(const InputRegion& r) {
  val out = val::object();
  out.set("x", r.x);
  out.set("y", r.y);
  out.set("width", r.width);
  out.set("height", r.height);
  return out;
}

InputRegion region_from(const val& r) {
  if (r.isUndefined() || r.isNull()) throw InputError("region must be { x, y, width, height }");
  InputRegion region;
  for (const char* key : {"x", "y", "width", "height"}) {
    if (!r[key].isNumber()) throw InputError(std::string("region.") + key + " must be a number");
  }
  region.x = r["x"].as<double>();
  region.y = r["y"].as<double>();
  region.width = r["width"].as<double>();
  region.height = r["height"].as<double>();
  return region;
}

// → { width, height, chw: Floats [1,3,H,W], rgba: Bytes (the input before normalisation),
//     region, passthrough }
val preprocess(const Bytes& rgba, int width, int height, const val& spec) {
  return call_or_throw_js([&] {
    PreprocessedImage p =
        preprocess_image(rgba.data(), rgba.byte_size(), width, height, spec_from(spec));
    val out = val::object();
    out.set("width", p.width);
    out.set("height", p.height);
    out.set("chw", val(Floats(std::move(p.chw), {1, 3, p.height, p.width})));
    out.set("rgba", val(Bytes(std::move(p.rgba))));
    out.set("region", region_value(p.region));
    out.set("passthrough", p.passthrough);
    return out;
  });
}

val region_of(int width, int height, const val& spec) {
  return call_or_throw_js(
      [&] { return region_value(input_region(width, height, spec_from(spec))); });
}

// In place on `rgba` (JS copies it out), so a big photo has one heap copy.
// options: { colormap, sampling: 'bilinear'|'patch_grid', opacity, outsideDim, threshold:
//   'none'|'mean'|'otsu' (cut at the level the heat image of this map uses) }
void overlay(Bytes& rgba, int width, int height, const Floats& map01, int rows, int cols,
             const val& region, const val& options) {
  call_or_throw_js([&] {
    OverlayOptions o;
    o.colormap = from_id<Colormap>(string_field(options, "colormap", "jet"));
    o.sampling = from_id<MapSampling>(string_field(options, "sampling", "bilinear"));
    o.opacity = float_field(options, "opacity", o.opacity);
    o.outside_dim = float_field(options, "outsideDim", o.outside_dim);
    const std::string threshold = string_field(options, "threshold", "none");
    if (threshold != "none") {
      o.threshold = heat_threshold_level(map01.values(), rows, cols, o.sampling,
                                         from_id<Threshold>(threshold));
    }
    draw_map_on_photo(rgba.data(), rgba.byte_size(), width, height, map01.values(), rows, cols,
                      region_from(region), o);
  });
}

}  // namespace
}  // namespace vitrel::wasm

EMSCRIPTEN_BINDINGS(vit_relevance_preprocess) {
  using namespace emscripten;
  using namespace vitrel;
  function("preprocessImage", &wasm::preprocess);
  function("inputRegion", &wasm::region_of);
  function("drawMapOnPhoto", &wasm::overlay);
  wasm::bind_ids<MapSampling>("mapSamplingIds");
  wasm::bind_ids<CropMode>("cropModeIds");
}
