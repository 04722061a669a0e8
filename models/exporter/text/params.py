"""The tensors a text classifier's graphs read, under the exporter's key names
(layout.py renames Hugging Face's), held once as module buffers (params.Params)."""
from ..params import Params
from .config import TextConfig


def text_param_shapes(cfg: TextConfig):
    """key -> shape of every tensor the graphs read."""
    d, m = cfg.embed_dim, cfg.mlp_dim
    shapes = {"embed.word": (cfg.vocab_size, d), "embed.position": (cfg.max_tokens, d),
              "embed.norm.weight": (d,), "embed.norm.bias": (d,)}
    if cfg.family == "bert":
        shapes["embed.token_type"] = (cfg.type_vocab_size, d)
    for b in range(cfg.depth):
        pre = f"blocks.{b}."
        shapes.update({pre + "attn.qkv.weight": (3 * d, d), pre + "attn.qkv.bias": (3 * d,)})
        for part, shape in (("attn.proj", (d, d)), ("norm1", (d,)), ("mlp.fc1", (m, d)),
                            ("mlp.fc2", (d, m)), ("norm2", (d,))):
            shapes[f"{pre}{part}.weight"] = shape
            shapes[f"{pre}{part}.bias"] = shape[:1]
    shapes.update({cfg.pool_key + ".weight": (d, d), cfg.pool_key + ".bias": (d,),
                   "head.weight": (cfg.num_classes, d), "head.bias": (cfg.num_classes,)})
    return shapes


class TextParams(Params):
    def __init__(self, cfg: TextConfig, state_dict):
        super().__init__(cfg.name, list(text_param_shapes(cfg)), state_dict)
