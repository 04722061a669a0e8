"""Architecture of a BERT-family text classifier (shape facts only, no weights)."""
from dataclasses import dataclass

FAMILIES = ("bert", "distilbert")
# "gelu" exact (erf), "gelu_tanh" the tanh approximation: the names forward.activation reads
ACTIVATIONS = ("gelu", "gelu_tanh")


@dataclass(frozen=True)
class TextConfig:
    name: str
    family: str  # "bert": pooler tanh(Linear(h[CLS])); "distilbert": ReLU(pre_classifier(h[CLS]))
    depth: int
    heads: int
    embed_dim: int
    mlp_dim: int
    max_tokens: int  # max_position_embeddings
    num_classes: int
    vocab_size: int
    type_vocab_size: int = 0  # token-type rows (BERT); the graph uses type 0
    ln_eps: float = 1e-12
    act: str = "gelu"

    def __post_init__(self):
        if self.family not in FAMILIES:
            raise ValueError(f"family {self.family!r} is not one of {', '.join(FAMILIES)}")
        if self.act not in ACTIVATIONS:
            raise ValueError(f"activation {self.act!r} is not one of {', '.join(ACTIVATIONS)}")
        if self.embed_dim % self.heads:
            raise ValueError(f"hidden size {self.embed_dim} not divisible by {self.heads} heads")

    @property
    def head_dim(self) -> int:
        return self.embed_dim // self.heads

    @property
    def pooler(self) -> bool:
        """BERT's tanh pooler; DistilBERT has pre_classifier + ReLU instead."""
        return self.family == "bert"

    @property
    def pool_key(self) -> str:
        """The Linear between h[CLS] and the classifier, in the exporter's key names."""
        return "pooler" if self.pooler else "pre_classifier"
