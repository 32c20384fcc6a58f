"""The types of `inference.py`'s unification: metavariables, base types, `Fin`
sizes, functions and pairs, read from Lean type terms and written back; and the
declared types (signatures) of constants, from their ingested declarations.

A `Fin` size is a ground dimension term of the statement's scope (`n`, `16`,
`N * c`) or a metavariable (a definition's implicit dimension not yet solved);
two ground sizes are the same when they print the same.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from checkers.language.types import (
    INT_NAMES,
    NAT_NAMES,
    PROP_NAMES,
    REAL_NAMES,
    array_rank,
    const_name,
    head_and_args,
)
from theorem_index.lean import analyse_declaration, parse_binders, parse_term, print_term
from theorem_index.lean import syntax as S

_RANK = {"fin": 0, "nat": 1, "int": 2, "real": 3, "complex": 4}
_WRITTEN = {"real": ("Real", "ℝ"), "nat": ("Nat", "ℕ"), "int": ("Int", "ℤ")}
# library functions of numbers whose coarse parameter types are exact (`Real.exp`);
# elsewhere a 'real' parameter may take an array
_NUMBER_FUNCTIONS = ("Real.", "Nat.", "Int.")


@dataclass(eq=False)
class Meta:
    """An unknown type (or dimension), solved by unification."""

    owner: str = ""  # the binder it stands for; "" for a definition's implicit
    value: Any = None
    conflict: str = ""


@dataclass(frozen=True)
class Base:
    name: str  # 'real' | 'nat' | 'int' | 'prop'


@dataclass(frozen=True)
class Fin:
    size: Any  # a ground dimension term (S.Term) or a Meta


@dataclass(frozen=True)
class Fun:
    dom: Any
    cod: Any


@dataclass(frozen=True)
class Prod:
    fst: Any
    snd: Any


def resolve(t: Any) -> Any:
    """What a metavariable stands for so far (itself when unsolved); the chain of
    metavariables solved by one another is shortened on the way."""
    end = t
    while isinstance(end, Meta) and end.value is not None:
        end = end.value
    while isinstance(t, Meta) and t.value is not None and t.value is not end:
        t.value, t = end, t.value
    return end


def occurs(m: Meta, t: Any) -> bool:
    """Whether `t` mentions `m` (binding m to it would make an infinite type)."""
    t = resolve(t)
    if t is m:
        return True
    if isinstance(t, Fin):
        return occurs(m, t.size)
    if isinstance(t, Fun):
        return occurs(m, t.dom) or occurs(m, t.cod)
    if isinstance(t, Prod):
        return occurs(m, t.fst) or occurs(m, t.snd)
    if isinstance(t, S.Term):
        return any(isinstance(u, SizeHole) and occurs(m, u.meta) for u in S.subterms(t))
    return False


def strip(t: S.Term) -> S.Term:
    while isinstance(t, S.Paren):
        t = t.term
    return t


def size_key(t: S.Term) -> str:
    return str(print_term(strip(t)))


def ground(t: Any) -> S.Term | None:
    """The type as a Lean type term, once nothing in it is unknown."""
    t = resolve(t)
    if isinstance(t, Base) and t.name in _WRITTEN:
        name, written = _WRITTEN[t.name]
        return S.Const(name, written=written)
    if isinstance(t, Fin):
        size = zonk(t.size)
        if isinstance(size, S.Term) and not _holes(size):
            atom = isinstance(size, S.Num | S.Var | S.Ident | S.Const)
            return S.App(S.Const("Fin", written="Fin"), (size if atom else S.Paren(size),))
        return None
    if isinstance(t, Fun | Prod):
        a = ground(t.dom if isinstance(t, Fun) else t.fst)
        b = ground(t.cod if isinstance(t, Fun) else t.snd)
        if a is None or b is None:
            return None
        return S.BinOp("→" if isinstance(t, Fun) else "×", a, b)
    return None


def to_type(t: S.Term | None, subst: Mapping[str, Any]) -> Any:
    """A type term as a unification type; names in `subst` are replaced (a definition's
    parameters by metavariables or by the arguments given)."""
    if t is None:
        return None
    t = strip(t)
    if isinstance(t, S.BinOp) and t.op in ("→", "×"):
        a, b = to_type(t.lhs, subst), to_type(t.rhs, subst)
        return Fun(a, b) if t.op == "→" else Prod(a, b)
    head, args = head_and_args(t)
    if isinstance(head, S.Var | S.Ident) and not args and head.name in subst:
        v = subst[head.name]
        return v if isinstance(v, Meta | Base | Fin | Fun | Prod) else None
    name = const_name(head)
    if name is None or isinstance(head, S.Var):
        return None
    for kind, names in (
        ("real", REAL_NAMES),
        ("nat", NAT_NAMES),
        ("int", INT_NAMES),
        ("prop", PROP_NAMES),
    ):
        if name in names and not args:
            return Base(kind)
    if name == "Fin" and len(args) == 1:
        return Fin(_size(args[0], subst))
    if name == "EuclideanSpace" and len(args) == 2:
        # `PiLp 2 (fun _ => ℝ)`: applied to an index like the function it wraps
        dom = to_type(args[1], subst)
        return Fun(dom, Base("real")) if isinstance(dom, Fin) else None
    rank = array_rank(name)
    if rank is not None and len(args) == rank:
        out: Any = Base("real")
        for a in reversed(args):
            out = Fun(Fin(_size(a, subst)), out)
        return out
    return None


def _size(t: S.Term, subst: Mapping[str, Any]) -> Any:
    """A dimension term with the names in `subst` replaced: by the argument given, or by
    a hole standing for the metavariable (`Vec (c * h * w)` of `Tensor3.unflatten`)."""
    t = strip(t)
    if isinstance(t, S.Var | S.Ident) and t.name in subst:
        v = subst[t.name]
        return v if isinstance(v, Meta | S.Term) else Meta()

    def sub(u: Any) -> Any:
        if isinstance(u, S.Var | S.Ident) and u.name in subst:
            v = subst[u.name]
            return SizeHole(meta=v) if isinstance(v, Meta) else S.Paren(v)
        if isinstance(u, S.Term):
            return dataclasses.replace(u, **{f: sub(getattr(u, f)) for f in S.node_fields(type(u))})
        if isinstance(u, tuple):
            return tuple(sub(x) for x in u)
        return u

    return sub(t)


@dataclass(frozen=True, eq=False)
class SizeHole(S.Hole):
    """An unknown dimension inside a dimension term."""

    meta: Meta = dataclasses.field(default_factory=Meta)


def zonk(t: Any) -> Any:
    """A dimension with every solved hole replaced by its solution."""
    t = resolve(t)
    if isinstance(t, SizeHole):
        v = resolve(t.meta)
        return t if isinstance(v, Meta) else zonk(v)
    if isinstance(t, S.Term):
        changes: dict[str, Any] = {}
        for f in S.node_fields(type(t)):
            old = getattr(t, f)
            new = tuple(zonk(x) for x in old) if isinstance(old, tuple) else zonk(old)
            if new is not old and new != old:
                changes[f] = new
        return dataclasses.replace(t, **changes) if changes else t
    return t


def _holes(t: Any) -> bool:
    return any(isinstance(u, SizeHole) for u in S.subterms(t))


def unify(a: Any, b: Any) -> bool:
    """Make two types (or dimensions) equal by solving metavariables; False when they
    cannot be (first-order, as Lean's unifier is before unfolding anything)."""
    a, b = resolve(a), resolve(b)
    if a is None or b is None or a is b:
        return True
    if isinstance(a, S.Term) or isinstance(b, S.Term):
        if isinstance(a, S.Term | Meta) and isinstance(b, S.Term | Meta):
            return _unify_size(zonk(a), zonk(b))
        return False
    if isinstance(a, Meta) or isinstance(b, Meta):
        m, other = (a, b) if isinstance(a, Meta) else (b, a)
        if occurs(m, other):
            return False
        m.value = other
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, Base):
        return bool(a == b)
    if isinstance(a, Fin):
        return unify(a.size, b.size)
    if isinstance(a, Fun):
        return unify(a.dom, b.dom) and unify(a.cod, b.cod)
    if isinstance(a, Prod):
        return unify(a.fst, b.fst) and unify(a.snd, b.snd)
    return False


