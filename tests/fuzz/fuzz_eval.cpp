// The evaluation metrics (src/eval) on fuzzed maps, masks, fractions and sizes: rankings
// that are permutations in the promised order, finite scores in their ranges, or
// InputError.

#include <algorithm>

#include "eval/auc.h"
#include "eval/perturbation.h"
#include "eval/pointing_game.h"
#include "eval/segmentation.h"
#include "fuzz_support.h"
#include "tensor/tensor_view.h"

using namespace vitrel;

namespace {

std::vector<double> fuzz_doubles(FuzzedDataProvider& in, size_t n) {
  std::vector<double> v(n);
  for (double& x : v)
    x = in.ConsumeBool() ? double(fuzz::edge_float(in)) : in.ConsumeProbability<double>();
  return v;
}

void check_ranking(const std::vector<float>& map, RemovalOrder order) {
  const std::vector<uint32_t> rank = removal_ranking(map.data(), map.size(), order);
  FUZZ_CHECK(rank.size() == map.size());
  std::vector<bool> seen(map.size(), false);
  for (size_t i = 0; i < rank.size(); ++i) {
    FUZZ_CHECK(rank[i] < map.size() && !seen[rank[i]]);
    seen[rank[i]] = true;
    if (i == 0) continue;
    const float prev = map[rank[i - 1]], cur = map[rank[i]];
    const bool ordered = order == RemovalOrder::most_relevant_first ? prev >= cur : prev <= cur;
    FUZZ_CHECK(ordered && (prev != cur || rank[i - 1] < rank[i]));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const int width = fuzz::fuzz_size(in, 8), height = fuzz::fuzz_size(in, 8);
  const bool fits = width > 0 && height > 0 && int64_t{width} * height <= 64;
  const size_t n = fits && in.ConsumeIntegralInRange(0, 15) != 0
                       ? size_t(width) * height
                       : in.ConsumeIntegralInRange<size_t>(0, 64);
  const std::vector<float> map = fuzz::fuzz_floats(in, n);
  const int action = in.ConsumeIntegralInRange(0, 4);
  try {
    switch (action) {
      case 0: {
        const RemovalOrder order =
            all_values<RemovalOrder>()[in.ConsumeIntegralInRange<size_t>(0, 1)];
        check_ranking(map, order);
        const double fraction = fuzz_doubles(in, 1)[0];
        FUZZ_CHECK(removed_pixel_count(n, fraction) <= n);
        break;
      }
      case 1: {
        std::vector<uint8_t> photo(fits ? size_t(width) * height * 4 : 0);
        const std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(photo.size());
        std::copy(bytes.begin(), bytes.end(), photo.begin());
        const std::vector<double> fractions = fuzz_doubles(in, in.ConsumeIntegralInRange(0, 4));
        std::array<float, 3> mean{}, std{};
        const bool edge = in.ConsumeIntegralInRange(0, 3) == 0;
        for (float& v : mean)
          v = edge ? fuzz::edge_float(in) : in.ConsumeFloatingPointInRange(0.f, 1.f);
        for (float& v : std)
          v = edge ? fuzz::edge_float(in) : in.ConsumeFloatingPointInRange(0.01f, 1.f);
        // map must hold width * height values: the API takes a pointer, so give it that.
        if (!fits || map.size() != size_t(width) * height) return 0;
        const std::vector<float> out = perturbed_inputs(
            photo.empty() ? nullptr : photo.data(), width, height, map.data(), fractions,
            all_values<RemovalOrder>()[in.ConsumeIntegralInRange<size_t>(0, 1)], mean, std);
        FUZZ_CHECK(out.size() == fractions.size() * 3 * size_t(width) * height);
        FUZZ_CHECK(fuzz::all_finite(out));
        break;
      }
      case 2: {
        const size_t points = in.ConsumeIntegralInRange<size_t>(0, 6);
        const std::vector<double> x = fuzz_doubles(in, points), y = fuzz_doubles(in, points);
        const double area = in.ConsumeBool() ? trapezoid_area(x, y) : perturbation_auc(x, y);
        FUZZ_CHECK(std::isfinite(area));
        break;
      }
      case 3: {
        PixelRect rect{in.ConsumeIntegralInRange(-2, 8), in.ConsumeIntegralInRange(-2, 8),
                       fuzz::fuzz_size(in, 8), fuzz::fuzz_size(in, 8)};
        if (!fits || map.size() != size_t(width) * height) return 0;
        const double share = positive_share_inside(map.data(), height, width, rect);
        FUZZ_CHECK(share >= 0.0 && share <= 1.0 + 1e-12);
        break;
      }
      default: {
        std::vector<uint8_t> mask(n);
        for (uint8_t& m : mask)
          m = in.ConsumeIntegralInRange(0, 15) == 0 ? in.ConsumeIntegral<uint8_t>()
                                                    : in.ConsumeBool();
        if (in.ConsumeBool()) {
          const double ap = average_precision(map.data(), mask.data(), n);
          FUZZ_CHECK(ap >= 0.0 && ap <= 1.0 + 1e-12);
          break;
        }
        const SegmentationCounts c = segmentation_counts(map.data(), mask.data(), n);
        FUZZ_CHECK(c.labeled == n && c.correct <= n);
        for (int k = 0; k < 2; ++k)
          FUZZ_CHECK(c.intersection[k] <= c.union_[k] && c.union_[k] <= n);
        FUZZ_CHECK(c.average_precision >= 0.0 && c.average_precision <= 1.0 + 1e-12);
        // The mask of a region resampled into a model frame.
        if (!fits || n != size_t(width) * height) break;
        const PixelRect region{in.ConsumeIntegralInRange(-1, 4), in.ConsumeIntegralInRange(-1, 4),
                               fuzz::fuzz_size(in, 8), fuzz::fuzz_size(in, 8)};
        const int ow = fuzz::fuzz_size(in, 16), oh = fuzz::fuzz_size(in, 16);
        if (int64_t{ow} * oh > 256) break;
        const std::vector<uint8_t> framed =
            mask_in_model_frame(mask.data(), width, height, region, ow, oh);
        FUZZ_CHECK(framed.size() == size_t(ow) * oh);
        break;
      }
    }
  } catch (const InputError&) {
  }
  return 0;
}
