"""The export's parity check for text: the checkpoint's logits through the plain PyTorch
forward (explainer.PlainText, written apart from the explainer's record) against the
exported explainer graph run by onnxruntime-web, on texts of several lengths made of the
vocabulary's own ids between [CLS] and [SEP]. A wrong layout read, or a graph that froze a
shape of the trace's example, stops the export before anything is written."""
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import torch

from ..errors import ExportCheckFailed
from ..parity import LIMIT, relative_difference
from .config import TextConfig
from .explainer import build_text_plain

RUNNER = Path(__file__).with_name("run_logits.mjs")
REPO = Path(__file__).resolve().parents[3]
LENGTHS = (3, 12, 40)  # texts of these token counts (within max_tokens)


def parity_ids(cfg: TextConfig, tokenizer: dict, tokens: int, seed: int) -> torch.Tensor:
    """[1, tokens]: [CLS], random ids of the vocabulary, [SEP]."""
    words = torch.randint(0, cfg.vocab_size, (tokens - 2,), generator=torch.Generator().manual_seed(seed))
    return torch.cat([torch.tensor([tokenizer["cls_id"]]), words, torch.tensor([tokenizer["sep_id"]])])[None]


def check_parity(cfg: TextConfig, state_dict, tokenizer: dict, explainer_onnx: Path) -> float:
    """The largest relative logit difference over LENGTHS; raises ExportCheckFailed above LIMIT."""
    plain = build_text_plain(cfg, state_dict)
    texts = [parity_ids(cfg, tokenizer, tokens, seed) for seed, tokens in enumerate(LENGTHS)
             if tokens <= cfg.max_tokens]
    with torch.no_grad():
        want = [plain(ids).numpy().reshape(-1) for ids in texts]
    with tempfile.TemporaryDirectory() as tmp:
        ids_file, out = Path(tmp) / "ids.i64", Path(tmp) / "logits.f32"
        torch.cat(texts, dim=1).numpy().astype("<i8").tofile(ids_file)
        run = subprocess.run(["node", str(RUNNER), str(explainer_onnx), str(ids_file),
                              ",".join(str(ids.shape[1]) for ids in texts), str(cfg.num_classes), str(out)],
                             cwd=REPO, capture_output=True, text=True)
        if run.returncode:
            last = (run.stderr.strip().splitlines() or ["no message"])[-1]
            raise ExportCheckFailed(f"could not run the exported graph for the parity check: {last}")
        got = np.fromfile(out, dtype="<f4").reshape(len(texts), -1)
    worst = max(relative_difference(g, w) for g, w in zip(got, want))
    if not worst <= LIMIT:
        raise ExportCheckFailed(f"the exported graph's logits differ from the PyTorch forward by {worst:.2e} "
                                f"relative (limit {LIMIT:g}): not written")
    return worst
