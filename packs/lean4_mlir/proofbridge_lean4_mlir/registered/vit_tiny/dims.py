"""ViT-Tiny's dimensions, its 200 parameter-gradient nodes and their families.

The literal network (the defaults): a 3×224×224 image cut into 16×16 patches
(196 tokens and a CLS token: T = 197), width D = 192, 12 pre-LN blocks of 3
heads of width 64 and an MLP of 768, 10 classes. Every one of them is a
parameter (`VitDims.from_mapping`, the `--dims` keys below), so the same
network runs at a size a unit test can afford.

`drop` is the stochastic-depth rate r in percent: block i keeps a branch with
probability keep_i = 1 − r·i/(depth − 1); 0 (the default) is "none", no drop
anywhere. The batch size `B` is not a dimension of the network; 2 by default.

The parameters (16 per block, then 8 more), in the order the backward chain
emits their gradients (from the loss down): the classifier and final norm,
the blocks from the last to the first (each from its MLP down to its first
LayerNorm), then the embedding. Block tensors are stored stacked over the
blocks, so node `blocks.3.attn.Wq` is `grads["attn.Wq"][3]`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

HEAD_PARAMS = ("head.W", "head.b", "norm.gamma", "norm.beta")
BLOCK_PARAMS = (
    "mlp.W2",
    "mlp.b2",
    "mlp.W1",
    "mlp.b1",
    "ln2.gamma",
    "ln2.beta",
    "attn.Wo",
    "attn.bo",
    "attn.Wv",
    "attn.bv",
    "attn.Wq",
    "attn.bq",
    "attn.Wk",
    "attn.bk",
    "ln1.gamma",
    "ln1.beta",
)
EMBED_PARAMS = ("pos", "cls", "patch.W", "patch.b")

# one row per family in a stored result: which nodes it holds, in chain order
FAMILIES: dict[str, tuple[str, ...]] = {
    "classifier W": ("head.W",),
    "classifier b": ("head.b",),
    "final LN γ/β": ("norm.gamma", "norm.beta"),
    "MLP fc2 W": ("mlp.W2",),
    "MLP fc2 b": ("mlp.b2",),
    "MLP fc1 W": ("mlp.W1",),
    "MLP fc1 b": ("mlp.b1",),
    "LN₂ γ/β": ("ln2.gamma", "ln2.beta"),
    "attention out W": ("attn.Wo",),
    "attention out b": ("attn.bo",),
    "attention V W/b": ("attn.Wv", "attn.bv"),
    "attention Q W/b": ("attn.Wq", "attn.bq"),
    "attention K W/b": ("attn.Wk", "attn.bk"),
    "LN₁ γ/β": ("ln1.gamma", "ln1.beta"),
    "position": ("pos",),
    "CLS token": ("cls",),
    "patch conv W": ("patch.W",),
    "patch conv b": ("patch.b",),
}
FAMILY_OF = {p: f for f, ps in FAMILIES.items() for p in ps}


@dataclass(frozen=True)
class VitDims:
    """The network's sizes (see the module doc); `VitDims()` is ViT-Tiny's literal one."""

    B: int = 2
    depth: int = 12
    D: int = 192
    heads: int = 3
    mlp: int = 768
    img: int = 224
    patch: int = 16
    chans: int = 3
    K: int = 10
    drop: int = 0

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_mapping(cls, dims: Mapping[str, int]) -> VitDims:
        """The literal dims with `dims` put in; ValueError names a bad key or value."""
        unknown = sorted(set(dims) - set(cls.names()))
        if unknown:
            raise ValueError(
                f"unknown ViT dimension {', '.join(unknown)} (known: {', '.join(cls.names())})"
            )
        out = cls(**{k: int(v) for k, v in dims.items()})
        out.validate()
        return out

    def validate(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            low = 0 if f.name == "drop" else 1
            if value < low:
                raise ValueError(f"ViT dimension {f.name} must be at least {low}, got {value}")
        if self.D % self.heads:
            raise ValueError(f"D = {self.D} is not a multiple of heads = {self.heads}")
        if self.patch > self.img:
            raise ValueError(f"patch = {self.patch} is larger than img = {self.img}")
        if self.drop > 100:
            raise ValueError(f"drop is a rate in percent, got {self.drop}")

    @property
    def grid(self) -> int:
        return self.img // self.patch

    @property
    def tokens(self) -> int:
        return self.grid * self.grid + 1

    @property
    def head_dim(self) -> int:
        return self.D // self.heads

    @property
    def patch_len(self) -> int:
        return self.chans * self.patch * self.patch

    def keep(self, block: int) -> float:
        """keep_i = 1 − r·i/(depth − 1) (one block: keep 1 − 0)."""
        r = self.drop / 100.0
        return 1.0 - r * block / max(self.depth - 1, 1)

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Every parameter's shape; block tensors lead with the block axis."""
        D, L, M = self.D, self.depth, self.mlp
        block = {
            "ln1.gamma": (D,),
            "ln1.beta": (D,),
            "attn.Wq": (D, D),
            "attn.bq": (D,),
            "attn.Wk": (D, D),
            "attn.bk": (D,),
            "attn.Wv": (D, D),
            "attn.bv": (D,),
            "attn.Wo": (D, D),
            "attn.bo": (D,),
            "ln2.gamma": (D,),
            "ln2.beta": (D,),
            "mlp.W1": (D, M),
            "mlp.b1": (M,),
            "mlp.W2": (M, D),
            "mlp.b2": (D,),
        }
        top = {
            "patch.W": (D, self.chans, self.patch, self.patch),
            "patch.b": (D,),
            "cls": (D,),
            "pos": (self.tokens, D),
            "norm.gamma": (D,),
            "norm.beta": (D,),
            "head.W": (D, self.K),
            "head.b": (self.K,),
        }
        return {**top, **{k: (L, *s) for k, s in block.items()}}

    def nodes(self) -> list[tuple[str, str, int | None]]:
        """Every parameter-gradient node in chain order: (node name, parameter, block)."""
        out: list[tuple[str, str, int | None]] = [(p, p, None) for p in HEAD_PARAMS]
        for i in reversed(range(self.depth)):
            out += [(f"blocks.{i}.{p}", p, i) for p in BLOCK_PARAMS]
        out += [(p, p, None) for p in EMBED_PARAMS]
        return out


LITERAL = VitDims()
assert len(LITERAL.nodes()) == 200
