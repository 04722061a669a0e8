#!/usr/bin/python3
"""Writes the reference data of the render_* and preprocess_* reference tests.

    /usr/bin/python3 tests/reference/make_references.py OUT_DIR [SHARED_DIR]

Needs Debian's python3-pil, python3-torch, python3-opencv, python3-matplotlib. ctest runs
it as the fixture `reference_data` (tests/cpp/CMakeLists.txt); nothing it writes is
committed.
"""
import pathlib
import sys

sys.dont_write_bytecode = True  # keep the source tree clean

import render_references  # noqa: E402
import resize_references  # noqa: E402


def main():
    out = pathlib.Path(sys.argv[1])
    here = pathlib.Path(__file__).resolve().parent
    shared = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else here.parents[2] / "shared"
    out.mkdir(parents=True, exist_ok=True)
    resize_references.resize_cases(out, shared)
    resize_references.pipeline_cases(out, shared)
    render_references.interpolate_cases(out)
    render_references.colormap_cases(out)
    render_references.otsu_cases(out)
    render_references.notebook_cases(out, shared)


if __name__ == "__main__":
    main()
