"""The metadata JSON against the documented format (docs/architecture.md) and the labels."""
import json
import re
from pathlib import Path

import pytest

from models.exporter.architectures import KNOWN_MODELS
from models.exporter.metadata import build_metadata, output_shapes, read_synset_words
from timm_state_dict import SMALL, write_labels

REPO = Path(__file__).resolve().parents[2]
SYNSET_WORDS = REPO.parent / "shared" / "imagenet" / "synset_words.txt"
needs_labels = pytest.mark.skipif(not SYNSET_WORDS.is_file(), reason=f"no {SYNSET_WORDS}")


def documented_example() -> dict:
    text = (REPO / "docs" / "architecture.md").read_text()
    block = re.search(r"## Metadata JSON.*?```json\n(.*?)```", text, re.S).group(1)
    return json.loads(block)


@pytest.fixture(scope="module")
def deit_tiny_metadata():
    km = KNOWN_MODELS["deit_tiny_patch16_224"]
    return build_metadata(km.config, km.preprocess, read_synset_words(SYNSET_WORDS), "deit_tiny_patch16_224.onnx",
                          "deit_tiny_patch16_224.pth", "ab" * 32, "0123456789abcdef")


@needs_labels
def test_every_documented_field_is_written_with_the_documented_values(deit_tiny_metadata):
    doc, meta = documented_example(), deit_tiny_metadata
    assert set(doc) == set(meta)
    for key in ("format", "format_version", "name", "onnx", "preprocess", "inputs", "outputs"):
        assert meta[key] == doc[key], key
    assert doc["architecture"].items() <= meta["architecture"].items()
    assert meta["source"] == {"checkpoint": "deit_tiny_patch16_224.pth", "sha256": "ab" * 32}
    assert meta["exporter"] == {"version": "0123456789abcdef"}
    json.dumps(meta, allow_nan=False)


@needs_labels
def test_labels_are_short_name_full_name_and_wnid_per_class(deit_tiny_metadata):
    meta = deit_tiny_metadata
    assert len(meta["labels"]) == len(meta["label_names"]) == len(meta["wnids"]) == 1000
    assert meta["labels"][:2] == ["tench", "goldfish"]
    assert meta["label_names"][0] == "tench, Tinca tinca"
    assert meta["wnids"][0] == "n01440764"
    assert meta["labels"][281] == "tabby" and meta["labels"][243] == "bull mastiff"
    assert all(label and "," not in label for label in meta["labels"])


def test_label_count_must_match_the_classes(tmp_path):
    km = KNOWN_MODELS["deit_tiny_patch16_224"]
    labels = read_synset_words(write_labels(tmp_path / "ten.txt", 10))
    with pytest.raises(ValueError, match="the labels file has 10 classes, deit_tiny_patch16_224 has 1000"):
        build_metadata(km.config, km.preprocess, labels, "x.onnx", "x.pth", "0", "0")


def test_output_shapes_follow_the_config():
    assert output_shapes(SMALL) == {
        "logits": [1, 10], "attn": [2, 2, 17, 17], "attn_grad": ["K", 2, 2, 17, 17],
        "attn_rel": ["K", 2, 2, 17, 17], "attn_rel_classic_last": ["K", 2, 17, 17],
        "input_rel_classic": ["K", 64, 64], "input_rel_attnlrp": ["K", 64, 64], "input_rel_cp_lrp": ["K", 64, 64]}
    distilled = KNOWN_MODELS["deit_tiny_distilled_patch16_224"].config
    assert output_shapes(distilled)["attn"] == [12, 3, 198, 198]
