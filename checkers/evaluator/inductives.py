"""Inductive types: their constructors as functions that build values, and their binders.

    inductive SHlo : Nat → Type where
      | operand {n : Nat} (name : String) (v : Vec n) : SHlo n
      | dotIn   {m n : Nat} (wName : String) (W : Mat m n) : SHlo m → SHlo n

`SHlo.dotIn "W" W e` (or `.dotIn "W" W e` where an `SHlo` is expected) evaluates to
`Ctor(SHlo, dotIn, ("W", W, e), {m, n}, (n,))`: the explicit arguments, the implicit
dimensions (inferred from the arguments' types as a definition's are) and the type's
indices. A definition by cases on it (`den _ (.dotIn _ W e) = …`) takes the alternative
whose constructor it is (patterns.py), so a recursion on a constructed term unfolds
exactly as far as the term goes.

A binder of an inductive type (`e : SHlo n`) is drawn as the type's leaf: its first
constructor whose arguments are data (numbers, arrays, strings) and whose result has
the type's indices as free variables, so every index is reachable (`SHlo.operand _ v`
with `v : Vec n` drawn). That is a check of the statement at those values only; the
result says so (`leaf_binders`). A `String` binder is fixed to its own name, and the
result says that too.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Protocol

from checkers.evaluator.constructors import CtorFn, Leaf
from checkers.evaluator.trees import Node, draw_as_tree
from checkers.language.substitute import substitute
from checkers.language.types import (
    REAL_NAMES,
    array_rank,
    const_name,
    head_and_args,
)
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    pass

STRING_NAMES = frozenset({"String"})


# --- binders of an inductive type ---------------------------------------------------


def _is_data(t: S.Term | None) -> bool:
    if t is None:
        return False
    while isinstance(t, S.Paren):
        t = t.term
    h, args = head_and_args(t)
    name = const_name(h)
    if name in STRING_NAMES or name in REAL_NAMES:
        return not args
    return name is not None and array_rank(name) == len(args) and bool(args)


def leaf_of(fn: CtorFn, type_params: int) -> Leaf | None:
    """`fn` as the leaf of its type, or None: its explicit arguments are data and the
    type's indices (after its `type_params` parameters) are distinct implicit variables."""
    if not all(_is_data(p.type) for p in fn.explicit):
        return None
    assert fn.result is not None
    _, targs = head_and_args(fn.result)
    implicit = {p.name for p in fn.params if p.kind == "implicit"}
    # an index that repeats a parameter (`cotangent : Back inp inp`) is not free
    names: list[str] = [a.name for a in targs[:type_params] if isinstance(a, S.Var | S.Ident)]
    taken = len(names)
    for a in targs[type_params:]:
        while isinstance(a, S.Paren):
            a = a.term
        if not (isinstance(a, S.Var | S.Ident) and a.name in implicit) or a.name in names:
            return None
        names.append(a.name)
    return Leaf(fn.name, tuple(names[taken:]), fn.explicit)


def _text(t: S.Term) -> str:
    return str(print_term(t))


def draw_as_leaf(
    binder: str, ty: S.Term, leaf: Leaf, type_params: int
) -> tuple[list[S.Binder], S.Term, str]:
    """(the binders drawn instead of `binder : ty`, the term that replaces it, the note)."""
    _, targs = head_and_args(ty)
    mapping = dict(zip(leaf.indices, targs[type_params:], strict=True))
    data = [p for p in leaf.params if not _is_string(p.type)]
    binders: list[S.Binder] = []
    args: list[S.Term] = []
    for p in leaf.params:
        if _is_string(p.type):
            args.append(S.Str(binder))
            continue
        name = binder if len(data) == 1 else f"{binder}_{p.name}"
        assert p.type is not None
        binders.append(S.Binder("explicit", (name,), substitute(p.type, mapping, set())))
        args.append(S.Var(name))
    value = S.App(S.Const(leaf.ctor), tuple(args)) if args else S.Const(leaf.ctor)
    short = leaf.ctor.rsplit(".", 2)
    shown = ".".join(short[-2:])
    note = (
        f"{binder} : {_text(ty)} drawn as `{shown}` terms (the constructor that holds any "
        "value at the type's indices), not as the type's other constructors"
    )
    return binders, value, note


