#pragma once
// Minimal .npy reader for write_maps: float32 little-endian, C order, versions 1-3.
// Throws std::runtime_error naming the file otherwise.

#include <cstdint>
#include <string>
#include <vector>

struct NpyArray {
  std::vector<float> data;
  std::vector<int64_t> shape;
};

NpyArray read_npy(const std::string& path);
