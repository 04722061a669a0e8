#include "preprocess/pil_resize.h"

#include <algorithm>
#include <string>

#include "common/image_checks.h"

namespace vitrel {

namespace {

// A fixed-point sum back to uint8: the +0.5 was added up front, so this rounds.
inline uint8_t to_u8(int32_t acc) {
  if (acc < 0) return 0;
  return static_cast<uint8_t>(std::min(255, acc >> kWeightBits));
}

constexpr int32_t kHalf = int32_t{1} << (kWeightBits - 1);

// An RGB (or RGBA, `stride` 4) image held by pointer.
struct Plane {
  const uint8_t* data;
  int width;
  int stride;  // bytes per pixel
  const uint8_t* at(int x, int y) const { return data + (size_t(y) * width + x) * stride; }
};

// Columns window.x .. + window.width of the horizontally resized rows row_lo .. row_hi-1.
std::vector<uint8_t> horizontal_pass(const Plane& in, const AxisWeights& ax, int col_lo,
                                     int col_count, int row_lo, int row_hi) {
  std::vector<uint8_t> out(size_t(row_hi - row_lo) * col_count * 3);
  uint8_t* dst = out.data();
  for (int y = row_lo; y < row_hi; ++y) {
    for (int x = col_lo; x < col_lo + col_count; ++x) {
      const int32_t* w = &ax.weights[size_t(x) * ax.taps];
      const uint8_t* src = in.at(ax.first[x], y);
      int32_t r = kHalf, g = kHalf, b = kHalf;
      for (int k = 0; k < ax.count[x]; ++k, src += in.stride) {
        r += src[0] * w[k];
        g += src[1] * w[k];
        b += src[2] * w[k];
      }
      *dst++ = to_u8(r);
      *dst++ = to_u8(g);
      *dst++ = to_u8(b);
    }
  }
  return out;
}

// Rows window.y .. + window.height, from RGB rows that start at input row `row_lo`.
std::vector<uint8_t> vertical_pass(const uint8_t* rgb, int width, int row_lo, const AxisWeights& ay,
                                   int out_row_lo, int out_row_count) {
  std::vector<uint8_t> out(size_t(out_row_count) * width * 3);
  uint8_t* dst = out.data();
  const size_t row_bytes = size_t(width) * 3;
  for (int y = out_row_lo; y < out_row_lo + out_row_count; ++y) {
    const int32_t* w = &ay.weights[size_t(y) * ay.taps];
    const uint8_t* first_row = rgb + size_t(ay.first[y] - row_lo) * row_bytes;
    for (size_t i = 0; i < row_bytes; ++i) {
      int32_t acc = kHalf;
      const uint8_t* src = first_row + i;
      for (int k = 0; k < ay.count[y]; ++k, src += row_bytes) acc += *src * w[k];
      *dst++ = to_u8(acc);
    }
  }
  return out;
}

void require_window(const PixelWindow& w, int out_width, int out_height) {
  if (out_width < 1 || out_height < 1 || out_width > kMaxResizedSide ||
      out_height > kMaxResizedSide) {
    throw InputError("pil_resize: output size " + std::to_string(out_width) + "x" +
                     std::to_string(out_height) + " must be within 1.." +
                     std::to_string(kMaxResizedSide) + " a side");
  }
  require_image_size(w.width, w.height, "pil_resize window");
  if (w.width < 1 || w.height < 1 || w.x < 0 || w.y < 0 || w.x + w.width > out_width ||
      w.y + w.height > out_height) {
    throw InputError("pil_resize window: " + std::to_string(w.width) + "x" +
                     std::to_string(w.height) + " at (" + std::to_string(w.x) + "," +
                     std::to_string(w.y) + ") does not lie inside the " +
                     std::to_string(out_width) + "x" + std::to_string(out_height) + " result");
  }
}

}  // namespace

std::vector<uint8_t> pil_resize_rgb_window(const uint8_t* rgba, size_t size, int width, int height,
                                           int out_width, int out_height,
                                           Interpolation interpolation, const PixelWindow& window) {
  require_rgba_image(rgba, size, width, height, "pil_resize image");
  require_window(window, out_width, out_height);

  const bool resize_x = out_width != width;
  const bool resize_y = out_height != height;

  // Input rows the vertical pass reads for the window's rows.
  AxisWeights ay;
  int row_lo = window.y, row_hi = window.y + window.height;
  if (resize_y) {
    ay = axis_weights(height, out_height, interpolation);
    row_lo = height;
    row_hi = 0;
    for (int y = window.y; y < window.y + window.height; ++y) {
      row_lo = std::min(row_lo, ay.first[y]);
      row_hi = std::max(row_hi, ay.first[y] + ay.count[y]);
    }
  }

  const Plane photo{rgba, width, 4};
  std::vector<uint8_t> rows;
  if (resize_x) {
    rows = horizontal_pass(photo, axis_weights(width, out_width, interpolation), window.x,
                           window.width, row_lo, row_hi);
  } else {
    rows.resize(size_t(row_hi - row_lo) * window.width * 3);
    uint8_t* dst = rows.data();
    for (int y = row_lo; y < row_hi; ++y) {
      for (int x = window.x; x < window.x + window.width; ++x) {
        const uint8_t* p = photo.at(x, y);
        *dst++ = p[0];
        *dst++ = p[1];
        *dst++ = p[2];
      }
    }
  }
  if (!resize_y) return rows;
  return vertical_pass(rows.data(), window.width, row_lo, ay, window.y, window.height);
}

std::vector<uint8_t> pil_resize_rgb(const uint8_t* rgba, size_t size, int width, int height,
                                    int out_width, int out_height, Interpolation interpolation) {
  require_image_size(out_width, out_height, "pil_resize output");
  return pil_resize_rgb_window(rgba, size, width, height, out_width, out_height, interpolation,
                               PixelWindow{0, 0, out_width, out_height});
}

}  // namespace vitrel
