"""Lean types as the evaluator needs them, and dimension expressions.

`eval_type` turns a type term (`Vec (N * c)`, `Mat m n`, `Fin m → Fin D`,
`Kernel4 oc ic kh kw`, `ℝ`, `List ℤ`, a generic `M` bound to ℝ) into a `Ty` whose
sizes are concrete `Sz` values computed with ℕ semantics from the
dimensions in scope.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from checkers.language.coercion import settle
from checkers.language.errors import EvalError, NotSupported
from checkers.language.values import Arr, Sz, TypeValue, Unsolved
from theorem_index.lean import syntax as S


class Ty:
    """Base of the evaluator's types."""


@dataclass(frozen=True)
class TReal(Ty):
    pass


@dataclass(frozen=True)
class TComplex(Ty):
    """ℂ (Mathlib's `Complex`): values of kind 'complex' (complex.py)."""


@dataclass(frozen=True)
class TNNReal(Ty):
    """ℝ≥0 (Mathlib's `NNReal`): values of kind 'nnreal', whose subtraction truncates at 0."""


@dataclass(frozen=True)
class TAngle(Ty):
    """`Real.Angle` (ℝ modulo 2π): values of kind 'angle', a real representative each."""


@dataclass(frozen=True)
class TNat(Ty):
    pass


@dataclass(frozen=True)
class TInt(Ty):
    pass


@dataclass(frozen=True)
class TProp(Ty):
    pass


@dataclass(frozen=True)
class TSort(Ty):
    """`Type u`: the binder is a type variable."""


@dataclass(frozen=True)
class TFin(Ty):
    sz: Sz | None


@dataclass(frozen=True)
class TFun(Ty):
    dom: Ty
    cod: Ty


def entry_type(expected: Ty | None) -> Ty | None:
    """The type expected of a function value's entries: a function type's codomain, or
    the scalar type itself where a function is passed as a real (ℕ, ℤ) argument, as a
    vocabulary function's array arguments are (`dense`'s weight)."""
    if isinstance(expected, TFun):
        return expected.cod
    if isinstance(expected, TReal | TComplex | TNNReal | TNat | TInt):
        return expected
    return None


@dataclass(frozen=True)
class TList(Ty):
    """`List α`."""

    elem: Ty


@dataclass(frozen=True)
class TProd(Ty):
    fst: Ty
    snd: Ty


@dataclass(frozen=True)
class TOther(Ty):
    """A type the evaluator does not model (a structure, a class, an inductive type...);
    `head` is its constant's full name where it has one (what `.ctor` resolves against)."""

    text: str
    head: str | None = None


# ℚ is checked as the subfield of ℝ it is: its operations are ℝ's (`x / 0 = 0`
# included), its casts to ℝ the identity, and every float64 is a rational
RAT_NAMES = frozenset({"ℚ", "Rat"})
REAL_NAMES = frozenset({"ℝ", "Real"}) | RAT_NAMES
COMPLEX_NAMES = frozenset({"ℂ", "Complex"})
NNREAL_NAMES = frozenset({"ℝ≥0", "NNReal"})
ANGLE_NAMES = frozenset({"Real.Angle", "Angle"})
NAT_NAMES = frozenset({"ℕ", "Nat"})
INT_NAMES = frozenset({"ℤ", "Int"})
PROP_NAMES = frozenset({"Prop"})
LIST_NAMES = frozenset({"List"})
# every number type the evaluator models, by its names
NUMBER_NAMES = REAL_NAMES | COMPLEX_NAMES | NNREAL_NAMES | ANGLE_NAMES | NAT_NAMES | INT_NAMES
# each number type: its names, its kind of values, its type
_NUMBERS: tuple[tuple[frozenset[str], str, Ty], ...] = (
    (REAL_NAMES, "real", TReal()),
    (COMPLEX_NAMES, "complex", TComplex()),
    (NNREAL_NAMES, "nnreal", TNNReal()),
    (ANGLE_NAMES, "angle", TAngle()),
    (NAT_NAMES, "nat", TNat()),
    (INT_NAMES, "int", TInt()),
)
# the type of each kind of number
KIND_TYPES: dict[str, Ty] = {kind: ty for _, kind, ty in _NUMBERS}


