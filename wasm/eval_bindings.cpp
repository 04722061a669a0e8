// Embind bindings of src/eval: the perturbation test's pixel removal, its AUC, the grid
// pointing game's share, and the ImageNet-segmentation counts. Maps travel as Floats,
// images and masks as Bytes; short lists (fractions, accuracies) as JS arrays of numbers.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bytes.h"
#include "common/image_checks.h"
#include "eval/auc.h"
#include "eval/perturbation.h"
#include "eval/pointing_game.h"
#include "eval/segmentation.h"
#include "floats.h"
#include "ids.h"
#include "js_errors.h"
#include "options.h"

namespace vitrel::wasm {
namespace {

using emscripten::val;

std::vector<double> number_list(const val& list, const char* what) {
  if (!list.isArray()) throw InputError(std::string(what) + " must be an array of numbers");
  const int n = list["length"].as<int>();
  std::vector<double> out(n);
  for (int i = 0; i < n; ++i) {
    const val v = list[i];
    if (!v.isNumber()) {
      throw InputError(std::string(what) + "[" + std::to_string(i) + "] must be a number");
    }
    out[i] = v.as<double>();
  }
  return out;
}

std::array<float, 3> three_floats(const val& list, const char* what) {
  const std::vector<double> v = number_list(list, what);
  if (v.size() != 3) {
    throw InputError(std::string(what) + " must hold 3 numbers (R, G, B), got " +
                     std::to_string(v.size()));
  }
  return {float(v[0]), float(v[1]), float(v[2])};
}

int required_int(const val& object, const char* key, const char* what) {
  const val v = object[key];
  const double x = v.isNumber() ? v.as<double>() : NAN;
  if (!(std::fabs(x) <= 2147483647.0) || x != std::floor(x)) {
    throw InputError(std::string(what) + "." + key + " must be an integer");
  }
  return static_cast<int>(x);
}

PixelRect rect_from(const val& r, const char* what) {
  if (r.isUndefined() || r.isNull())
    throw InputError(std::string(what) + " must be { x, y, width, height }");
  return {required_int(r, "x", what), required_int(r, "y", what), required_int(r, "width", what),
          required_int(r, "height", what)};
}

void require_count(std::size_t got, std::size_t expected, const char* what, const char* like) {
  if (got != expected) {
    throw InputError(std::string(what) + ": " + std::to_string(got) + " values, expected " +
                     std::to_string(expected) + " (" + like + ")");
  }
}

// A JS-owned Uint32Array copy of `values` (one memcpy).
val uint32_copy(const std::vector<std::uint32_t>& values) {
  return val::global("Uint32Array")
      .new_(emscripten::typed_memory_view(values.size(), values.data()));
}

val ranking(const Floats& map, const std::string& order) {
  return call_or_throw_js([&] {
    return uint32_copy(
        removal_ranking(map.values().data(), map.values().size(), from_id<RemovalOrder>(order)));
  });
}

// options: { fractions: number[], order, mean: [3], std: [3] } → Floats [F, 3, H, W]
Floats perturbed(const Bytes& rgba, int width, int height, const Floats& map, const val& options) {
  return call_or_throw_js([&] {
    require_rgba_image(rgba.data(), rgba.byte_size(), width, height, "perturbedInputs rgba");
    require_count(map.values().size(), std::size_t(width) * std::size_t(height),
                  "perturbedInputs map", "width * height");
    if (options.isUndefined() || options.isNull()) {
      throw InputError("perturbedInputs options must be { fractions, order, mean, std }");
    }
    const std::vector<double> fractions =
        number_list(options["fractions"], "perturbedInputs options.fractions");
    const RemovalOrder order = from_id<RemovalOrder>(string_field(options, "order", ""));
    const auto mean = three_floats(options["mean"], "perturbedInputs options.mean");
    const auto std = three_floats(options["std"], "perturbedInputs options.std");
    return Floats(perturbed_inputs(rgba.data(), width, height, map.values().data(), fractions,
                                   order, mean, std),
                  {int64_t(fractions.size()), 3, height, width});
  });
}

double removed_count(double pixels, double fraction) {
  return call_or_throw_js([&] {
    if (!(pixels >= 0 && pixels <= 9007199254740991.0) || pixels != std::floor(pixels)) {
      throw InputError("removedPixelCount: pixels must be a non-negative integer");
    }
    return double(removed_pixel_count(static_cast<std::size_t>(pixels), fraction));
  });
}

double trapezoid(const val& x, const val& y) {
  return call_or_throw_js([&] {
    return trapezoid_area(number_list(x, "trapezoidArea x"), number_list(y, "trapezoidArea y"));
  });
}

double auc(const val& fractions, const val& accuracy) {
  return call_or_throw_js([&] {
    return perturbation_auc(number_list(fractions, "perturbationAuc fractions"),
                            number_list(accuracy, "perturbationAuc accuracy"));
  });
}

double share_inside(const Floats& map, int rows, int cols, const val& rect) {
  return call_or_throw_js([&] {
    const PixelRect r = rect_from(rect, "positiveShareInside rect");
    if (rows >= 1 && cols >= 1) {
      require_count(map.values().size(), std::size_t(rows) * std::size_t(cols),
                    "positiveShareInside map", "rows * cols");
    }
    return positive_share_inside(map.values().data(), rows, cols, r);
  });
}

val seg_counts(const Floats& map, const Bytes& mask) {
  return call_or_throw_js([&] {
    require_count(mask.byte_size(), map.values().size(), "segmentationCounts mask",
                  "one per map value");
    const SegmentationCounts c =
        segmentation_counts(map.values().data(), mask.data(), map.values().size());
    val out = val::object();
    out.set("correct", double(c.correct));
    out.set("labeled", double(c.labeled));
    val intersection = val::array();
    val union_ = val::array();
    for (int k = 0; k < 2; ++k) {
      intersection.call<void>("push", double(c.intersection[k]));
      union_.call<void>("push", double(c.union_[k]));
    }
    out.set("intersection", intersection);
    out.set("union", union_);
    out.set("averagePrecision", c.average_precision);
    return out;
  });
}

double ap(const Floats& scores, const Bytes& positive) {
  return call_or_throw_js([&] {
    require_count(positive.byte_size(), scores.values().size(), "averagePrecision positive",
                  "one per score");
    return average_precision(scores.values().data(), positive.data(), scores.values().size());
  });
}

Bytes mask_frame(const Bytes& mask, int mask_width, int mask_height, const val& region,
                 int out_width, int out_height) {
  return call_or_throw_js([&] {
    const PixelRect r = rect_from(region, "maskInModelFrame region");
    require_image_size(mask_width, mask_height, "maskInModelFrame mask");
    require_count(mask.byte_size(), std::size_t(mask_width) * std::size_t(mask_height),
                  "maskInModelFrame mask", "maskWidth * maskHeight");
    return Bytes(
        mask_in_model_frame(mask.data(), mask_width, mask_height, r, out_width, out_height));
  });
}

}  // namespace
}  // namespace vitrel::wasm

EMSCRIPTEN_BINDINGS(vit_relevance_eval) {
  using namespace emscripten;
  vitrel::wasm::bind_ids<vitrel::RemovalOrder>("removalOrderIds");
  function("removalRanking", &vitrel::wasm::ranking);
  function("perturbedInputs", &vitrel::wasm::perturbed);
  function("removedPixelCount", &vitrel::wasm::removed_count);
  function("trapezoidArea", &vitrel::wasm::trapezoid);
  function("perturbationAuc", &vitrel::wasm::auc);
  function("positiveShareInside", &vitrel::wasm::share_inside);
  function("segmentationCounts", &vitrel::wasm::seg_counts);
  function("averagePrecision", &vitrel::wasm::ap);
  function("maskInModelFrame", &vitrel::wasm::mask_frame);
}
