"""Constructors of inductive types as functions that build values, and how a binder of
such a type is drawn (its leaf): what inductives.py and trees.py share.

`SHlo.dotIn "W" W e` evaluates to `Ctor(SHlo, dotIn, ("W", W, e), {m, n}, (n,))`: the
explicit arguments, the implicit dimensions (inferred from the arguments' types as a
definition's are) and the type's indices (inductives.py says more).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from checkers.evaluator.equations import EqnFn, Param
from checkers.language.errors import EvalError
from checkers.language.types import Ty, const_name, eval_dim, head_and_args
from checkers.language.values import Arr, Ctor, Sz
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.language.host import Host

__all__ = ["CtorFn", "Leaf", "constructor_fn"]


class CtorFn(EqnFn):
    """A constructor: applied to its explicit arguments, the value it builds. An index
    that no argument settles (`.cotangent : Back inp inp`) stays unknown in the value;
    a function of it settles its own dimensions from its other arguments."""

    def __init__(self, name: str, type_name: str, params: tuple[Param, ...], result: S.Term):
        explicit = tuple(p.name for p in params if p.kind == "explicit")
        super().__init__(name, params, result, explicit, S.Hole())
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"CtorFn({self.name})"

    def body(
        self, ev: Host, env: dict[str, Any], dims: Mapping[str, Sz], expected: Ty | None
    ) -> Any:
        sizes: dict[str, Any] = {**env, **dims}
        indices: list[Sz | None] = []
        links: list[str | None] = []
        assert self.result is not None
        for a in head_and_args(self.result)[1]:
            try:
                indices.append(eval_dim(a, sizes))
                links.append(None)
            except EvalError:
                indices.append(None)
                bare = a.term if isinstance(a, S.Paren) else a
                links.append(bare.name if isinstance(bare, S.Var | S.Ident) else None)
        implicit = {
            p.name: env[p.name]
            for p in self.params
            if p.kind != "explicit" and isinstance(env.get(p.name), Arr)
        }
        args = tuple(env[p.name] for p in self.explicit)
        return Ctor(self.type_name, self.name, args, implicit, tuple(indices), tuple(links))


def constructor_fn(name: str, binders: tuple[S.Binder, ...], statement: S.Term) -> CtorFn:
    """The constructor `name` declared with `binders : statement` (its arrows' domains are
    explicit arguments too)."""
    params = [Param(n, b.type, b.kind) for b in binders for n in (b.names or ("",))]
    t = statement
    k = 0
    while True:
        while isinstance(t, S.Paren):
            t = t.term
        if isinstance(t, S.BinOp) and t.op == "→":
            params.append(Param(f"_arg{k}", t.lhs, "explicit"))
            k += 1
            t = t.rhs
            continue
        break
    type_name = const_name(head_and_args(t)[0]) or ""
    return CtorFn(name, type_name, tuple(params), t)


@dataclass(frozen=True)
class Leaf:
    """How a binder of an inductive type is drawn: the constructor, its implicit index
    variables in the order of the type's indices, and its explicit parameters."""

    ctor: str
    indices: tuple[str, ...]
    params: tuple[Param, ...]