def _is_string(t: S.Term | None) -> bool:
    return isinstance(t, S.Const | S.Ident) and t.name in STRING_NAMES


def string_note(binder: str) -> str:
    return f'{binder} : String fixed to "{binder}" (strings are names here, not sampled)'


class _Leaves(Protocol):
    def leaf(self, type_name: str) -> Leaf | None: ...

    def type_params(self, type_name: str) -> int: ...

    def node(self, type_name: str) -> Node | None: ...


def draw_leaves(
    every: tuple[S.Binder, ...], extra: tuple[S.Binder, ...], core: S.BinOp, sem: _Leaves
) -> tuple[tuple[S.Binder, ...], tuple[S.Binder, ...], S.BinOp, tuple[str, ...]]:
    """(every binder, the statement's binders, the relation, notes) with each binder of an
    inductive type drawn as its leaf and each `String` binder fixed (see the module)."""
    start = len(every) - len(extra)
    items: list[S.Binder] = []
    notes: list[str] = []
    mapping: dict[str, S.Term] = {}
    where: list[bool] = []  # for each item, whether it is among the statement's binders
    for k, b in enumerate(every):
        ty: S.Term | None = b.type
        if mapping and ty is not None:
            ty = substitute(ty, mapping, set())
        if b.pattern is not None or b.kind == "inst" or ty is None or not b.names:
            items.append(b if ty is b.type or ty is None else _retyped(b, ty))
            where.append(k >= start)
            continue
        type_name = const_name(head_and_args(ty)[0])
        leaf = sem.leaf(type_name) if type_name is not None and not _is_string(ty) else None
        if not _is_string(ty) and leaf is None:
            items.append(b if ty is b.type else _retyped(b, ty))
            where.append(k >= start)
            continue
        for n in b.names:
            if _is_string(ty):
                mapping[n] = S.Str(n)
                notes.append(string_note(n))
                continue
            assert leaf is not None and type_name is not None
            node = sem.node(type_name)
            params = sem.type_params(type_name)
            if node is not None:
                drawn, value, note = draw_as_tree(n, ty, leaf, node, params)
            else:
                drawn, value, note = draw_as_leaf(n, ty, leaf, params)
            items.extend(drawn)
            where.extend([k >= start] * len(drawn))
            mapping[n] = value
            notes.append(note)
    if not notes:
        return every, extra, core, ()
    core = substitute(core, mapping, set())
    out = tuple(items)
    return out, tuple(b for b, inside in zip(out, where, strict=True) if inside), core, tuple(notes)


def _retyped(b: S.Binder, ty: S.Term) -> S.Binder:
    return dataclasses.replace(b, type=ty)


def by_constructors(rhs: S.Term) -> bool:
    """Whether a right-hand side is a `match` by cases on constructors (`| .dotIn _ W e =>`)."""
    while isinstance(rhs, S.Paren):
        rhs = rhs.term
    if not isinstance(rhs, S.Match) or len(rhs.alts) < 2:
        return False
    return any(_constructor_pattern(p) for alt in rhs.alts for p in alt.patterns)


def _constructor_pattern(p: S.Term) -> bool:
    while isinstance(p, S.Paren):
        p = p.term
    head = p.fn if isinstance(p, S.App) else p
    return isinstance(head, S.DotIdent)


# heads of propositions a definition takes as proofs (`(hf : Differentiable ℝ f)`)
PROP_HEADS = frozenset(
    {
        "Differentiable",
        "DifferentiableAt",
        "DifferentiableOn",
        "HasFDerivAt",
        "HasDerivAt",
        "Continuous",
        "ContinuousAt",
        "ContDiff",
        "Fact",
        "NeZero",
    }
)
_RELATIONS = frozenset({"=", "≠", "<", "≤", ">", "≥", "∧", "∨", "↔", "∈", "∉"})


def is_proposition(t: S.Term) -> bool:
    """Whether a parameter's type is evidently a proposition (its argument is a proof)."""
    while isinstance(t, S.Paren):
        t = t.term
    if isinstance(t, S.BinOp):
        return t.op in _RELATIONS or (t.op == "→" and is_proposition(t.rhs))
    if isinstance(t, S.Quant):
        return True
    return const_name(head_and_args(t)[0]) in PROP_HEADS
