"""Notations that denote constants or functions, for the evaluator and the static analysis.

`a :: xs` is `List.cons a xs`, `xs ++ ys` is `HAppend.hAppend xs ys`, `xs[i]!`
is `getElem! xs i`; `(· * ·)` is `fun a b => a * b` (each `·` a parameter, in
order; a `·` inside parentheses of its own belongs to those); field notation
`x.f` fills the first explicit parameter of f's namespace type with x, which for
`List.map f xs` is the second. `constants_in` lists the constants a term names, these
notations' included, for the static analysis (semantics.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from checkers.language.types import INT_NAMES, LIST_NAMES, NAT_NAMES, REAL_NAMES
from checkers.language.values import Builtin
from theorem_index.lean import syntax as S

# binary operators that are notation for a constant
NOTATION = {"::": "List.cons", "++": "HAppend.hAppend"}

# the constants `xs[i]` and `xs[i]!` denote, by suffix
INDEX_NOTATION = {"": "GetElem.getElem", "!": "GetElem?.getElem!"}


def field_function(fn: Any, v: Any) -> Any:
    """The function `v.f` applies to v: `fn` itself when v is its first explicit argument,
    else `fn` waiting for the arguments before v's place (`xs.map f` is `List.map f xs`),
    which then takes v as its first argument."""
    k = fn.self_arg if isinstance(fn, Builtin) else 0
    if k == 0:
        return fn
    head = fn

    def run(ev: Any, args: tuple[Any, ...]) -> Any:
        # args: v first (as `_proj` applies it), then the arguments in their order
        return head.fn(ev, args[1 : k + 1] + (args[0],) + args[k + 1 :])

    expect = head.arg_expect

    def arg_expect(j: int, expected: Any) -> Any:
        if expect is None or j == 0:
            return None
        return expect(j - 1 if j <= k else j, expected)

    pt = head.param_types
    moved = (pt[k] if k < len(pt) else None,) + pt[:k] + pt[k + 1 :] if pt else ()
    return Builtin(head.name, head.arity, run, moved, arg_expect=arg_expect)


_CDOT: dict[int, tuple[S.Paren, S.Lam | None]] = {}


def cdot_function(t: S.Paren) -> S.Lam | None:
    """`cdot_lambda` of a parenthesised term, computed once per term."""
    got = _CDOT.get(id(t))
    if got is None or got[0] is not t:
        got = _CDOT[id(t)] = (t, cdot_lambda(t.term))
    return got[1]


def cdot_lambda(t: S.Term) -> S.Lam | None:
    """`(· * ·)`: the term inside parentheses as a function of its `·`s, in order (a `·`
    inside parentheses of its own belongs to those); None without any."""
    names: list[str] = []

    def sub(u: Any) -> Any:
        if isinstance(u, S.CDot):
            names.append(f"·{len(names)}")
            return S.Var(names[-1])
        if isinstance(u, S.Paren):
            return u
        if isinstance(u, S.Term):
            fields = S.node_fields(type(u))
            return dataclasses.replace(u, **{f: sub(getattr(u, f)) for f in fields})
        if isinstance(u, tuple):
            return tuple(sub(x) for x in u)
        return u

    body = sub(t)
    if not names:
        return None
    return S.Lam(tuple(S.Binder("plain", (n,)) for n in names), body)


# Fields of values that are no function of a namespace: pairs' and `Fin`'s components.
STRUCTURE_FIELDS = frozenset({"1", "2", "fst", "snd", "isLt"})
# Types whose namespace holds functions: `List.zipWith` is written `List.zipWith`, a
# field of the constant `List` (a field of a value, `xs.getD`, is resolved by its type).
NAMESPACES = REAL_NAMES | NAT_NAMES | INT_NAMES | LIST_NAMES | {"Fin"}


def constants_in(t: Any) -> set[str]:
    """Every constant named in a term (resolved `Const`, or a dotted `Ident`), with those
    its notations denote (`a :: xs`, `xs[i]!`) and `List.f` for `List.f` written as a
    field of the type."""
    out: set[str] = set()
    stack = [t]
    while stack:  # `S.subterms` without its order, which a set does not need
        u = stack.pop()
        if isinstance(u, S.Term):
            if isinstance(u, S.Const):
                out.add(u.name)
            elif isinstance(u, S.Proj):
                if isinstance(u.term, S.Const) and u.term.name in NAMESPACES:
                    out.add(f"{u.term.name}.{u.field}")
                    continue
                if isinstance(u.term, S.Const):
                    out.add(FieldName(u.term.name, u.field))
                    continue
                out.add(f".{u.field}")  # field notation: the namespace is the value's type
            elif isinstance(u, S.BinOp) and u.op in NOTATION:
                out.add(NOTATION[u.op])
            elif isinstance(u, S.Index):
                out.add(INDEX_NOTATION.get(u.suffix, f"xs[i]{u.suffix}"))
            stack.extend(getattr(u, f) for f in S.node_fields(type(u)))
        elif isinstance(u, tuple):
            stack.extend(u)
    return out


class FieldName(str):
    """`X.f` written as a field of the constant X: the constant `X.f` where there is one,
    else the field f of X's value (as the evaluator reads it, forms.py)."""

    base: str
    field: str

    def __new__(cls, base: str, field: str) -> FieldName:
        out = super().__new__(cls, f"{base}.{field}")
        out.base, out.field = base, field
        return out
