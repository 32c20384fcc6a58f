"""Binders of a recursive inductive type drawn as trees of several depths, not as leaves.

    inductive SumTree where
      | leaf : ℝ → SumTree
      | node : SumTree → SumTree → SumTree

A binder `t : SumTree` drawn only as its leaf (inductives.py) checks a statement about
trees at depth 0 alone: `|fl(t) - t.eval| ≤ ((1 + u)^t.depth - 1) * t.sumAbs` has both
sides 0 there, so any edit that keeps the leaf case is never seen. When the type has a
*node*, a constructor whose explicit arguments are all of the type itself at the
result's own indices (`node : SumTree → SumTree → SumTree`, `sub : SHlo n → SHlo n →
SHlo n`), the binder is drawn as one of `SHAPES` by a dimension of its own,
`t_leaves` (1 to `len(SHAPES)` leaves; drawn like every dimension, so the draws of a
check meet several shapes and a failure shrinks to the fewest leaves): a leaf
(depth 0), a node of two leaves, and combs leaning either way (depths 2 and 3), so
that subtrees of different depths meet at a node. The leaves' data are arrays over
`Fin t_leaves` (`t : Fin t_leaves → ℝ`; leaf k reads entry k), so adding a leaf does
not add a binder. The shape is chosen by `if t_leaves ≤ k`, decided statically at each
dims draw, so a recursion unfolds exactly as far as the drawn tree goes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from checkers.language.substitute import substitute
from checkers.language.types import head_and_args
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.evaluator.constructors import CtorFn, Leaf

STRING_NAMES = frozenset({"String"})


@dataclass(frozen=True)
class Node:
    """A constructor of a type whose explicit arguments are all subtrees of its type."""

    ctor: str
    arity: int


def node_of(fn: CtorFn) -> Node | None:
    """`fn` as a node of its type, or None: at least two explicit arguments, each of the
    result's type written the same (the same indices as the result)."""
    if fn.result is None or len(fn.explicit) < 2:
        return None
    want = str(print_term(_bare(fn.result)))
    for p in fn.explicit:
        if p.type is None or str(print_term(_bare(p.type))) != want:
            return None
    return Node(fn.name, len(fn.explicit))


def _bare(t: S.Term) -> S.Term:
    while isinstance(t, S.Paren):
        t = t.term
    return t


# leaves are numbered from 0; a shape is a leaf number or a tuple of subshapes
Shape = int | tuple["Shape", ...]


def shapes(arity: int) -> tuple[Shape, ...]:
    """The trees drawn, by number of leaves: a leaf, one node of leaves, a comb leaning
    left (depth 2), one leaning right below a node of leaves (depth 3)."""
    rest = tuple(range(1, arity))
    one: Shape = (0, *rest)
    left: Shape = (one, *(k + arity - 1 for k in rest))
    base = 2 * arity - 1
    right: Shape = tuple(range(base, base + arity - 1)) + (left,) if arity > 1 else (left,)
    return (0, one, left, right)


def _count(shape: Shape) -> int:
    return 1 if isinstance(shape, int) else sum(_count(s) for s in shape)


def _depth(shape: Shape) -> int:
    return 0 if isinstance(shape, int) else 1 + max(_depth(s) for s in shape)


def draw_as_tree(
    binder: str, ty: S.Term, leaf: Leaf, node: Node, type_params: int
) -> tuple[list[S.Binder], S.Term, str]:
    """(the binders drawn instead of `binder : ty`, the term that replaces it, the note)."""
    _, targs = head_and_args(ty)
    mapping = dict(zip(leaf.indices, targs[type_params:], strict=True))
    size = f"{binder}_leaves"
    fin = S.App(S.Const("Fin"), (S.Var(size),))
    data = [p for p in leaf.params if not _is_string(p.type)]
    binders: list[S.Binder] = [S.Binder("implicit", (size,), S.Const("ℕ"))]
    names: dict[str, str] = {}
    for p in data:
        name = binder if len(data) == 1 else f"{binder}_{p.name}"
        assert p.type is not None
        elem = substitute(p.type, mapping, set())
        binders.append(S.Binder("explicit", (name,), S.BinOp("→", fin, elem)))
        names[p.name] = name

    def leaf_term(k: int) -> S.Term:
        at = S.Typed(S.Num(str(k)), fin)
        args = [
            S.Str(f"{binder}{k}") if _is_string(p.type) else S.App(S.Var(names[p.name]), (at,))
            for p in leaf.params
        ]
        return S.App(S.Const(leaf.ctor), tuple(args)) if args else S.Const(leaf.ctor)

    def build(shape: Shape) -> S.Term:
        if isinstance(shape, int):
            return leaf_term(shape)
        return S.App(S.Const(node.ctor), tuple(S.Paren(build(s)) for s in shape))

    drawn = shapes(node.arity)
    value: S.Term = build(drawn[-1])
    for shape in reversed(drawn[:-1]):
        cond = S.BinOp("≤", S.Var(size), S.Num(str(_count(shape))))
        value = S.If(cond, build(shape), value)
    note = (
        f"{binder} : {print_term(ty)} drawn as trees of `{_short(node.ctor)}` over "
        f"`{_short(leaf.ctor)}` with 1 to {_count(drawn[-1])} leaves (depth 0 to "
        f"{_depth(drawn[-1])}) by the dimension {size}, not as the type's other constructors"
    )
    return binders, S.Paren(value), note


def _short(ctor: str) -> str:
    return ".".join(ctor.rsplit(".", 2)[-2:])


def _is_string(t: S.Term | None) -> bool:
    return isinstance(t, S.Const | S.Ident) and t.name in STRING_NAMES
