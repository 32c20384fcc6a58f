"""Which function types a binder may have and still be drawn: arrays over `Fin` indices
(`Fin m → Fin n → ℝ`, `Fin m × Fin n → ℝ`), and functions of one real or array argument
(`ℝ → ℝ`, `Vec m → Vec n`), which drawn_functions.py draws from a family."""

from __future__ import annotations

from checkers.language.types import (
    COMPLEX_NAMES,
    INT_NAMES,
    NAT_NAMES,
    REAL_NAMES,
    array_rank,
    const_name,
    head_and_args,
)
from theorem_index.lean import syntax as S

__all__ = ["drawn_function", "fin_type", "indexed_by_fin"]


def indexed_by_fin(ty: S.Term) -> bool:
    """Whether every argument a function type takes is a `Fin` index (or a pair of them):
    the arrays the sampler draws. A function of a vector or of a real is not drawn."""
    t = ty
    while isinstance(t, S.Paren):
        t = t.term
    while isinstance(t, S.BinOp) and t.op == "→":
        if not fin_type(t.lhs):
            return False
        t = t.rhs
        while isinstance(t, S.Paren):
            t = t.term
    return True


def fin_type(t: S.Term) -> bool:
    while isinstance(t, S.Paren):
        t = t.term
    if isinstance(t, S.BinOp) and t.op == "×":
        return fin_type(t.lhs) and fin_type(t.rhs)
    h, args = head_and_args(t)
    return const_name(h) == "Fin" and len(args) == 1


# the number types a drawn function takes (drawn_functions.py: ℕ and ℤ as reals, ℂ → ℂ
# holomorphic)
_ARGUMENTS = REAL_NAMES | COMPLEX_NAMES | NAT_NAMES | INT_NAMES


def drawn_function(ty: S.Term) -> bool:
    t = ty.term if isinstance(ty, S.Paren) else ty
    return isinstance(t, S.BinOp) and t.op == "→" and _draws_function(t)


def _draws_function(ty: S.BinOp) -> bool:
    """`A → B` of one argument that is not an index (drawn_functions.py decides the rest)."""
    dom = ty.lhs.term if isinstance(ty.lhs, S.Paren) else ty.lhs
    h, _ = head_and_args(dom)
    name = const_name(h)
    if name is None or not (name in _ARGUMENTS or array_rank(name) is not None):
        return False  # `Fin n → …`, `Fin m × Fin n → ℝ` are arrays; other domains are not drawn
    rest = ty.rhs.term if isinstance(ty.rhs, S.Paren) else ty.rhs
    if isinstance(rest, S.BinOp) and rest.op == "→":
        h2, _ = head_and_args(rest.lhs)
        if const_name(h2) == "Fin":
            return True  # `Vec m → Fin n → ℝ` is `Vec m → Vec n`
        return _draws_function(rest)  # `ℝ → ℝ → ℝ`: a function of several arguments
    return True
