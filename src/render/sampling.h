#pragma once
// How a map's cells spread over the pixels they are drawn on: "bilinear" (PyTorch's
// F.interpolate, align_corners=False: cell centres spread evenly) or "patch_grid" (each
// cell a flat block). Shared by the heat image (heat_image.h) and the photo overlay.

#include "common/ids.h"

namespace vitrel {

enum class MapSampling { Bilinear, PatchGrid };

inline constexpr IdName<MapSampling> kMapSamplingNames[] = {
    {MapSampling::Bilinear, "bilinear"},
    {MapSampling::PatchGrid, "patch_grid"},
};
constexpr IdTable<IdName<MapSampling>> id_table(MapSampling) {
  return {"map sampling", kMapSamplingNames};
}

// The cell of a map of `cells` cells that output index `o` of `out_size` falls in, for
// "patch_grid": floor(o * cells / out_size).
inline int block_cell(int o, int cells, int out_size) {
  return int((long long)o * cells / out_size);
}

}  // namespace vitrel
