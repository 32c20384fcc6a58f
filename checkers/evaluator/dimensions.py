"""The implicit dimensions of a definition, inferred from the types of its arguments.

A binder's type names sizes (`Mat N a`, `Vec (c * h * w)`, `Fin n`); an argument's
value has sizes, each with the factors it was written with (`Sz`, values.py).
Unifying the two settles each unknown dimension as Lean's elaborator does: a name
takes the size, a product `m * n` takes the size's factors where it has them, and any
other expression (`n + 1`, `2 * k`) waits until all but one of its names are known,
then is solved for that one. Type expressions that must be equal (`Back i i`) are
settled together. A dimension given two sizes, or a size the type contradicts, is an
error.
"""

from __future__ import annotations

from typing import Any

from checkers.language.errors import EvalError
from checkers.language.types import (
    Ty,
    array_rank,
    const_name,
    eval_dim,
    fin_domains,
    head_and_args,
)
from checkers.language.values import Arr, Ctor, Sz
from theorem_index.lean import syntax as S


def type_dim_exprs(t: S.Term | None) -> tuple[list[S.Term], S.Term | None]:
    """The `Fin` domain size expressions of a type term, and its element type."""
    dims: list[S.Term] = []
    while t is not None:
        if isinstance(t, S.Paren):
            t = t.term
            continue
        if isinstance(t, S.BinOp) and t.op == "→":
            h, args = head_and_args(t.lhs)
            if const_name(h) == "Fin" and len(args) == 1:
                dims.append(args[0])
                t = t.rhs
                continue
            return dims, t
        h, args = head_and_args(t)
        name = const_name(h)
        rank = array_rank(name) if name else None
        if rank is not None and len(args) == rank:
            return dims + list(args), S.Const("Real")
        if name == "Matrix" and len(args) == 3:  # `Matrix m n α` is `m → n → α` (Mathlib)
            sizes = [_fin_size(a) for a in args[:2]]
            if None not in sizes:
                return dims + [sz for sz in sizes if sz is not None], args[2]
        return dims, t
    return dims, None


def _fin_size(t: S.Term) -> S.Term | None:
    """n, where `t` is `Fin n`."""
    while isinstance(t, S.Paren):
        t = t.term
    h, args = head_and_args(t)
    return args[0] if const_name(h) == "Fin" and len(args) == 1 else None


def unify_expected(
    exprs: list[S.Term],
    expected: Ty,
    dims: dict[str, Sz],
    unknown: set[str],
    pending: list[tuple[S.Term, int]],
) -> None:
    doms, _ = fin_domains(expected)
    if len(doms) == len(exprs) and all(d is not None for d in doms):
        for e, sz in zip(exprs, doms, strict=True):
            unify_dim(e, sz, dims, unknown, pending)


def arrow_domains(t: S.Term | None) -> tuple[S.Term, ...]:
    """The domains of a function type `A → B → C`: (A, B)."""
    out: list[S.Term] = []
    while t is not None:
        while isinstance(t, S.Paren):
            t = t.term
        if not (isinstance(t, S.BinOp) and t.op == "→"):
            break
        out.append(t.lhs)
        t = t.rhs
    return tuple(out)


def unify_value(
    ty: S.Term | None,
    v: Any,
    dims: dict[str, Sz],
    unknown: set[str],
    pending: list[tuple[S.Term, int]],
    links: list[list[S.Term]] | None = None,
) -> None:
    if isinstance(v, Ctor) and ty is not None:
        # `SHlo n` against a value built as an `SHlo 12`: its indices settle n; indices it
        # does not know but knows to be equal (`.cotangent : Back i i`) make theirs equal
        _, targs = head_and_args(ty)
        if len(targs) == len(v.indices):
            same: dict[str, list[S.Term]] = {}
            for k, (e, sz) in enumerate(zip(targs, v.indices, strict=True)):
                if sz is not None:
                    unify_dim(e, sz, dims, unknown, pending)
                elif k < len(v.links) and v.links[k] is not None:
                    same.setdefault(str(v.links[k]), []).append(e)
            if links is not None:
                links.extend(group for group in same.values() if len(group) > 1)
        return
    if ty is None or not isinstance(v, Arr):
        return
    exprs, elem = type_dim_exprs(ty)
    if len(exprs) == len(v.dom):
        for e, sz in zip(exprs, v.dom, strict=True):
            unify_dim(e, sz, dims, unknown, pending)
    if elem is not None and v.kind == "fin" and v.bound is not None:
        h, args = head_and_args(elem)
        if const_name(h) == "Fin" and len(args) == 1:
            unify_dim(args[0], v.bound, dims, unknown, pending)


