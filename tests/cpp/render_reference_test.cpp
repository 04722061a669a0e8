// Rendering against the libraries the official code uses (tests/reference/
// render_references.py): PyTorch's bilinear F.interpolate, OpenCV's JET and Otsu,
// matplotlib's tables and the notebooks' show_cam_on_image.
//
// interpolate.txt:    name rows cols out_rows out_cols in_f32 out_f32
// colormap.txt:       id rgb_file (256 x 3)
// colormap_apply.txt: name n map_f32 rgb_u8
// otsu.txt:           name n map_f32 level mask_u8
// notebook.txt:       name w h rgba_u8 map_f32 rgb_u8

#include <gtest/gtest.h>

#include <cmath>

#include "../reference/reference_data.h"
#include "render/colormap.h"
#include "render/composite.h"
#include "render/threshold.h"
#include "render/upsample.h"

namespace vitrel {
namespace {

using vitrel_test::read_manifest;
using vitrel_test::read_raw;

TEST(InterpolateReference, MatchesTorchBilinear) {
  for (const auto& f : read_manifest("interpolate")) {
    SCOPED_TRACE(f[0]);
    const int r = std::stoi(f[1]), c = std::stoi(f[2]);
    const int orow = std::stoi(f[3]), ocol = std::stoi(f[4]);
    const auto in = read_raw<float>(f[5], size_t(r) * c);
    const auto expected = read_raw<float>(f[6], size_t(orow) * ocol);
    const auto got = upsample_bilinear(in, r, c, orow, ocol);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      // Inputs are N(0,1); PyTorch's float32 weights differ from ours by ~5e-7.
      ASSERT_NEAR(got[i], expected[i], 1e-5f) << "at " << i;
    }
  }
}

TEST(ColormapReference, TablesEqualOpenCvAndMatplotlib) {
  for (const auto& f : read_manifest("colormap")) {
    SCOPED_TRACE(f[0]);
    const auto expected = read_raw<uint8_t>(f[1], 256 * 3);
    const auto legend = colormap_legend(from_id<Colormap>(f[0]));
    for (int i = 0; i < 256; ++i) {
      for (int ch = 0; ch < 3; ++ch) {
        ASSERT_EQ(legend[4 * i + ch], expected[3 * i + ch]) << "entry " << i << " channel " << ch;
      }
    }
  }
}

TEST(ColormapReference, FloatMapColouredLikeNotebooks) {
  for (const auto& f : read_manifest("colormap_apply")) {
    const size_t n = std::stoul(f[1]);
    const auto map = read_raw<float>(f[2], n);
    const auto expected = read_raw<uint8_t>(f[3], n * 3);
    const auto rgba = apply_colormap(map, Colormap::Jet);
    for (size_t i = 0; i < n; ++i) {
      for (int ch = 0; ch < 3; ++ch) {
        ASSERT_EQ(rgba[4 * i + ch], expected[3 * i + ch]) << "value " << map[i];
      }
    }
  }
}

TEST(OtsuReference, LevelAndMaskEqualOpenCv) {
  for (const auto& f : read_manifest("otsu")) {
    SCOPED_TRACE(f[0]);
    const size_t n = std::stoul(f[1]);
    const auto map = read_raw<float>(f[2], n);
    const auto mask = read_raw<uint8_t>(f[4], n);
    EXPECT_EQ(otsu_level(map), std::stoi(f[3]));
    const auto got = binarize(map, Threshold::Otsu);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], float(mask[i])) << "at " << i;
  }
}

TEST(CompositeReference, NotebookModeEqualsShowCamOnImage) {
  for (const auto& f : read_manifest("notebook")) {
    SCOPED_TRACE(f[0]);
    const int w = std::stoi(f[1]), h = std::stoi(f[2]);
    const size_t n = size_t(w) * h;
    const auto rgba = read_raw<uint8_t>(f[3], n * 4);
    const auto map = read_raw<float>(f[4], n);
    const auto expected = read_raw<uint8_t>(f[5], n * 3);
    CompositeOptions options;
    options.mode = BlendMode::Notebook;
    const auto got = composite_heatmap(rgba.data(), rgba.size(), w, h, map, options);
    int worst = 0;
    for (size_t i = 0; i < n; ++i) {
      for (int ch = 0; ch < 3; ++ch) {
        worst = std::max(worst, std::abs(int(got[4 * i + ch]) - int(expected[3 * i + ch])));
      }
    }
    EXPECT_EQ(worst, 0);
  }
}

}  // namespace
}  // namespace vitrel
