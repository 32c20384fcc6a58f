"""What the operator and binding-form mixins need from the evaluator (a protocol)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from checkers.language.coercion import Ctx
from checkers.language.memo import Applications
from checkers.language.types import TProd, Ty
from checkers.language.values import Arr, Axis, Closure, Ctor, Lst, Pair, Sz
from theorem_index.lean import syntax as S

Env = Mapping[str, Any]


class Library(Protocol):
    """Where the evaluator finds the value of a constant (semantics.py)."""

    def lookup(self, name: str) -> Any: ...


class Host(Protocol):
    lib: Library
    ctx: Ctx
    probe: Callable[[S.Term, Any], None] | None
    applications: Applications | None  # the values kept in this trace (memo.py)
    unsolved: str | None  # why the last application was left unevaluated, if it was

    def count_unfolding(self, name: str) -> None: ...

    def eval(self, t: S.Term, env: Env, expected: Ty | None = None) -> Any: ...

    def apply(self, fn: Any, args: list[Any], expected: Ty | None = None) -> Any: ...

    def constant(self, name: str) -> Any: ...

    def type_of(self, t: S.Term, env: Env) -> Ty: ...

    def dim_of(self, t: S.Term, env: Env) -> Sz: ...

    def coerce_to(self, v: Any, ty: Ty) -> Any: ...

    def lam(
        self,
        params: tuple[tuple[Any, S.Term | None], ...],
        body: S.Term,
        env: Env,
        expected: Ty | None,
    ) -> Any: ...

    def infer_index_size(self, name: str, body: S.Term, env: Env) -> Sz | None: ...

    def entries(self, v: Arr, ty: Ty | None) -> Arr: ...

    def dot_constructor(self, short: str, expected: Ty | None) -> str: ...

    def apply_closure(self, c: Closure, arg: Any) -> Any: ...

    def _expect_arg(self, fn: Any, k: int, expected: Ty | None) -> Ty | None: ...

    def _arr(self, v: Any, what: str) -> Arr: ...

    # operators
    def typed_trees(
        self, trees: list[S.Term], env: Env, expected: Ty | None, default_nat: bool = False
    ) -> list[Any]: ...

    def typed_leaves(
        self, trees: list[S.Term], env: Env, expected: Ty | None, default_nat: bool = False
    ) -> tuple[str, Sz | None, dict[int, Any]]: ...

    def _power(self, t: S.BinOp, env: Env, expected: Ty | None) -> Any: ...

    def _join(self, k1: str, b1: Sz | None, k2: str, b2: Sz | None) -> tuple[str, Sz | None]: ...

    def _fold(self, t: S.Term, vals: dict[int, Any], kind: str) -> Any: ...

    def _coe(self, t: S.Prefix, env: Env, expected: Ty | None) -> Any: ...

    def _compose(self, t: S.BinOp, env: Env) -> Any: ...

    def _function_valued(self, t: S.Term, env: Env) -> bool: ...

    def _lifted(self, t: S.Term, env: Env) -> S.Lam: ...

    # patterns
    def bind_indices(
        self,
        pat: S.Term,
        ty: Ty | None,
        body: S.Term,
        env: dict[str, Any],
        axes: list[tuple[Axis, Sz]],
    ) -> bool: ...

    def bind_value(self, pattern: S.Term, value: Any, env: dict[str, Any]) -> None: ...

    def match_pattern(self, pattern: S.Term, v: Any, binds: dict[str, Any]) -> Arr | None: ...

    def match_list(self, pat: S.Term, v: Lst, binds: dict[str, Any]) -> Arr | None: ...

    def match_constructor(self, pat: S.Term, v: Ctor, binds: dict[str, Any]) -> Arr | None: ...

    def pattern_lam(
        self,
        pattern: S.Term,
        ty_term: S.Term | None,
        rest: tuple[tuple[Any, S.Term | None], ...],
        body: S.Term,
        env: Env,
        expected: Ty | None,
    ) -> Any: ...

    # forms, quantifiers and big operators (forms.py, big_operators.py)
    def _quant(self, t: S.Quant, env: Env) -> Arr: ...

    def _over_list(self, t: S.Quant, env: Env) -> Arr: ...

    def _over_finset(self, t: S.Quant, name: str, s: Any, env: Env) -> Arr: ...

    def _tuple(self, items: list[S.Term], env: Env, expected: Ty | None) -> Pair: ...

    def _namespace(self, v: Arr) -> str: ...

    def bigop_range(
        self, t: S.BigOp, name: str, ty_term: S.Term | None, env: Env
    ) -> tuple[Sz, str]: ...

    def _bigop_pair(
        self, t: S.BigOp, name: str, ty: TProd, env: Env, expected: Ty | None
    ) -> Any: ...

    def _bigop_finset(
        self, t: S.BigOp, name: str, ty_term: S.Term | None, env: Env, expected: Ty | None
    ) -> Any: ...

    def _member(self, t: S.BinOp, env: Env) -> Any: ...
    def _divides(self, t: S.BinOp, env: Env) -> Any: ...
