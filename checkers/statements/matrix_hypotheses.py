"""Matrices a hypothesis says are symmetric, Hermitian or diagonal, drawn so.

A hypothesis `(h : A.IsSymm)` on a matrix binder A holds for almost no matrix drawn
entry by entry, so every trial would be vacuous. Such an A is drawn free and then
made what the hypothesis says, by a map onto exactly the matrices that satisfy it:

- `A.IsSymm` (`Aᵀ = A`, Mathlib/LinearAlgebra/Matrix/Symmetric.lean) and `A.IsHermitian`
  (`Aᴴ = A`, Mathlib/LinearAlgebra/Matrix/Hermitian.lean; the modelled entries have the
  trivial star): A := its upper triangle mirrored (`Matrix.upperSymmetric A`), which
  is every symmetric matrix's own image;
- `A.IsDiag` (`Pairwise fun i j => A i j = 0`, Mathlib/LinearAlgebra/Matrix/IsDiag.lean):
  A := `Matrix.diagonal (Matrix.diag A)`, every diagonal matrix's own image.

A is replaced in the statement and in every later binder, the hypothesis dropped, and
the checker's assumptions say how A was drawn. A hypothesis on anything but a matrix
binder (`(circulant v).IsSymm`) is left to the matrix rewrite, which reads it as its
equation (matrices.py).
"""

from __future__ import annotations

import dataclasses

from checkers.language.substitute import substitute
from checkers.language.types import const_name, head_and_args
from theorem_index.lean import syntax as S

__all__ = ["SHAPED", "draw_shaped_matrices"]

# the hypothesis's field -> the map onto the matrices that satisfy it, and how it is said
SHAPED = {
    "IsSymm": ("symmetric", lambda a: S.App(_c("Matrix.upperSymmetric"), (a,))),
    "IsHermitian": ("Hermitian", lambda a: S.App(_c("Matrix.upperSymmetric"), (a,))),
    "IsDiag": (
        "diagonal",
        lambda a: S.App(_c("Matrix.diagonal"), (S.Paren(S.App(_c("Matrix.diag"), (a,))),)),
    ),
}


def _c(name: str) -> S.Const:
    return S.Const(name, written=name)


def _strip(t: S.Term | None) -> S.Term | None:
    while isinstance(t, S.Paren):
        t = t.term
    return t


def _square_matrix(t: S.Term | None) -> bool:
    t = _strip(t)
    if t is None:
        return False
    head, args = head_and_args(t)
    return const_name(head) == "Matrix" and len(args) == 3 and args[0] == args[1]


def draw_shaped_matrices(
    binders: tuple[S.Binder, ...], statement: S.Term
) -> tuple[tuple[S.Binder, ...], S.Term, tuple[str, ...]]:
    """(binders, statement, notes) with each square matrix binder that a later hypothesis
    says is symmetric, Hermitian or diagonal drawn so (see the module)."""
    matrices = {n for b in binders if _square_matrix(b.type) for n in b.names}
    out: list[S.Binder] = []
    notes: list[str] = []
    mapping: dict[str, S.Term] = {}
    for b in binders:
        t = _strip(b.type)
        if (
            b.kind != "inst"
            and isinstance(t, S.Proj)
            and t.field in SHAPED
            and isinstance(_strip(t.term), S.Var)
        ):
            name = _strip(t.term).name  # type: ignore[union-attr]
            if name in matrices and name not in mapping:
                what, shape = SHAPED[t.field]
                mapping[name] = S.Paren(shape(S.Var(name)))
                hyp = ", ".join(b.names) or "_"
                notes.append(f"{name} drawn {what} (hypothesis {hyp}): {_said(t.field)}")
                continue
        if mapping and b.type is not None:
            b = dataclasses.replace(b, type=substitute(b.type, mapping, set()))
        out.append(b)
    if not mapping:
        return binders, statement, ()
    return tuple(out), substitute(statement, mapping, set()), tuple(notes)


def _said(field: str) -> str:
    if field == "IsDiag":
        return "its off-diagonal entries set to 0, so every diagonal matrix can be drawn"
    if field == "IsHermitian":  # the modelled entries' star is trivial: Aᴴ = Aᵀ
        return (
            "its upper triangle mirrored, so every Hermitian (here symmetric) matrix can be drawn"
        )
    return "its upper triangle mirrored, so every symmetric matrix can be drawn"
