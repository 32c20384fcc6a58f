"""A statement about matrices with its matrix operations named, before it is evaluated.

A `Matrix m n α` over `Fin` index types is evaluated as the array `m → n → α`
(library/mathlib_linear_algebra), whose `+`, `-`, `•`, entries and equality are Mathlib's
matrix ones. Its `*`, `⁻¹` and `^` are not entrywise, and a numeral where a matrix is
expected is a multiple of the identity. So the statement is rewritten first, each
subterm typed as a matrix, a vector, a number or unknown from the binders' types:

- `A * B` of matrices is `Matrix.mul A B`; `c * A`, `A * c` with c a numeral `c • A`;
- `A⁻¹` is `Matrix.inv A`, `A ^ k` is `Matrix.pow A k`, `Aᵀ` is `Matrix.transpose A`,
  `Aᴴ` and `star A` are `Matrix.conjTranspose A`;
- a numeral beside a matrix in `+`, `-` or a relation is `Matrix.scalarOf A c` (c on the
  diagonal), and `(c : Matrix n n α)` is `Matrix.diagonal fun _ => c`;
- `v ⬝ᵥ w`, `A *ᵥ v`, `v ᵥ* A`, `A ⊙ B` (Hadamard's entrywise product) and the field
  notations `A.det`, `A.trace`, `A.diag`, `A.transpose`, `A.mulVec v`, `v.vecMul A` name
  their functions;
- binder types `Matrix a b α` become `a → b → α`, so the sampler draws arrays.

Where an operand of `*`, `⁻¹` or `^` beside a matrix cannot be typed (a function the
rewrite does not know, applied to matrices), the statement is refused, saying so: the
entrywise reading could be wrong, and a wrong reading must not be checked.
"""

from __future__ import annotations

import dataclasses

from checkers.language.errors import NotSupported
from checkers.language.types import head_and_args
from checkers.library.mathlib_linear_algebra import MATRIX_FUNCTIONS
from checkers.statements.matrix_kinds import (
    MATRIX,
    NUM,
    SCALAR,
    VECTOR,
    applied,
    arrays,
    combined,
    is_matrix_type,
    is_type_of_values,
    is_zero,
    kind_of_type,
    tabulated,
    typed_lambda,
)
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

__all__ = ["elaborate_matrices"]

# field notation on a matrix: `A.det` is `Matrix.det A` (the matrix its first argument)
_FIELDS = {
    "det": "Matrix.det",
    "trace": "Matrix.trace",
    "diag": "Matrix.diag",
    "transpose": "Matrix.transpose",
    "conjTranspose": "Matrix.conjTranspose",
    "adjugate": "Matrix.adjugate",
    "mulVec": "Matrix.mulVec",
}
# Mathlib's predicates on a square matrix, as the equations that define them
_PREDICATES = {
    "IsSymm": lambda a: S.BinOp("=", _app("Matrix.transpose", a), a),
    "IsHermitian": lambda a: S.BinOp("=", _app("Matrix.conjTranspose", a), a),
    "IsDiag": lambda a: S.BinOp("=", a, _app("Matrix.diagonal", S.Paren(_app("Matrix.diag", a)))),
}
_INFIX = {
    "⬝ᵥ": "dotProduct",
    "*ᵥ": "Matrix.mulVec",
    "ᵥ*": "Matrix.vecMul",
    "⊙": "Matrix.hadamard",
}
_ARITY = {"Matrix.mul": 2, "Matrix.hadamard": 2, "Matrix.mulVec": 2, "Matrix.vecMul": 2,
          "dotProduct": 2, "Matrix.dotProduct": 2, "Matrix.pow": 2,
          "Matrix.scalarOf": 2}  # fmt: skip


# what each function's arguments must be typed as (`Matrix.diagonal d`: d a vector)
_ARGUMENTS = {
    "Matrix.mul": (MATRIX, MATRIX),
    "Matrix.hadamard": (MATRIX, MATRIX),
    "Matrix.mulVec": (MATRIX, VECTOR),
    "Matrix.vecMul": (VECTOR, MATRIX),
    "dotProduct": (VECTOR, VECTOR),
    "Matrix.dotProduct": (VECTOR, VECTOR),
    "Matrix.trace": (MATRIX,),
    "Matrix.diag": (MATRIX,),
    "Matrix.transpose": (MATRIX,),
    "Matrix.upperSymmetric": (MATRIX,),
    "Matrix.conjTranspose": (MATRIX,),
    "Matrix.diagonal": (VECTOR,),
    "Matrix.of": (MATRIX,),
    "Matrix.det": (MATRIX,),
    "Matrix.adjugate": (MATRIX,),
    "Matrix.inv": (MATRIX,),
    "Matrix.pow": (MATRIX,),
    "Matrix.scalarOf": (MATRIX,),
}


def _c(name: str) -> S.Const:
    return S.Const(name, written=name)


def _app(name: str, *args: S.Term) -> S.App:
    return S.App(_c(name), tuple(args))


