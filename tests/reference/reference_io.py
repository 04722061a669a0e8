"""Writing reference cases: raw little-endian arrays in data/ and one manifest line per case.

A manifest is plain text: one case a line, fields separated by spaces, file names relative
to the output folder. The C++ tests parse the same layout (see the header of each
*_reference_test.cpp for the fields of each manifest).
"""
import pathlib

import numpy as np


class Manifest:
    def __init__(self, out_dir: pathlib.Path, name: str):
        self.out_dir = out_dir
        self.path = out_dir / f"{name}.txt"
        self.lines = []
        (out_dir / "data").mkdir(parents=True, exist_ok=True)

    def array(self, stem: str, values: np.ndarray, dtype) -> str:
        """Writes `values` as raw `dtype` and returns its manifest name."""
        rel = f"data/{stem}.bin"
        np.ascontiguousarray(values, dtype=dtype).tofile(self.out_dir / rel)
        return rel

    def add(self, *fields):
        self.lines.append(" ".join(str(f) for f in fields))

    def close(self):
        self.path.write_text("\n".join(self.lines) + "\n")
        print(f"{self.path.name}: {len(self.lines)} cases")


def rgba_of(img) -> np.ndarray:
    """PIL image -> HxWx4 uint8, as a canvas would hand it over (alpha 255 when absent)."""
    return np.asarray(img.convert("RGBA"), dtype=np.uint8)
