#include "common/image_checks.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace vitrel {

namespace {

std::string number(float v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", static_cast<double>(v));
  return text;
}

std::string dims(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

}  // namespace

void require_image_size(int width, int height, const char* what) {
  if (width < 1 || height < 1) {
    throw InputError(std::string(what) + ": size " + dims(width, height) + " must be at least 1x1");
  }
  if (width > kMaxImageSide || height > kMaxImageSide) {
    throw InputError(std::string(what) + ": size " + dims(width, height) + " exceeds " +
                     std::to_string(kMaxImageSide) + " px a side");
  }
  if (int64_t{width} * height > kMaxImagePixels) {
    throw InputError(std::string(what) + ": size " + dims(width, height) + " exceeds " +
                     std::to_string(kMaxImagePixels) + " pixels");
  }
}

void require_rgba_image(const uint8_t* pixels, size_t size, int width, int height,
                        const char* what) {
  require_image_size(width, height, what);
  if (pixels == nullptr) throw InputError(std::string(what) + ": no pixel buffer");
  const size_t expected = size_t(width) * size_t(height) * 4;
  if (size != expected) {
    throw InputError(std::string(what) + ": RGBA buffer of " + std::to_string(size) +
                     " bytes, expected " + std::to_string(expected) + " for " +
                     dims(width, height) + " x 4");
  }
}

void require_map(const std::vector<float>& map, int rows, int cols, const char* what) {
  if (rows < 1 || cols < 1) {
    throw InputError(std::string(what) + ": " + std::to_string(rows) + " rows x " +
                     std::to_string(cols) + " cols, both must be >= 1");
  }
  if (int64_t{rows} * cols > kMaxImagePixels) {
    throw InputError(std::string(what) + ": " + std::to_string(rows) + "x" + std::to_string(cols) +
                     " exceeds " + std::to_string(kMaxImagePixels) + " values");
  }
  if (map.size() != size_t(rows) * size_t(cols)) {
    throw InputError(std::string(what) + ": " + std::to_string(map.size()) +
                     " values, expected rows*cols = " + std::to_string(int64_t{rows} * cols));
  }
  require_finite_values(map, what);
}

void require_finite_normalisation(float mean, float stddev, int c, const char* what) {
  // The formula is monotonic in x, so its ends are the extremes.
  for (const float x : {0.0f, 1.0f}) {
    const float v = (x - mean) / stddev;
    if (!std::isfinite(v)) {
      throw InputError(std::string(what) + ": mean[" + std::to_string(c) + "] = " + number(mean) +
                       " and std[" + std::to_string(c) + "] = " + number(stddev) +
                       " normalise pixel value " + number(x) + " to " + number(v) +
                       ", outside float32 range");
    }
  }
}

void require_finite_values(const std::vector<float>& values, const char* what) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw InputError(std::string(what) + ": non-finite value " + std::to_string(values[i]) +
                       " at index " + std::to_string(i));
    }
  }
}

}  // namespace vitrel
