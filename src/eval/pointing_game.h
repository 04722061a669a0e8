#pragma once
// Grid pointing game (Böhle et al., CVPR'22): k x k images of different classes are tiled
// into one input; the explanation of one tile's class should put its positive relevance
// inside that tile.

namespace vitrel {

// A rectangle of whole pixels (or map cells): columns x..x+width-1, rows y..y+height-1.
struct PixelRect {
  int x = 0, y = 0, width = 0, height = 0;
};

// Sum of max(v, 0) inside `inside` / sum of max(v, 0) over the rows x cols map (row-major);
// 0 when the map has no positive value. InputError unless rows, cols >= 1, the rect has
// a positive size and lies inside the map, and every value is finite.
double positive_share_inside(const float* map, int rows, int cols, PixelRect inside);

}  // namespace vitrel