def _mentions_matrices(binders: tuple[S.Binder, ...], statement: S.Term) -> bool:
    for u in (statement, *(b.type for b in binders if b.type is not None)):
        for v in S.subterms(u):
            if isinstance(v, S.BinOp) and v.op in _INFIX:
                return True
            if isinstance(v, S.Const) and (v.name == "Matrix" or v.name in MATRIX_FUNCTIONS):
                return True
            if isinstance(v, S.Const) and v.name.startswith("Matrix."):
                return True
    return False


def elaborate_matrices(
    binders: tuple[S.Binder, ...], statement: S.Term
) -> tuple[tuple[S.Binder, ...], S.Term]:
    """The binders and statement with matrix operations named (see the module); unchanged
    where nothing in them is a matrix. Raises NotSupported where an operand is untyped."""
    if not _mentions_matrices(binders, statement):
        return binders, statement
    kinds: dict[str, str] = {}
    out: list[S.Binder] = []
    types = {n: b.type for b in binders if b.type is not None for n in b.names}
    e = _Elaborator(kinds, types)
    for b in binders:
        k = kind_of_type(b.type)
        if k is not None and b.kind != "inst":
            kinds.update(dict.fromkeys(b.names, k))
        if b.type is not None and b.kind != "inst":
            ty = arrays(b.type)
            if not is_type_of_values(b.type):  # a hypothesis: its proposition rewritten
                ty = e.term(b.type)[0]
            b = dataclasses.replace(b, type=ty)
        out.append(b)
    return tuple(out), e.term(statement)[0]


