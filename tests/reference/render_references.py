"""Rendering references: PyTorch bilinear interpolation, OpenCV JET and Otsu, matplotlib
colormaps, and the notebooks' show_cam_on_image (with an RGB heatmap)."""
import pathlib

import cv2
import matplotlib
import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from reference_io import Manifest, rgba_of


def unit_map(rng, n):
    """[0,1] float32 values including 0, 1 and values just around the k/255 boundaries."""
    v = rng.random(n, dtype=np.float32)
    k = rng.integers(0, 256, size=n // 4)
    v[: n // 4] = (k / 255.0).astype(np.float32)
    v[n // 4: n // 2] = np.nextafter(v[: n // 4], np.float32(0))
    v[0], v[1] = 0.0, 1.0
    return rng.permutation(v)


def interpolate_cases(out: pathlib.Path):
    m = Manifest(out, "interpolate")
    rng = np.random.default_rng(1)
    shapes = [((14, 14), (224, 224)), ((7, 5), (33, 100)), ((20, 30), (7, 9)), ((1, 1), (3, 3)),
              ((3, 1), (8, 5)), ((14, 14), (14, 14)), ((2, 2), (5, 7)), ((24, 24), (384, 384)),
              ((14, 14), (500, 333)), ((40, 3), (13, 2))]
    for (r, c), (orow, ocol) in shapes:
        x = torch.from_numpy(rng.standard_normal((r, c), dtype=np.float32))
        y = F.interpolate(x[None, None], size=(orow, ocol), mode="bilinear", align_corners=False)
        name = f"{r}x{c}_to_{orow}x{ocol}"
        m.add(name, r, c, orow, ocol, m.array(f"interp_{name}_in", x.numpy(), np.float32),
              m.array(f"interp_{name}_out", y[0, 0].numpy(), np.float32))
    # The notebooks call it with scale_factor=16.
    x = torch.from_numpy(rng.random((14, 14), dtype=np.float32))
    y = F.interpolate(x[None, None], scale_factor=16, mode="bilinear")
    m.add("14x14_scale16", 14, 14, 224, 224, m.array("interp_scale16_in", x.numpy(), np.float32),
          m.array("interp_scale16_out", y[0, 0].numpy(), np.float32))
    m.close()


def colormap_cases(out: pathlib.Path):
    m = Manifest(out, "colormap")
    levels = np.arange(256, dtype=np.uint8)
    jet = cv2.applyColorMap(levels.reshape(1, 256), cv2.COLORMAP_JET)[0][:, ::-1]
    m.add("jet", m.array("colormap_jet", jet, np.uint8))
    for name, source in (("viridis", "viridis"), ("inferno", "inferno"), ("turbo", "turbo"), ("rdbu", "RdBu_r")):
        lut = matplotlib.colormaps[source](levels, bytes=True)[:, :3]
        m.add(name, m.array(f"colormap_{name}", lut, np.uint8))
    m.close()

    # A float map coloured the notebooks' way: cv2.applyColorMap(np.uint8(255 * mask)).
    m = Manifest(out, "colormap_apply")
    mask = unit_map(np.random.default_rng(2), 4096)
    rgb = cv2.applyColorMap(np.uint8(255 * mask).reshape(64, 64), cv2.COLORMAP_JET)[..., ::-1]
    m.add("jet_4096", mask.size, m.array("apply_map", mask, np.float32),
          m.array("apply_jet", rgb, np.uint8))
    m.close()


def otsu_cases(out: pathlib.Path):
    m = Manifest(out, "otsu")
    rng = np.random.default_rng(3)
    maps = {
        "uniform": rng.random(4096, dtype=np.float32),
        "bimodal": np.clip(np.concatenate([rng.normal(0.2, 0.05, 3000), rng.normal(0.7, 0.1, 1096)]), 0, 1),
        "skewed": rng.random(5000) ** 4,
        "two_values": np.repeat([0.25, 0.75], [100, 300]),
        "three_values": np.repeat([0.0, 0.5, 1.0], [50, 20, 30]),
        "relevance_like": np.clip(rng.gamma(1.0, 0.1, 196), 0, 1),
    }
    for name, v in maps.items():
        v = v.astype(np.float32)
        u8 = np.uint8(255 * v)
        level, mask = cv2.threshold(u8.reshape(1, -1), 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        m.add(name, v.size, m.array(f"otsu_{name}", v, np.float32), int(level),
              m.array(f"otsu_{name}_mask", mask[0], np.uint8))
    m.close()


def notebook_cases(out: pathlib.Path, shared: pathlib.Path):
    """show_cam_on_image on the true-colour photo with the heatmap in RGB order."""
    m = Manifest(out, "notebook")
    rng = np.random.default_rng(4)
    for path in sorted((shared / "images").glob("*.png"))[:3]:
        rgba = rgba_of(Image.open(path))
        h, w = rgba.shape[:2]
        mask = unit_map(rng, h * w).reshape(h, w)
        photo = rgba[..., :3].astype(np.float32)
        photo = (photo - photo.min()) / (photo.max() - photo.min())
        heat = cv2.applyColorMap(np.uint8(255 * mask), cv2.COLORMAP_JET)[..., ::-1]
        cam = np.float32(heat) / 255 + photo
        cam = cam / np.max(cam)
        vis = np.uint8(255 * cam)
        m.add(path.stem, w, h, m.array(f"notebook_{path.stem}_in", rgba, np.uint8),
              m.array(f"notebook_{path.stem}_map", mask, np.float32),
              m.array(f"notebook_{path.stem}_out", vis, np.uint8))
    m.close()
