#include "eval/segmentation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "common/image_checks.h"
#include "render/normalize.h"
#include "tensor/tensor_view.h"

namespace vitrel {

namespace {

void require_binary(const std::uint8_t* labels, std::size_t n, const char* what) {
  if (labels == nullptr) throw InputError(std::string(what) + ": no values");
  for (std::size_t i = 0; i < n; ++i) {
    if (labels[i] > 1) {
      throw InputError(std::string(what) + ": value " + std::to_string(labels[i]) + " at index " +
                       std::to_string(i) + ", expected 0 (background) or 1 (foreground)");
    }
  }
}

// Source index of output index o when `size` source cells are sampled to `out` cells.
int nearest(int o, int size, int out) {
  const int s = static_cast<int>(std::floor((o + 0.5) * size / out));
  return std::clamp(s, 0, size - 1);
}

}  // namespace

double average_precision(const float* scores, const std::uint8_t* positive, std::size_t n) {
  if (scores == nullptr || n == 0) throw InputError("average_precision: no scores");
  const int64_t bad = first_non_finite(scores, static_cast<int64_t>(n));
  if (bad >= 0) {
    throw InputError("average_precision: non-finite score " + std::to_string(scores[bad]) +
                     " at index " + std::to_string(bad));
  }
  require_binary(positive, n, "average_precision labels");
  const std::size_t total_positive = std::count(positive, positive + n, std::uint8_t{1});
  if (total_positive == 0) return 0.0;

  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [scores](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  // One threshold per distinct score: recall only moves by the positives of that group,
  // and the precision is read after the whole group.
  double ap = 0.0;
  std::size_t true_pos = 0;
  std::size_t seen = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t group_pos = 0;
    const float s = scores[order[i]];
    for (; i < n && scores[order[i]] == s; ++i) group_pos += positive[order[i]];
    seen = i;
    true_pos += group_pos;
    if (group_pos > 0) {
      ap += double(group_pos) / double(total_positive) * (double(true_pos) / double(seen));
    }
  }
  return ap;
}

SegmentationCounts segmentation_counts(const float* map, const std::uint8_t* mask, std::size_t n) {
  if (map == nullptr || n == 0) throw InputError("segmentation_counts map: no values");
  require_binary(mask, n, "segmentation_counts mask");
  const std::vector<float> soft = normalize_min_max(std::vector<float>(map, map + n));
  const double mean = std::accumulate(soft.begin(), soft.end(), 0.0) / double(n);

  SegmentationCounts counts;
  counts.labeled = n;
  for (std::size_t i = 0; i < n; ++i) {
    const int predicted = double(soft[i]) > mean ? 1 : 0;
    const int truth = mask[i];
    if (predicted == truth) {
      ++counts.correct;
      ++counts.intersection[truth];
      ++counts.union_[truth];
    } else {
      ++counts.union_[0];
      ++counts.union_[1];
    }
  }

  std::vector<float> background_score(n);
  std::vector<std::uint8_t> background(n);
  for (std::size_t i = 0; i < n; ++i) {
    background_score[i] = 1.0f - soft[i];  // float, as the official 1 - Res in torch
    background[i] = mask[i] == 0 ? 1 : 0;
  }
  counts.average_precision = (average_precision(background_score.data(), background.data(), n) +
                              average_precision(soft.data(), mask, n)) /
                             2.0;
  return counts;
}

std::vector<std::uint8_t> mask_in_model_frame(const std::uint8_t* mask, int mask_width,
                                              int mask_height, PixelRect region, int out_width,
                                              int out_height) {
  require_image_size(mask_width, mask_height, "mask_in_model_frame mask");
  require_image_size(out_width, out_height, "mask_in_model_frame output");
  if (mask == nullptr) throw InputError("mask_in_model_frame: no mask");
  const PixelRect r = region;
  if (r.width < 1 || r.height < 1 || r.x < 0 || r.y < 0 || int64_t{r.x} + r.width > mask_width ||
      int64_t{r.y} + r.height > mask_height) {
    throw InputError("mask_in_model_frame: region {x " + std::to_string(r.x) + ", y " +
                     std::to_string(r.y) + ", width " + std::to_string(r.width) + ", height " +
                     std::to_string(r.height) + "} must have a positive size and lie inside the " +
                     std::to_string(mask_width) + "x" + std::to_string(mask_height) + " mask");
  }
  std::vector<int> source_x(out_width);
  for (int j = 0; j < out_width; ++j) source_x[j] = r.x + nearest(j, r.width, out_width);
  std::vector<std::uint8_t> out(std::size_t(out_width) * std::size_t(out_height));
  for (int i = 0; i < out_height; ++i) {
    const std::uint8_t* row =
        mask + std::size_t(r.y + nearest(i, r.height, out_height)) * mask_width;
    std::uint8_t* dst = out.data() + std::size_t(i) * out_width;
    for (int j = 0; j < out_width; ++j) dst[j] = row[source_x[j]];
  }
  return out;
}

}  // namespace vitrel