def unify_dim(
    e: S.Term, sz: Sz, dims: dict[str, Sz], unknown: set[str], pending: list[tuple[S.Term, int]]
) -> None:
    if isinstance(e, S.Paren):
        unify_dim(e.term, sz, dims, unknown, pending)
        return
    if isinstance(e, S.Var | S.Ident) and e.name in unknown:
        if e.name in dims:
            if dims[e.name].n != sz.n:
                raise EvalError(f"dimension {e.name} is both {dims[e.name].n} and {sz.n}")
            if dims[e.name].factors is None and sz.factors is not None:
                dims[e.name] = sz
        else:
            dims[e.name] = sz
        return
    if isinstance(e, S.BinOp) and e.op == "*" and sz.factors is not None:
        unify_dim(e.lhs, sz.factors[0], dims, unknown, pending)
        unify_dim(e.rhs, sz.factors[1], dims, unknown, pending)
        return
    pending.append((e, sz.n))


def codomain(t: S.Term) -> S.Term | None:
    while isinstance(t, S.Paren):
        t = t.term
    if isinstance(t, S.BinOp) and t.op == "→":
        return t.rhs
    return None


def link(
    links: list[list[S.Term]],
    dims: dict[str, Sz],
    unknown: set[str],
    pending: list[tuple[S.Term, int]],
    name: str,
) -> None:
    """Settle the expressions that must be equal from one of them that is settled."""
    progress = True
    while links and progress:
        progress = False
        for group in list(links):
            known = [e for e in group if not free_dims(e, unknown, dims)]
            if not known:
                continue
            sz = eval_dim(known[0], dims)
            for e in group:
                unify_dim(e, sz, dims, unknown, pending)
            links.remove(group)
            solve(pending, dims, unknown, name)
            progress = True


def free_dims(e: S.Term, unknown: set[str], dims: dict[str, Sz]) -> set[str]:
    if isinstance(e, S.Var | S.Ident):
        return {e.name} if e.name in unknown and e.name not in dims else set()
    if isinstance(e, S.BinOp):
        return free_dims(e.lhs, unknown, dims) | free_dims(e.rhs, unknown, dims)
    if isinstance(e, S.Paren):
        return free_dims(e.term, unknown, dims)
    return set()


def solve(
    pending: list[tuple[S.Term, int]], dims: dict[str, Sz], unknown: set[str], name: str
) -> None:
    progress = True
    while pending and progress:
        progress = False
        for item in list(pending):
            e, n = item
            free = free_dims(e, unknown, dims)
            if not free:
                got = eval_dim(e, dims)
                if got.n != n:
                    raise EvalError(f"{name}: a size {n} where the type says {got.n}")
                pending.remove(item)
                progress = True
            elif len(free) == 1:
                _solve_one(e, n, dims, unknown, name)
                pending.remove(item)
                progress = True


def _solve_one(e: S.Term, n: int, dims: dict[str, Sz], unknown: set[str], name: str) -> None:
    if isinstance(e, S.Paren):
        _solve_one(e.term, n, dims, unknown, name)
        return
    if isinstance(e, S.Var | S.Ident):
        dims[e.name] = Sz(n)
        return
    if isinstance(e, S.BinOp):
        lhs_free = bool(free_dims(e.lhs, unknown, dims))
        known = eval_dim(e.rhs if lhs_free else e.lhs, dims).n
        other = e.lhs if lhs_free else e.rhs
        if e.op == "+" and n >= known:
            _solve_one(other, n - known, dims, unknown, name)
            return
        if e.op == "*" and known and n % known == 0:
            _solve_one(other, n // known, dims, unknown, name)
            return
        if e.op == "-" and lhs_free and n > 0:
            _solve_one(other, n + known, dims, unknown, name)
            return
    raise EvalError(f"{name}: cannot infer a dimension from a size {n}")