def _unify_size(a: Any, b: Any) -> bool:
    if isinstance(a, Meta | SizeHole) or isinstance(b, Meta | SizeHole):
        x, other = (a, b) if isinstance(a, Meta | SizeHole) else (b, a)
        m = resolve(x.meta) if isinstance(x, SizeHole) else x
        if not isinstance(m, Meta) or other is x or occurs(m, other):
            return other is x or (isinstance(other, SizeHole) and resolve(other.meta) is m)
        m.value = other
        return True
    a, b = strip(a), strip(b)
    if not (_holes(a) or _holes(b)):
        return size_key(a) == size_key(b)
    if isinstance(a, S.BinOp) and isinstance(b, S.BinOp) and a.op == b.op:
        return _unify_size(zonk(a.lhs), zonk(b.lhs)) and _unify_size(zonk(a.rhs), zonk(b.rhs))
    return False


@dataclass(frozen=True)
class Param:
    name: str
    type: S.Term | None
    explicit: bool


@dataclass(frozen=True)
class Signature:
    params: tuple[Param, ...]
    result: S.Term | None
    kinds: tuple[str | None, ...] = ()  # a library function's coarse parameter types


_SIGNATURES: weakref.WeakKeyDictionary[Any, dict[str, Signature | None]] = (
    weakref.WeakKeyDictionary()
)


