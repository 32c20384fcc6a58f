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

from checkers.derived.types import (
    INT_NAMES,
    NAT_NAMES,
    PROP_NAMES,
    REAL_NAMES,
    array_rank,
    const_name,
    head_and_args,
)
from theorem_index.lean import analyse_declaration, print_term
from theorem_index.lean import syntax as S

_RANK = {"fin": 0, "nat": 1, "int": 2, "real": 3}
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
    while isinstance(t, Meta) and t.value is not None:
        t = t.value
    return t


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
        size = resolve(t.size)
        if isinstance(size, S.Term):
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
    rank = array_rank(name)
    if rank is not None and len(args) == rank:
        out: Any = Base("real")
        for a in reversed(args):
            out = Fun(Fin(_size(a, subst)), out)
        return out
    return None


def _size(t: S.Term, subst: Mapping[str, Any]) -> Any:
    t = strip(t)
    if isinstance(t, S.Var | S.Ident) and t.name in subst:
        v = subst[t.name]
        return v if isinstance(v, Meta | S.Term) else Meta()
    names = {u.name for u in S.subterms(t) if isinstance(u, S.Var | S.Ident)}
    if not names & set(subst):
        return t
    if any(not isinstance(subst[n], S.Term) for n in names & set(subst)):
        return Meta()  # a product of unknown dimensions: nothing to learn from it

    def sub(u: Any) -> Any:
        if isinstance(u, S.Var | S.Ident) and u.name in subst:
            return S.Paren(subst[u.name])
        if isinstance(u, S.Term):
            return dataclasses.replace(u, **{f: sub(getattr(u, f)) for f in S.node_fields(type(u))})
        if isinstance(u, tuple):
            return tuple(sub(x) for x in u)
        return u

    return sub(t)


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


def _signature(sem: Any, name: str) -> Signature | None:
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
        return Signature(params, a.statement)
    for cand in sem.candidates(name):
        b = sem.library.get(cand)
        if b is not None and cand.startswith(_NUMBER_FUNCTIONS):
            return Signature((), None, tuple(b.param_types))
    return None


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
