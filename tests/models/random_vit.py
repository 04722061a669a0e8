"""Writes a random-weight ViT as a bare timm state dict (.pth), for `vit-relevance export`
to take: the build test's small model and the scale bench's ViT-S/16 and ViT-B/16.

usage: random_vit.py OUT.pth --width W --heads H --depth D [--image PX] [--classes N]
"""
import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: models.exporter
sys.path.insert(0, str(Path(__file__).resolve().parent))  # timm_state_dict

from models.exporter.config import ViTConfig  # noqa: E402
from timm_state_dict import random_state_dict  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--width", type=int, required=True)
    p.add_argument("--heads", type=int, required=True)
    p.add_argument("--depth", type=int, required=True)
    p.add_argument("--image", type=int, default=224, help="input side in pixels (16-pixel patches)")
    p.add_argument("--classes", type=int, default=1000)
    args = p.parse_args(argv)
    cfg = ViTConfig(name=Path(args.out).stem, depth=args.depth, heads=args.heads, embed_dim=args.width,
                    patch_size=16, image_size=(args.image, args.image), num_classes=args.classes)
    torch.save(random_state_dict(cfg), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
