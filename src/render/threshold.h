#pragma once
// Binarisation of a [0,1] relevance map, at its mean (the paper's segmentation protocol:
// value > mean) or at Otsu's threshold computed on a 256-bin histogram of the map.
// Bins use the colormap's quantisation (bin = floor(v * 255), see colormap.h), so Otsu
// gives the level cv2.threshold(np.uint8(255 * map), 0, 255, THRESH_OTSU) returns, and a
// value is foreground when its bin is above the level (cv2's THRESH_BINARY).

#include <string>
#include <vector>

#include "common/ids.h"

namespace vitrel {

enum class Threshold { Mean, Otsu };

inline constexpr IdName<Threshold> kThresholdNames[] = {
    {Threshold::Mean, "mean"},
    {Threshold::Otsu, "otsu"},
};
constexpr IdTable<IdName<Threshold>> id_table(Threshold) { return {"threshold", kThresholdNames}; }

// Otsu's level 0..255: the bin t maximising the between-class variance of
// {bins <= t} vs {bins > t}; the smallest such t on ties, 0 when no split exists
// (e.g. a constant map).
int otsu_level(const std::vector<float>& map01);

// A threshold's level for one map, so other samplings of that map (a heat image, a photo
// overlay) can be cut at it: mean keeps v > mean, otsu keeps bins above the level.
struct ThresholdLevel {
  Threshold kind = Threshold::Mean;
  float mean = 0.0f;
  int otsu = 0;
  bool keeps(float v01) const { return kind == Threshold::Mean ? v01 > mean : bin(v01) > otsu; }

 private:
  static int bin(float v01);
};

// Throws InputError on an empty map or non-finite values.
ThresholdLevel threshold_level(const std::vector<float>& map01, Threshold t);

// 1.0 where the value is foreground, 0.0 elsewhere. Throws InputError on an empty map or
// non-finite values.
std::vector<float> binarize(const std::vector<float>& map01, Threshold t);

}  // namespace vitrel
