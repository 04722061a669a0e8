// Rendering (src/render and the photo overlay) and contrasts (methods/contrast.h) on
// fuzzed maps, sizes and options: finite outputs of the promised size and range, or
// InputError.

#include <algorithm>

#include "common/image_checks.h"
#include "fuzz_support.h"
#include "methods/contrast.h"
#include "render/colormap.h"
#include "render/composite.h"
#include "render/map_scale.h"
#include "render/normalize.h"
#include "render/photo_overlay.h"
#include "render/threshold.h"
#include "render/upsample.h"
#include "tensor/tensor_view.h"

using namespace vitrel;

namespace {

template <class T>
T pick(FuzzedDataProvider& in, const std::vector<T>& all) {
  return all[in.ConsumeIntegralInRange<size_t>(0, all.size() - 1)];
}

std::vector<uint8_t> photo_bytes(FuzzedDataProvider& in, size_t n) {
  std::vector<uint8_t> photo(n);
  const std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(n);
  std::copy(bytes.begin(), bytes.end(), photo.begin());
  return photo;
}

void check_map01(const std::vector<float>& map01) {
  for (float v : map01) FUZZ_CHECK(v >= 0.f && v <= 1.f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const int rows = fuzz::fuzz_size(in, 6), cols = fuzz::fuzz_size(in, 6);
  // The map's length is usually rows * cols, sometimes not.
  const size_t cells = rows > 0 && cols > 0 && int64_t{rows} * cols <= 36 ? size_t(rows) * cols : 4;
  const size_t n =
      in.ConsumeIntegralInRange(0, 15) == 0 ? in.ConsumeIntegralInRange<size_t>(0, 40) : cells;
  const std::vector<float> map = fuzz::fuzz_floats(in, n);
  const int out_rows = fuzz::fuzz_size(in, 24), out_cols = fuzz::fuzz_size(in, 24);
  const int action = in.ConsumeIntegralInRange(0, 5);

  try {
    switch (action) {
      case 0: {
        // An output inside the limits but over a million pixels is valid and only slow (up to
        // 2^28 floats): under ASan and coverage it outlasts libFuzzer's 10 s for one input.
        // Sizes past the limits still reach the checks, which throw before allocating.
        const bool within_limits =
            out_rows > 0 && out_cols > 0 && out_rows <= kMaxImageSide && out_cols <= kMaxImageSide;
        if (within_limits && int64_t{out_rows} * out_cols > (int64_t{1} << 20)) break;
        const std::vector<float> up = upsample_bilinear(map, rows, cols, out_rows, out_cols);
        FUZZ_CHECK(up.size() == size_t(out_rows) * out_cols);
        FUZZ_CHECK(fuzz::all_finite(up));
        break;
      }
      case 1: {
        const std::vector<float> map01 = normalize_min_max(map);
        FUZZ_CHECK(map01.size() == map.size());
        check_map01(map01);
        const std::vector<float> mask = binarize(map01, pick(in, all_values<Threshold>()));
        for (float v : mask) FUZZ_CHECK(v == 0.f || v == 1.f);
        const int level = otsu_level(map01);
        FUZZ_CHECK(level >= 0 && level <= 255);
        break;
      }
      case 2: {
        // Colormaps and thresholds clamp values outside [0,1] and reject non-finite ones.
        const Colormap c = pick(in, all_values<Colormap>());
        FUZZ_CHECK(apply_colormap(map, c).size() == 4 * map.size());
        FUZZ_CHECK(binarize(map, pick(in, all_values<Threshold>())).size() == map.size());
        break;
      }
      case 3: {
        CompositeOptions options;
        options.colormap = pick(in, all_values<Colormap>());
        options.mode = pick(in, all_values<BlendMode>());
        options.opacity =
            in.ConsumeBool() ? fuzz::edge_float(in) : in.ConsumeFloatingPointInRange(0.f, 1.f);
        // The photo is rows x cols here, so the map matches it when n == cells.
        const size_t bytes = rows > 0 && cols > 0 ? size_t(rows) * cols * 4 : 0;
        const std::vector<uint8_t> photo = photo_bytes(in, bytes <= 36 * 4 ? bytes : 0);
        const std::vector<uint8_t> out =
            composite_heatmap(photo.data(), photo.size(), cols, rows, map, options);
        FUZZ_CHECK(out.size() == photo.size());
        for (size_t i = 3; i < out.size(); i += 4) FUZZ_CHECK(out[i] == photo[i]);
        break;
      }
      case 4: {
        // The signed scale, the caption's summary, and a contrast of the map with a second.
        const MapScale scale = pick(in, all_values<MapScale>());
        check_map01(normalize_for_scale(map, rows, cols, scale));
        const MapSummary summary = summarize_map(map, rows, cols, scale);
        FUZZ_CHECK(summary.min <= summary.max);
        FUZZ_CHECK(summary.low <= summary.high);
        FUZZ_CHECK(summary.negative_share >= 0.f && summary.negative_share <= 1.f);
        FUZZ_CHECK(summary.clipped_share >= 0.f && summary.clipped_share <= 1.f);
        const RelevanceMap a{rows, cols, map};
        const RelevanceMap b{rows, cols, fuzz::fuzz_floats(in, map.size())};
        const Method method = pick(in, all_values<Method>());
        const RelevanceMap ab = contrast_map(method, a, b);
        FUZZ_CHECK(ab.data.size() == map.size());
        for (float v : ab.data) FUZZ_CHECK(v >= -2.f && v <= 2.f);
        // The two maps' correlation: in [-1, 1] and the same both ways, or NaN for both.
        const double r = contrast_correlation(method, a, b),
                     r_ba = contrast_correlation(method, b, a);
        FUZZ_CHECK(std::isnan(r) ? std::isnan(r_ba) : r >= -1.0 && r <= 1.0 && r == r_ba);
        break;
      }
      default: {
        OverlayOptions options;
        options.colormap = pick(in, all_values<Colormap>());
        options.sampling = pick(in, all_values<MapSampling>());
        options.opacity =
            in.ConsumeBool() ? fuzz::edge_float(in) : in.ConsumeFloatingPointInRange(0.f, 1.f);
        options.outside_dim =
            in.ConsumeBool() ? fuzz::edge_float(in) : in.ConsumeFloatingPointInRange(0.f, 1.f);
        InputRegion region;
        double* fields[] = {&region.x, &region.y, &region.width, &region.height};
        for (double* f : fields)
          *f = in.ConsumeBool() ? double(fuzz::edge_float(in))
                                : in.ConsumeFloatingPointInRange(-30.0, 30.0);
        const bool valid_photo =
            out_rows > 0 && out_cols > 0 && int64_t{out_rows} * out_cols <= 24 * 24;
        const std::vector<uint8_t> photo =
            photo_bytes(in, valid_photo ? size_t(out_rows) * out_cols * 4 : 16);
        const std::vector<uint8_t> out = overlay_map_on_photo(
            photo.data(), photo.size(), out_cols, out_rows, map, rows, cols, region, options);
        FUZZ_CHECK(out.size() == photo.size());
        for (size_t i = 3; i < out.size(); i += 4) FUZZ_CHECK(out[i] == photo[i]);
        break;
      }
    }
  } catch (const InputError&) {
  }
  return 0;
}
