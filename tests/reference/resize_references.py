"""PIL resize and torchvision-style preprocessing references.

torchvision is not installed here, so its Resize(int) / Resize((h, w)) / CenterCrop /
ToTensor / Normalize are spelled out below from its documented arithmetic; the resizing
itself is PIL's Image.resize, which is what those transforms call on PIL images.
"""
import pathlib

import numpy as np
import torch
from PIL import Image

from reference_io import Manifest, rgba_of

FILTERS = {"bicubic": Image.BICUBIC, "bilinear": Image.BILINEAR}


def synthetic(kind: str, w: int, h: int, seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    if kind == "noise":
        a = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
    elif kind == "checker":  # hard edges: worst case for ringing and clamping
        yy, xx = np.mgrid[0:h, 0:w]
        a = np.stack([((xx // 3 + yy // 2) % 2) * 255, (xx * 7 % 256), (yy * 5 % 256)], -1)
    else:  # smooth gradient
        yy, xx = np.mgrid[0:h, 0:w]
        a = np.stack([xx * 255 // max(w - 1, 1), yy * 255 // max(h - 1, 1),
                      (xx + yy) * 255 // max(w + h - 2, 1)], -1)
    return Image.fromarray(a.astype(np.uint8), "RGB")


def tv_resize(img, mode, size, interp):
    w, h = img.size
    if mode == "short_side":
        short, long = (w, h) if w <= h else (h, w)
        if short == size[0]:
            return img
        new_long = int(size[0] * long / short)
        new_w, new_h = (size[0], new_long) if w <= h else (new_long, size[0])
    else:
        new_w, new_h = size
    return img.resize((new_w, new_h), FILTERS[interp])


def tv_center_crop(img, cw, ch):
    w, h = img.size

    def offset(size, crop):  # torchvision: zero-pad when too small, then round((s - c) / 2)
        return int(round((size - crop) / 2.0)) if crop <= size else -((crop - size) // 2)

    left, top = offset(w, cw), offset(h, ch)
    return img.crop((left, top, left + cw, top + ch))  # PIL fills outside with zeros


def tv_to_normalised(img, mean, std):
    x = torch.from_numpy(np.array(img.convert("RGB"))).permute(2, 0, 1).float().div(255)
    return x.sub(torch.tensor(mean)[:, None, None]).div(torch.tensor(std)[:, None, None])


def resize_cases(out: pathlib.Path, shared: pathlib.Path):
    m = Manifest(out, "resize")
    sizes = [  # (w, h) -> (out_w, out_h)
        ((37, 23), (100, 61)), ((300, 200), (97, 61)), ((640, 480), (224, 224)),
        ((4000, 30), (256, 3)), ((30, 4000), (7, 311)), ((1, 1), (5, 3)), ((2, 3), (256, 256)),
        ((256, 256), (256, 100)), ((256, 256), (90, 256)), ((100, 100), (100, 100)),
        ((513, 511), (512, 512)), ((17, 9), (16, 19)), ((1200, 50), (341, 14))]
    images = []
    for i, ((w, h), o) in enumerate(sizes):
        for kind in ("noise", "checker", "gradient"):
            images.append((f"{kind}{w}x{h}_{i}", synthetic(kind, w, h, i), [o]))
    for path in sorted((shared / "images").glob("*.png")):
        images.append((path.stem, Image.open(path), [(256, 256), (97, 131), (600, 401)]))
    for path in sorted((shared / "imagenet" / "samples").glob("*.JPEG"))[:4]:
        img = Image.open(path)
        w, h = img.size
        images.append((path.stem, img, [(w // 3 + 1, h // 3), (224, 224), (w * 3 // 2, h + 7)]))
    for name, img, outs in images:
        rgba = rgba_of(img)
        h, w = rgba.shape[:2]
        src = m.array(f"resize_{name}_in", rgba, np.uint8)
        rgb = img.convert("RGB")
        for ow, oh in outs:
            for interp, flt in FILTERS.items():
                res = np.asarray(rgb.resize((ow, oh), flt))
                dst = m.array(f"resize_{name}_{ow}x{oh}_{interp}", res, np.uint8)
                m.add(f"{name}_{ow}x{oh}_{interp}", w, h, ow, oh, interp, src, dst)
    m.close()


DEIT = dict(resize_mode="short_side", size=(256,), crop=(224, 224), interp="bicubic",
            mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225), passthrough=1)
VIT_B_EVAL = dict(resize_mode="exact", size=(224, 224), crop=None, interp="bilinear",
                  mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5), passthrough=0)
# DeiT with crop mode "none" (with_crop_mode): the whole photo to 224x224, DeiT's bicubic
# and normalisation.
DEIT_NO_CROP = dict(DEIT, resize_mode="exact", size=(224, 224), crop=None)
PADDED = dict(resize_mode="short_side", size=(100,), crop=(131, 90), interp="bilinear",
              mean=(0.5, 0.4, 0.3), std=(0.2, 0.3, 0.4), passthrough=0)


def pipeline_cases(out: pathlib.Path, shared: pathlib.Path):
    m = Manifest(out, "pipeline")
    photos = [(p.stem, Image.open(p)) for p in sorted((shared / "images").glob("*.png"))]
    photos += [(p.stem, Image.open(p))
               for p in sorted((shared / "imagenet" / "samples").glob("*.JPEG"))[:6]]
    photos += [(f"noise{w}x{h}", synthetic("noise", w, h, w * h))
               for w, h in [(301, 257), (257, 301), (1000, 300), (300, 1000), (224, 224),
                            (255, 255), (1, 1), (3000, 41)]]
    for name, img in photos:
        rgba = rgba_of(img)
        h, w = rgba.shape[:2]
        src = m.array(f"pipeline_{name}_in", rgba, np.uint8)
        for spec_name, spec in (("deit", DEIT), ("deit_nocrop", DEIT_NO_CROP), ("vitb_eval", VIT_B_EVAL),
                                ("padded", PADDED)):
            rgb = img.convert("RGB")
            input_size = spec["crop"] or (spec["size"] if spec["resize_mode"] == "exact" else None)
            if not (spec["passthrough"] and input_size == (w, h)):
                rgb = tv_resize(rgb, spec["resize_mode"], spec["size"], spec["interp"])
                if spec["crop"]:
                    rgb = tv_center_crop(rgb, *spec["crop"])
            x = tv_to_normalised(rgb, spec["mean"], spec["std"]).numpy()
            dst = m.array(f"pipeline_{name}_{spec_name}", x, np.float32)
            size = spec["size"] + (0,) if len(spec["size"]) == 1 else spec["size"]
            crop = spec["crop"] or (0, 0)
            m.add(f"{name}_{spec_name}", w, h, src, spec["resize_mode"], *size,
                  int(spec["crop"] is not None), *crop, spec["interp"], *spec["mean"],
                  *spec["std"], spec["passthrough"], x.shape[2], x.shape[1], dst)
    # The golden input tensor of METHODS.md: catdog.png (224x224) passed through.
    golden = np.load(shared / "reference" / "golden" / "catdog-input.npy")[0]
    rgba = rgba_of(Image.open(shared / "images" / "catdog.png"))
    src = m.array("pipeline_catdog_golden_in", rgba, np.uint8)
    dst = m.array("pipeline_catdog_golden", golden, np.float32)
    m.add("catdog_golden", 224, 224, src, "short_side", 256, 0, 1, 224, 224, "bicubic",
          *DEIT["mean"], *DEIT["std"], 1, 224, 224, dst)
    m.close()
