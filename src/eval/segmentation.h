#pragma once
// ImageNet-segmentation scores of one map against its ground-truth mask, as the official
// imagenet_seg_eval.py of Chefer et al. computes them: the map is min-max normalised and
// binarised at its mean for pixel accuracy and IoU; its soft values give average precision.
// Class index 0 = background, 1 = foreground throughout.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "eval/pointing_game.h"

namespace vitrel {

// Per-image counts; pixel accuracy and mIoU are accumulated over the dataset from these.
struct SegmentationCounts {
  std::uint64_t correct = 0;  // pixels whose binary prediction equals the mask
  std::uint64_t labeled = 0;  // every pixel (the official code labels all of them)
  std::array<std::uint64_t, 2> intersection{};  // per class: predicted c and mask c
  std::array<std::uint64_t, 2> union_{};        // per class: predicted c or mask c
  double average_precision = 0.0;  // mean over the two classes (see segmentation_counts)
};

// scikit-learn's average_precision_score of `scores` against `positive` (0/1):
// AP = sum_n (R_n - R_{n-1}) P_n over thresholds at the distinct score values, descending
// (equal scores form one threshold). With no positive pixel it is 0 (sklearn's recall
// is then undefined; the official code's nan_to_num makes it 0).
// InputError on n == 0, a non-finite score or a label other than 0/1.
double average_precision(const float* scores, const std::uint8_t* positive, std::size_t n);

// `map` and `mask` hold n values each; mask values are 0 (background) or 1 (foreground).
// The map is normalised like normalize_min_max (a constant map is all zeros) and pixels
// above its mean (strictly; the mean is taken in double) are predicted foreground.
// average_precision = mean of average_precision(normalised map, mask == 1) and
// average_precision(1 - normalised map (in float), mask == 0).
// InputError on n == 0, a non-finite map value, or a mask value other than 0/1.
SegmentationCounts segmentation_counts(const float* map, const std::uint8_t* mask, std::size_t n);

// The part `region` (mask pixel coordinates) of a mask_width x mask_height mask, resampled
// by nearest neighbour to out_width x out_height (the model's input frame): output (i, j)
// takes mask pixel (region.x + floor((j + 0.5) * region.width / out_width), likewise y),
// kept inside the region. Values are copied as they are. InputError unless the sizes are
// positive and the region lies inside the mask.
std::vector<std::uint8_t> mask_in_model_frame(const std::uint8_t* mask, int mask_width,
                                              int mask_height, PixelRect region, int out_width,
                                              int out_height);

}  // namespace vitrel
