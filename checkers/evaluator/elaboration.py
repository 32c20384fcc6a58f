"""What Lean's elaborator reads off a term's uses, for the evaluator: the size of an
untyped index from the arrays it indexes (`x i`, and `x i.castSucc`: one less), and the
factors a constant size was written with (`relu (2 * (2*2) * (2*2))`).
"""

from __future__ import annotations

from typing import Any

from checkers.language.errors import EvalError, NotSupported
from checkers.language.host import Env
from checkers.language.types import eval_dim
from checkers.language.values import Arr
from theorem_index.lean import syntax as S

__all__ = ["applied_to", "is_product", "with_size"]

# `i.castSucc`, `i.succ`: an index of Fin n passed where a Fin (n + 1) is taken
_WIDENED = frozenset({"castSucc", "succ", "Fin.castSucc", "Fin.succ"})


def applied_to(name: str, t: Any) -> list[tuple[S.Term, int]]:
    """The functions that the variable `name` is passed to as an argument in t, each with
    how much smaller than that function's domain the variable's own is (1 for `x
    i.castSucc` or `x i.succ`: i is a Fin n where x takes a Fin (n + 1))."""
    out: list[tuple[S.Term, int]] = []
    for u in S.subterms(t):
        if isinstance(u, S.App):
            for p, a in enumerate(u.args):
                shrink = _index_use(name, a)
                if shrink is not None:
                    out.append((u.fn if p == 0 else S.App(u.fn, u.args[:p]), shrink))
                    break
    return out


def _index_use(name: str, a: S.Term) -> int | None:
    if isinstance(a, S.Var | S.Ident) and a.name == name:
        return 0
    if isinstance(a, S.Proj) and a.field in _WIDENED and isinstance(a.term, S.Var | S.Ident):
        return 1 if a.term.name == name else None
    if isinstance(a, S.App) and len(a.args) == 1:
        fn, arg = a.fn, a.args[0]
        if isinstance(fn, S.Const | S.Ident) and fn.name in _WIDENED:
            if isinstance(arg, S.Var | S.Ident) and arg.name == name:
                return 1
    return None


def is_product(t: S.Term) -> bool:
    while isinstance(t, S.Paren | S.Typed):
        t = t.term
    return isinstance(t, S.BinOp) and t.op == "*"


def with_size(a: Arr, term: S.Term, env: Env) -> Arr:
    """A constant ℕ argument with the factors it was written with (see `numeral_size`)."""
    try:
        sz = eval_dim(term, env)
    except (EvalError, NotSupported):
        return a
    return a.with_(size=sz) if sz.n == int(a.data) else a