class _Elaborator:
    def __init__(self, kinds: dict[str, str], types: dict[str, S.Term] | None = None) -> None:
        self.kinds = kinds
        self.types = types or {}

    def refuse(self, t: S.Term, why: str) -> NotSupported:
        return NotSupported(f"{why} in `{print_term(t)}`: its matrix reading is not decided")

    def term(self, t: S.Term) -> tuple[S.Term, str | None]:
        if isinstance(t, S.Paren):
            inner, k = self.term(t.term)
            return S.Paren(inner), k
        if isinstance(t, S.Var):
            return t, self.kinds.get(t.name)
        if isinstance(t, S.Num | S.Decimal):
            return t, NUM
        if isinstance(t, S.Typed):
            return self.typed(t)
        if isinstance(t, S.App):
            return self.app(t)
        if isinstance(t, S.Proj):
            return self.proj(t, ())
        if isinstance(t, S.BinOp):
            return self.binop(t)
        if isinstance(t, S.Prefix):
            arg, k = self.term(t.arg)
            return S.Prefix(t.op, arg), (k if t.op == "-" else None)
        if isinstance(t, S.Postfix):
            return self.postfix(t)
        if isinstance(t, S.BigOp | S.Lam | S.Quant):  # a sum is of its body's kind
            body, k = self.term(t.body)
            return dataclasses.replace(t, body=body), k if isinstance(t, S.BigOp) else None
        if isinstance(t, S.Abs):
            inner, _ = self.term(t.term)
            return dataclasses.replace(t, term=inner), SCALAR
        if any(isinstance(u, S.Var) and self.kinds.get(u.name) == MATRIX for u in S.subterms(t)):
            raise self.refuse(t, f"a matrix inside a {type(t).__name__}")
        return t, None

    def typed(self, t: S.Typed) -> tuple[S.Term, str | None]:
        inner, k = self.term(t.term)
        if is_matrix_type(t.type):
            _, (a, b, alpha) = head_and_args(t.type)
            if k == NUM and is_zero(inner):  # `(0 : Matrix m n α)`: every entry 0
                rows = S.Binder("plain", ("_",), a)
                cols = S.Binder("plain", ("_",), b)
                return S.Paren(S.Lam((rows, cols), S.Typed(inner, alpha))), MATRIX
            if k == NUM and a == b:  # `(c : Matrix n n α)`: c on the diagonal
                lam = S.Lam((S.Binder("plain", ("_",), a),), S.Typed(inner, alpha))
                return _app("Matrix.diagonal", S.Paren(lam)), MATRIX
            if k != MATRIX:
                raise self.refuse(t, "a value ascribed a matrix type")
            return inner, MATRIX
        return S.Typed(inner, t.type), kind_of_type(t.type) or k

    def app(self, t: S.App) -> tuple[S.Term, str | None]:
        args = [self.term(typed_lambda(a, self.types)) for a in t.args]
        terms = tuple(a for a, _ in args)
        fn = t.fn
        while isinstance(fn, S.Paren):
            fn = fn.term
        if isinstance(fn, S.Proj):
            return self.proj(fn, terms)
        head, k = self.term(t.fn)
        if isinstance(fn, S.Const) and fn.name == "star" and args and args[0][1] == MATRIX:
            # a matrix's star is its conjugate transpose (Mathlib's `Matrix.instStar`)
            return _app("Matrix.conjTranspose", *terms), applied(MATRIX, len(terms) - 1)
        if isinstance(fn, S.Const) and fn.name in MATRIX_FUNCTIONS:
            for (arg, kind), want in zip(args, _ARGUMENTS.get(fn.name, ()), strict=False):
                if kind != want and not (want in (MATRIX, VECTOR) and tabulated(arg, want)):
                    raise self.refuse(t, f"an argument of {fn.name} not typed as a {want}")
            arity = _ARITY.get(fn.name, 1)
            k = MATRIX_FUNCTIONS[fn.name] if len(terms) >= arity else None
            return S.App(head, terms), applied(k, len(terms) - arity)
        return S.App(head, terms), applied(k, len(terms)) if k in (MATRIX, VECTOR) else None

    def proj(self, t: S.Proj, args: tuple[S.Term, ...]) -> tuple[S.Term, str | None]:
        inner, k = self.term(t.term)
        if k == MATRIX and t.field in _FIELDS:
            name = _FIELDS[t.field]
            arity = _ARITY.get(name, 1)
            return S.App(_c(name), (inner, *args)), applied(
                MATRIX_FUNCTIONS[name], len(args) + 1 - arity
            )
        if k == MATRIX and t.field in _PREDICATES and not args:
            # `A.IsSymm` is `Aᵀ = A`, `A.IsHermitian` `Aᴴ = A`, `A.IsDiag` `A = diagonal (diag A)`
            return _PREDICATES[t.field](inner), None
        if k == VECTOR and t.field == "vecMul" and args:
            return S.App(_c("Matrix.vecMul"), (inner, *args)), VECTOR
        if k == MATRIX:
            raise self.refuse(t, f"the field {t.field} of a matrix")
        proj = dataclasses.replace(t, term=inner)
        return (S.App(proj, args) if args else proj), None

    def binop(self, t: S.BinOp) -> tuple[S.Term, str | None]:
        lhs, a = self.term(t.lhs)
        rhs, b = self.term(t.rhs)
        op = t.op
        if op in _INFIX:
            name = _INFIX[op]
            if name == "Matrix.hadamard":  # a numeral beside a matrix is c on the diagonal
                if a == NUM and b == MATRIX:
                    lhs = _app("Matrix.scalarOf", rhs, lhs)
                elif b == NUM and a == MATRIX:
                    rhs = _app("Matrix.scalarOf", lhs, rhs)
            return _app(name, lhs, rhs), MATRIX_FUNCTIONS[name]
        if MATRIX not in (a, b):
            untyped = [u for u, k in ((t.lhs, a), (t.rhs, b)) if k is None]
            if op in ("*", "^", "/") and any(self._near_matrices(u) for u in untyped):
                # `vecMulVec w v * A`: a value computed from matrices whose type the rewrite
                # does not know might be a matrix, whose product is not entrywise
                raise self.refuse(t, f"an operand of {op} computed from matrices")
            return S.BinOp(op, lhs, rhs), combined(a, b, op)
        if op == "*":
            if a == MATRIX and b == MATRIX:
                return _app("Matrix.mul", lhs, rhs), MATRIX
            if a == NUM:
                return S.BinOp("•", lhs, rhs), MATRIX
            if b == NUM:
                return S.BinOp("•", rhs, lhs), MATRIX
            raise self.refuse(t, "a product of a matrix and a value of another type")
        if op == "^":
            if a == MATRIX and b in (NUM, SCALAR, None):
                return _app("Matrix.pow", lhs, rhs), MATRIX
            raise self.refuse(t, "a power of a matrix")
        if op in ("+", "-", "=", "≠"):  # 0 is the zero matrix, entrywise, of any shape
            if a == NUM and not is_zero(lhs):
                lhs = _app("Matrix.scalarOf", rhs, lhs)
            elif b == NUM and not is_zero(rhs):
                rhs = _app("Matrix.scalarOf", lhs, rhs)
            return S.BinOp(op, lhs, rhs), (MATRIX if op in ("+", "-") else None)
        if op == "•":
            return S.BinOp(op, lhs, rhs), MATRIX
        raise self.refuse(t, f"the operator {op} on a matrix")

    def _near_matrices(self, t: S.Term) -> bool:
        """Whether `t` reads a matrix binder or a function of Mathlib's `Matrix` namespace."""
        return any(
            isinstance(u, S.Var)
            and self.kinds.get(u.name) == MATRIX
            or isinstance(u, S.Const)
            and (u.name == "Matrix" or u.name.startswith("Matrix."))
            for u in S.subterms(t)
        )

    def postfix(self, t: S.Postfix) -> tuple[S.Term, str | None]:
        arg, k = self.term(t.arg)
        if t.op in ("ᵀ", "ᴴ"):
            if k != MATRIX:
                raise self.refuse(t, "a transpose of a value not typed as a matrix")
            return _app("Matrix.transpose" if t.op == "ᵀ" else "Matrix.conjTranspose", arg), MATRIX
        if t.op == "⁻¹" and k == MATRIX:
            return _app("Matrix.inv", arg), MATRIX
        if t.op == "⁻¹" and k is None and self._near_matrices(t):
            raise self.refuse(t, "an inverse of a value not typed")
        return S.Postfix(t.op, arg), k
