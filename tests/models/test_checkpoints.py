"""Reading checkpoint files, the checkpoint folder setting, and the missing-file message."""
import time

import pytest
import torch

from models.exporter.architectures import KNOWN_MODELS, check_state_dict
from models.exporter.checkpoints import (ENV_CHECKPOINT_DIR, DEFAULT_CHECKPOINT_DIR, checkpoint_dir,
                                         load_state_dict, locate_or_download, sha256_file)
from models.exporter.errors import CheckpointMissing, CheckpointUnreadable
from timm_state_dict import SMALL, random_state_dict


@pytest.mark.parametrize("layout", ["plain timm", "official DeiT {'model': ...}", "DataParallel module."])
def test_both_checkpoint_layouts_load_to_the_same_state_dict(tmp_path, layout):
    sd = random_state_dict()
    obj = {"plain timm": sd, "official DeiT {'model': ...}": {"model": sd},
           "DataParallel module.": {"state_dict": {"module." + k: v for k, v in sd.items()}}}[layout]
    torch.save(obj, tmp_path / "ck.pth")
    loaded = load_state_dict(tmp_path / "ck.pth")
    assert loaded.keys() == sd.keys()
    assert all(torch.equal(loaded[k], sd[k]) for k in sd)
    check_state_dict(SMALL, loaded)


def test_a_file_that_is_not_a_state_dict_is_rejected(tmp_path):
    torch.save({"epoch": 3}, tmp_path / "bad.pth")
    with pytest.raises(CheckpointUnreadable, match="holds no tensors"):
        load_state_dict(tmp_path / "bad.pth")


def test_checkpoint_dir_flag_beats_environment_beats_default(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_CHECKPOINT_DIR, raising=False)
    assert checkpoint_dir(None) == DEFAULT_CHECKPOINT_DIR
    monkeypatch.setenv(ENV_CHECKPOINT_DIR, str(tmp_path / "env"))
    assert checkpoint_dir(None) == tmp_path / "env"
    assert checkpoint_dir(str(tmp_path / "flag")) == tmp_path / "flag"


def test_local_file_is_found_under_its_plain_or_official_name(tmp_path):
    km = KNOWN_MODELS["deit_tiny_patch16_224"]
    (tmp_path / km.official_filename).write_bytes(b"x")
    assert locate_or_download(km.name, tmp_path, km.url, allow_download=False) == tmp_path / km.official_filename
    (tmp_path / f"{km.name}.pth").write_bytes(b"y")
    assert locate_or_download(km.name, tmp_path, km.url, allow_download=False) == tmp_path / f"{km.name}.pth"


def expected_missing_message(name, directory, url):
    return (f"checkpoint for {name} not found: put {name}.pth in {directory} (download it from {url}; "
            f"the official name {url.rsplit('/', 1)[-1]} is accepted too). "
            f"The directory is set by --checkpoint-dir or ${ENV_CHECKPOINT_DIR}.")


def test_missing_checkpoint_without_network_says_which_file_goes_where(tmp_path):
    # The real official address: this machine has no route to it, so the download fails.
    km = KNOWN_MODELS["deit_small_patch16_224"]
    started = time.time()
    with pytest.raises(CheckpointMissing) as err:
        locate_or_download(km.name, tmp_path, km.url, timeout=3)
    assert time.time() - started < 10
    msg = str(err.value)
    assert msg.startswith(expected_missing_message(km.name, tmp_path, km.url) + " Download failed: ")
    assert not list(tmp_path.iterdir())  # no partial file left behind


def test_unreachable_address_times_out_quickly_with_the_same_message(tmp_path):
    url = "http://10.255.255.1/deit/deit_tiny_patch16_224-a1311bcf.pth"  # unroutable
    started = time.time()
    with pytest.raises(CheckpointMissing) as err:
        locate_or_download("deit_tiny_patch16_224", tmp_path, url, timeout=1)
    assert time.time() - started < 5
    assert str(err.value).startswith(expected_missing_message("deit_tiny_patch16_224", tmp_path, url))


def test_no_download_mode_gives_the_message_at_once(tmp_path):
    km = KNOWN_MODELS["vit_base_patch16_224"]
    with pytest.raises(CheckpointMissing) as err:
        locate_or_download(km.name, tmp_path, km.url, allow_download=False)
    assert str(err.value) == expected_missing_message(km.name, tmp_path, km.url)


def test_sha256_of_a_file(tmp_path):
    (tmp_path / "f").write_bytes(b"abc")
    assert sha256_file(tmp_path / "f") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