def signature(sem: Any, name: str) -> Signature | None:
    """A constant's declared type: its ingested declaration's, else what the library
    entry says of its explicit parameters."""
    try:
        cache = _SIGNATURES.setdefault(sem, {})
    except TypeError:
        cache = {}
    if name not in cache:
        cache[name] = _signature(sem, name)
    return cache[name]


# Mathlib constants used as functions whose types the library entries do not record.
_MATHLIB = {
    "finProdFinEquiv": ("{m n : ℕ}", "Fin m × Fin n → Fin (m * n)"),
    "finProdFinEquiv.symm": ("{m n : ℕ}", "Fin (m * n) → Fin m × Fin n"),
}


def _mathlib(name: str) -> Signature | None:
    if name not in _MATHLIB:
        return None
    binders, result = _MATHLIB[name]
    params = tuple(
        Param(n, b.type, b.kind == "explicit") for b in parse_binders(binders) for n in b.names
    )
    return Signature(params, parse_term(result))


def _signature(sem: Any, name: str) -> Signature | None:
    if name in _MATHLIB:
        return _mathlib(name)
    for cand in sem.candidates(name):
        decl = sem.declaration(cand)
        if decl is None:
            continue
        # the type alone: a weight table's equation need not be parsed again here
        a = analyse_declaration(dataclasses.replace(decl, equations=()), sem.known)
        if a.binders is None or a.errors:
            return None
        params = tuple(
            Param(n, b.type, b.kind == "explicit")
            for b in a.binders
            if b.kind != "inst"
            for n in (b.names or ("_",))
        )
        auto = _auto_bound(a.unknown_constants, params, a.statement)
        if auto:
            # `def mul (A : Mat m n) (B : Mat n p) : Mat m p` under autoImplicit: m, n, p are
            # implicit parameters the elaborator added, not constants
            params = tuple(Param(n, S.Const("Nat", written="ℕ"), False) for n in auto) + tuple(
                dataclasses.replace(p, type=_as_variables(p.type, auto)) for p in params
            )
            return Signature(params, _as_variables(a.statement, auto))
        return Signature(params, a.statement)
    for cand in sem.candidates(name):
        b = sem.library.get(cand)
        if b is not None and cand.startswith(_NUMBER_FUNCTIONS):
            return Signature((), None, tuple(b.param_types))
    return None


def _auto_bound(
    unknown: tuple[str, ...], params: tuple[Param, ...], result: S.Term | None
) -> tuple[str, ...]:
    """The unknown names of a declaration's types that Lean's autoImplicit binds: plain
    (undotted) names that are not parameters, in the order they occur."""
    names = {u for u in unknown if "." not in u} - {p.name for p in params}
    if not names:
        return ()
    seen: list[str] = []
    for t in (*(p.type for p in params), result):
        for u in S.subterms(t):
            if isinstance(u, S.Const | S.Ident) and u.name in names and u.name not in seen:
                seen.append(u.name)
    return tuple(seen)


def _as_variables(t: Any, names: tuple[str, ...]) -> Any:
    """`t` with the constants named in `names` read as the variables they are."""
    if isinstance(t, S.Const | S.Ident) and t.name in names:
        return S.Var(t.name)
    if isinstance(t, S.Term):
        changes = {}
        for f in S.node_fields(type(t)):
            old = getattr(t, f)
            new = _as_variables(old, names)
            if new is not old:
                changes[f] = new
        return dataclasses.replace(t, **changes) if changes else t
    if isinstance(t, tuple):
        items = tuple(_as_variables(x, names) for x in t)
        return items if any(a is not b for a, b in zip(items, t, strict=True)) else t
    return t


def join(types: list[Any]) -> Any:
    """The largest of the leaves' types: `Fin n` < ℕ < ℤ < ℝ (the coercions Lean
    inserts); functions only with themselves. None when they do not compare."""
    types = [t for t in types if ground(t) is not None]
    if not types:
        return None
    if all(isinstance(t, Base | Fin) for t in types):
        ranks = [(_RANK.get(t.name, -1) if isinstance(t, Base) else 0, t) for t in types]
        if any(r < 0 for r, _ in ranks):
            return None
        top = max(r for r, _ in ranks)
        tops = {size_key(g) for r, t in ranks if r == top and (g := ground(t)) is not None}
        return next(t for r, t in ranks if r == top) if len(tops) == 1 else None
    keys = {str(print_term(g)) for t in types if (g := ground(t)) is not None}
    return types[0] if len(keys) == 1 else None