def number_type(name: str) -> Ty | None:
    """The number type a name denotes (`ℝ`, `Real`, `ℂ`, `ℕ`, ...), or None."""
    return next((ty for names, _, ty in _NUMBERS if name in names), None)


# name -> number of Fin arguments; the element type is ℝ.
ARRAY_TYPES: dict[str, int] = {
    "Proofs.Vec": 1,
    "Proofs.Mat": 2,
    "Proofs.Tensor3": 3,
    "Proofs.Kernel4": 4,
    "Proofs.DepthwiseKernel": 3,
}
_SHORT_ARRAY = {k.rsplit(".", 1)[-1]: v for k, v in ARRAY_TYPES.items()}


def const_name(t: S.Term) -> str | None:
    """The constant a head term names (resolved `Const` or unresolved `Ident`)."""
    if isinstance(t, S.Const):
        return t.name
    if isinstance(t, S.Ident):
        return t.name
    return None


def head_and_args(t: S.Term) -> tuple[S.Term, tuple[S.Term, ...]]:
    args: tuple[S.Term, ...] = ()
    while isinstance(t, S.App):
        args = t.args + args
        t = t.fn
    return t, args


def array_rank(name: str) -> int | None:
    if name in ARRAY_TYPES:
        return ARRAY_TYPES[name]
    return _SHORT_ARRAY.get(name)


def vec_type(dims: tuple[Sz, ...], elem: Ty | None = None) -> Ty:
    out: Ty = elem if elem is not None else TReal()
    for d in reversed(dims):
        out = TFun(TFin(d), out)
    return out


def _fin_leaves(ty: Ty) -> list[Sz] | None:
    """The sizes of `Fin m` or of the components of `Fin m × Fin n` (flattened)."""
    if isinstance(ty, TFin):
        return [ty.sz] if ty.sz is not None else None
    if isinstance(ty, TProd):
        a, b = _fin_leaves(ty.fst), _fin_leaves(ty.snd)
        return a + b if a is not None and b is not None else None
    return None


def fin_domains(ty: Ty) -> tuple[tuple[Sz, ...], Ty]:
    """The leading `Fin` domains of a function type and what remains. A function
    on `Fin m × Fin n` has one domain per component, like a `Mat m n`."""
    dims: list[Sz] = []
    while isinstance(ty, TFun):
        leaves = _fin_leaves(ty.dom)
        if leaves is None:
            break
        dims.extend(leaves)
        ty = ty.cod
    return tuple(dims), ty


DimEval = Callable[[S.Term, Mapping[str, Any]], Any]


