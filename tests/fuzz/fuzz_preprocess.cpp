// Preprocessing (src/preprocess) on fuzzed specs and photo sizes: plans whose sizes obey
// the limits and whose region is finite, model inputs of the planned size holding only
// finite values, or InputError.

#include "common/image_checks.h"
#include "fuzz_support.h"
#include "preprocess/preprocess.h"
#include "preprocess/preprocess_spec.h"

using namespace vitrel;

namespace {

PreprocessSpec fuzz_spec(FuzzedDataProvider& in) {
  PreprocessSpec spec;
  spec.resize_mode = all_values<ResizeMode>()[in.ConsumeIntegralInRange<size_t>(0, 2)];
  spec.resize_size = fuzz::fuzz_size(in, 48);
  spec.resize_width = fuzz::fuzz_size(in, 48);
  spec.resize_height = fuzz::fuzz_size(in, 48);
  spec.center_crop = in.ConsumeBool();
  spec.crop_width = fuzz::fuzz_size(in, 40);
  spec.crop_height = fuzz::fuzz_size(in, 40);
  spec.interpolation = all_values<Interpolation>()[in.ConsumeIntegralInRange<size_t>(0, 1)];
  const bool edge = in.ConsumeIntegralInRange(0, 3) == 0;
  spec.mean.assign(in.ConsumeIntegralInRange(0, 7) == 0 ? in.ConsumeIntegralInRange(0, 4) : 3, 0.f);
  spec.stddev.assign(in.ConsumeIntegralInRange(0, 7) == 0 ? in.ConsumeIntegralInRange(0, 4) : 3,
                     0.f);
  for (float& v : spec.mean)
    v = edge ? fuzz::edge_float(in) : in.ConsumeFloatingPointInRange(0.f, 1.f);
  for (float& v : spec.stddev)
    v = edge ? fuzz::edge_float(in) : in.ConsumeFloatingPointInRange(0.01f, 1.f);
  spec.exact_size_passthrough = in.ConsumeBool();
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const PreprocessSpec spec = fuzz_spec(in);
  // Plans for any photo size, even ones far too big to allocate.
  const bool small = in.ConsumeBool();
  const int width = small ? in.ConsumeIntegralInRange(1, 40) : fuzz::fuzz_size(in, 1 << 15);
  const int height = small ? in.ConsumeIntegralInRange(1, 40) : fuzz::fuzz_size(in, 1 << 15);
  PreprocessPlan plan;
  try {
    plan = plan_preprocess(width, height, spec);
  } catch (const InputError&) {
    return 0;
  }
  FUZZ_CHECK(plan.input_width >= 1 && plan.input_width <= kMaxImageSide);
  FUZZ_CHECK(plan.input_height >= 1 && plan.input_height <= kMaxImageSide);
  FUZZ_CHECK(plan.resized_width >= 1 && plan.resized_width <= kMaxResizedSide);
  FUZZ_CHECK(plan.resized_height >= 1 && plan.resized_height <= kMaxResizedSide);
  const InputRegion region = input_region(width, height, plan);
  FUZZ_CHECK(std::isfinite(region.x) && std::isfinite(region.y));
  FUZZ_CHECK(region.width > 0 && region.height > 0 && std::isfinite(region.width) &&
             std::isfinite(region.height));

  // Whole preprocessing only where it stays cheap.
  if (int64_t{width} * height > 40 * 40 ||
      int64_t{plan.input_width} * plan.input_height > 48 * 48 || plan.resized_width > 4096 ||
      plan.resized_height > 4096)
    return 0;
  std::vector<uint8_t> photo(size_t(width) * height * 4);
  const std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(photo.size());
  std::copy(bytes.begin(), bytes.end(), photo.begin());
  try {
    const PreprocessedImage p = preprocess_image(photo.data(), photo.size(), width, height, spec);
    FUZZ_CHECK(p.width == plan.input_width && p.height == plan.input_height);
    FUZZ_CHECK(p.chw.size() == size_t(3) * p.width * p.height);
    FUZZ_CHECK(p.rgba.size() == size_t(4) * p.width * p.height);
    FUZZ_CHECK(fuzz::all_finite(p.chw));
  } catch (const InputError&) {
    FUZZ_CHECK(false && "plan_preprocess accepted what preprocess_image rejects");
  }
  return 0;
}
