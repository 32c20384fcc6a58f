"""What the matrix rewrite (matrices.py) knows of a term's kind: a matrix, a vector, a
number, a numeral or unknown, from the binders' types and the term's form; how the kinds
combine; and a lambda whose binder is typed by the index it is used at."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from checkers.language.types import INT_NAMES, NAT_NAMES, REAL_NAMES, const_name, head_and_args
from theorem_index.lean import syntax as S

MATRIX, VECTOR, SCALAR, NUM = "matrix", "vector", "scalar", "num"
SCALARS = REAL_NAMES | INT_NAMES | NAT_NAMES


def tabulated(t: S.Term, want: str = MATRIX) -> bool:
    """A function of two indices (of one, for a vector) written out: `![![a, b], ![c, d]]`,
    `fun (i : Fin m) (j : Fin n) => …` (typed binders: tabulated as an array)."""
    while isinstance(t, S.Paren):
        t = t.term
    if isinstance(t, S.VecLit):
        return want == VECTOR or all(isinstance(u, S.VecLit) for u in t.items)
    if isinstance(t, S.Lam):
        return all(b.type is not None for b in t.binders)
    return False


def is_matrix_type(t: S.Term | None) -> bool:
    while isinstance(t, S.Paren):
        t = t.term
    if t is None:
        return False
    head, args = head_and_args(t)
    return const_name(head) == "Matrix" and len(args) == 3


def arrays(t: S.Term) -> S.Term:
    """`Matrix a b α` as `a → b → α`, wherever it occurs in a type."""
    while isinstance(t, S.Paren):
        t = t.term
    if is_matrix_type(t):
        _, (a, b, alpha) = head_and_args(t)
        return S.BinOp("→", a, S.BinOp("→", b, arrays(alpha)))
    if isinstance(t, S.BinOp) and t.op == "→":
        return S.BinOp("→", arrays(t.lhs), arrays(t.rhs))
    return t


def kind_of_type(t: S.Term | None) -> str | None:
    while isinstance(t, S.Paren):
        t = t.term
    if t is None:
        return None
    if is_matrix_type(t):
        return MATRIX
    if const_name(head_and_args(t)[0]) in SCALARS:
        return SCALAR
    if isinstance(t, S.BinOp) and t.op == "→":
        dom = const_name(head_and_args(t.lhs)[0])
        if dom == "Fin" and kind_of_type(t.rhs) == SCALAR:
            return VECTOR
    return None


def is_type_of_values(t: S.Term) -> bool:
    return (
        kind_of_type(t) is not None
        or isinstance(t, S.Sort)
        or (isinstance(t, S.BinOp) and t.op == "→")
        or const_name(head_and_args(t)[0]) == "Fin"
    )


def typed_lambda(t: S.Term, types: Mapping[str, S.Term]) -> S.Term:
    """`fun i => M i i` with M a matrix (or vector) binder (`types`: the binders' types):
    its binder typed as the index type it is used at (`fun (i : n) => …`), so that it is
    tabulated; else `t`."""
    lam = t
    while isinstance(lam, S.Paren):
        lam = lam.term
    if not isinstance(lam, S.Lam) or all(b.type is not None for b in lam.binders):
        return t
    binders = []
    for b in lam.binders:
        ty = b.type
        if ty is None and len(b.names) == 1 and b.pattern is None:
            ty = _index_type(b.names[0], lam.body, types)
        if ty is None:
            return t
        binders.append(dataclasses.replace(b, type=ty))
    return S.Paren(dataclasses.replace(lam, binders=tuple(binders)))


def _index_type(name: str, body: S.Term, types: Mapping[str, S.Term]) -> S.Term | None:
    """The index type at which `name` indexes a matrix or vector binder in `body`."""
    for u in S.subterms(body):
        if not (isinstance(u, S.App) and isinstance(u.fn, S.Var)):
            continue
        ty = types.get(u.fn.name)
        while isinstance(ty, S.Paren):
            ty = ty.term
        if ty is None:
            continue
        if is_matrix_type(ty):
            domains = list(head_and_args(ty)[1][:2])
        elif isinstance(ty, S.BinOp) and ty.op == "→":
            domains = [ty.lhs]
        else:
            continue
        for arg, dom in zip(u.args, domains, strict=False):
            if isinstance(arg, S.Var) and arg.name == name:
                return dom
    return None


def is_zero(t: S.Term) -> bool:
    while isinstance(t, S.Paren):
        t = t.term
    return isinstance(t, S.Num) and int(t.text, 0) == 0


def applied(kind: str | None, extra: int) -> str | None:
    """The kind of a matrix or vector applied to `extra` more indices."""
    if extra <= 0:
        return kind
    if kind == MATRIX:
        return VECTOR if extra == 1 else SCALAR if extra == 2 else None
    if kind == VECTOR:
        return SCALAR if extra == 1 else None
    return None


def combined(a: str | None, b: str | None, op: str) -> str | None:
    if op in ("=", "≠", "<", "≤", ">", "≥", "∧", "∨", "→", "↔"):
        return None
    if VECTOR in (a, b):
        return VECTOR
    if a in (SCALAR, NUM) and b in (SCALAR, NUM):
        return SCALAR if SCALAR in (a, b) else NUM
    return None