def eval_dim(t: S.Term, env: Mapping[str, Any], fallback: DimEval | None = None) -> Sz:
    """A ℕ dimension expression with its product structure kept."""
    if isinstance(t, S.Num):
        return Sz(int(t.text, 0))
    if isinstance(t, S.Paren):
        return eval_dim(t.term, env, fallback)
    if isinstance(t, S.Typed):
        return eval_dim(t.term, env, fallback)
    if isinstance(t, S.Var | S.Ident | S.Const):
        name = t.name
        v = env.get(name)
        if v is None and isinstance(t, S.Const):
            v = env.get(name.rsplit(".", 1)[-1])
        if isinstance(v, Arr) and v.kind == "nat" and v.is_static:
            n = int(v.data)
            return v.size if v.size is not None and v.size.n == n else Sz(n)
        if isinstance(v, Sz):
            return v
        if isinstance(v, Unsolved):
            raise EvalError(v.reason)
        raise EvalError(f"dimension {name} has no value")
    if isinstance(t, S.BinOp) and t.op in ("+", "-", "*", "/", "%", "^"):
        a = eval_dim(t.lhs, env, fallback)
        b = eval_dim(t.rhs, env, fallback)
        if t.op == "*":
            return Sz.prod(a, b)
        if t.op == "+":
            return Sz(a.n + b.n)
        if t.op == "-":
            return Sz(max(a.n - b.n, 0))
        if t.op == "/":
            return Sz(0 if b.n == 0 else a.n // b.n)
        if t.op == "%":
            return Sz(a.n if b.n == 0 else a.n % b.n)
        return Sz(a.n**b.n)
    if fallback is not None:
        v = fallback(t, env)
        if isinstance(v, Arr) and v.kind in ("nat", "num") and v.is_static:
            return Sz(int(settle(v).data))
    raise EvalError("a dimension must be a ℕ expression of the dimension binders")


def eval_type(t: S.Term, env: Mapping[str, Any], fallback: DimEval | None = None) -> Ty:
    if isinstance(t, S.Paren):
        return eval_type(t.term, env, fallback)
    if isinstance(t, S.Sort):
        return TProp() if t.kind == "Prop" else TSort()
    if isinstance(t, S.BinOp) and t.op == "→":
        return TFun(eval_type(t.lhs, env, fallback), eval_type(t.rhs, env, fallback))
    if isinstance(t, S.BinOp) and t.op == "×":
        return TProd(eval_type(t.lhs, env, fallback), eval_type(t.rhs, env, fallback))
    if isinstance(t, S.Pi):
        out = eval_type(t.body, env, fallback)
        for b in reversed(t.binders):
            if b.type is None:
                raise NotSupported("a dependent arrow without binder types")
            dom = eval_type(b.type, env, fallback)
            for _ in b.names or ("_",):
                out = TFun(dom, out)
        return out
    head, args = head_and_args(t)
    if isinstance(head, S.Var | S.Ident) and not args:
        v = env.get(head.name)
        if isinstance(v, TypeValue):
            return type_from_text(v.text)
    name = const_name(head)
    if name is not None:
        number = number_type(name)
        if number is not None and not args:
            return number
        if name in PROP_NAMES and not args:
            return TProp()
        if name == "Fin" and len(args) == 1:
            return TFin(eval_dim(args[0], env, fallback))
        if name in LIST_NAMES and len(args) == 1:
            return TList(eval_type(args[0], env, fallback))
        if name == "EuclideanSpace" and len(args) == 2:  # `PiLp 2 (fun _ => 𝕜)`: a vector
            dom, elem = eval_type(args[1], env, fallback), eval_type(args[0], env, fallback)
            if isinstance(dom, TFin) and isinstance(elem, TReal):
                return TFun(dom, elem)
        rank = array_rank(name)
        if rank is not None:
            if len(args) != rank:
                raise EvalError(f"{name} takes {rank} dimensions, got {len(args)}")
            return vec_type(tuple(eval_dim(a, env, fallback) for a in args))
    return TOther(_short_text(t), name)


def type_from_text(text: str) -> Ty:
    number = number_type(text)
    return number if number is not None else TOther(text)


def _short_text(t: S.Term) -> str:
    try:
        from theorem_index.lean import print_term

        return str(print_term(t))
    except Exception:  # noqa: BLE001 - printing is best effort for messages
        return type(t).__name__


def kind_of(ty: Ty) -> str | None:
    """The element kind of values of this type ('real', 'nat', 'fin', ...)."""
    _, elem = fin_domains(ty)
    if isinstance(elem, TFin):
        return "fin"
    if isinstance(elem, TProp):
        return "bool"
    return next((k for k, t in KIND_TYPES.items() if t == elem), None)


def value_type(v: Arr) -> Ty:
    """The type of an array value (its domains and element kind)."""
    elem: Ty = {**KIND_TYPES, "bool": TProp()}.get(v.kind, TReal())
    if v.kind == "fin":
        elem = TFin(v.bound)
    return vec_type(v.dom, elem)
