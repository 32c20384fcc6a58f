"""Definitions whose semantics come from their ingested equation.

`Proofs.rowDense_weight_grad X dY i j = ∑ r : Fin N, X r i * dY r j` with
binders `{N a c : ℕ} (X : Mat N a) (dY : Mat N c)` and type `Mat a c`
unfolds like a macro: the explicit arguments are bound to the left-hand
side's variables, the implicit dimensions (N, a, c) are inferred by unifying
the binder types with the arguments' types (sizes and how they factor;
dimensions.py), and trailing index variables (i, j) that are not supplied are
abstracted over, so `rowDense_weight_grad X dY` is the whole `Mat a c`.

A definition by structural recursion (`combZ n (c :: cs) (r :: rs) = scaleAddZ c r
(combZ n cs rs)`) unfolds the same way on the concrete values: its equations are a
`match` whose list and numeral patterns are decided by the values' shapes, so only
the case taken unfolds further. The evaluator bounds the nesting (`MAX_DEPTH`) and
the number of recursive unfoldings (`MAX_UNFOLDINGS`); past either the statement is
unsupported, with the reason (a recursion on a sampled value never ends there).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from checkers.evaluator.dimensions import (
    arrow_domains,
    codomain,
    free_dims,
    link,
    solve,
    type_dim_exprs,
    unify_dim,
    unify_expected,
    unify_value,
)
from checkers.language.axes import move_axis_to_dom
from checkers.language.coercion import coerce, settle
from checkers.language.errors import EvalError, NotSupported
from checkers.language.instances import argument_type
from checkers.language.types import (
    LIST_NAMES,
    NAT_NAMES,
    NUMBER_NAMES,
    REAL_NAMES,
    TFin,
    TFun,
    TOther,
    Ty,
    array_rank,
    const_name,
    eval_dim,
    head_and_args,
)
from checkers.language.values import (
    Arr,
    Axis,
    Builtin,
    Closure,
    Ctor,
    Partial,
    Sz,
    TypeValue,
    Unsolved,
    exact_key,
    iota,
    numeral_size,
    static_nat,
)
from checkers.lazyjax import jnp
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.language.host import Host


# types the evaluator models by kind (numbers, indices, lists), not by name
_MODELLED = NUMBER_NAMES | LIST_NAMES | {"Fin"}
# exact applications kept per library (see EqnFn.apply_args), the least recent dropped first
MAX_APPLICATIONS = 256


@dataclass(frozen=True)
class Param:
    name: str
    type: S.Term | None
    kind: str  # binder kind: explicit, implicit, strict, inst


def _is_nat(t: S.Term | None) -> bool:
    return isinstance(t, S.Const | S.Ident) and t.name in NAT_NAMES


def _is_sort(t: S.Term | None) -> bool:
    return isinstance(t, S.Sort)


class EqnFn:
    """A definition unfolded through its equation."""

    def __init__(
        self,
        name: str,
        params: tuple[Param, ...],
        result: S.Term | None,
        lhs_vars: tuple[str, ...],
        rhs: S.Term,
        *,
        recursive: bool = False,
    ) -> None:
        self.name = name
        self.recursive = recursive  # its right-hand side uses it
        self.params = params
        self.result = result
        self.explicit = tuple(p for p in params if p.kind == "explicit")
        if len(lhs_vars) < len(self.explicit):
            raise NotSupported(f"the equation of {name} names fewer arguments than it takes")
        self.lhs_vars = lhs_vars
        self.rhs = rhs
        res_dims, self.res_elem = type_dim_exprs(result)
        self.extra = lhs_vars[len(self.explicit) :]
        if len(self.extra) > len(res_dims):
            raise NotSupported(
                f"the equation of {name} applies its value to more indices than its type has"
            )
        self.extra_dims = res_dims[: len(self.extra)]
        self.rest_dims = res_dims[len(self.extra) :]
        # `Vec (ic * h * w) → Vec (oc * h * w)` after the indices: the domains of the value,
        # whose arguments fix the implicit dimensions that only these types mention
        self.arrow_domains = arrow_domains(self.res_elem) if not self.rest_dims else ()
        self.implicit_dims = any(_is_nat(p.type) and p.kind != "explicit" for p in params)

    def __repr__(self) -> str:
        return f"EqnFn({self.name})"

    def min_args(self) -> int:
        return len(self.explicit)

    def param_kind(self, k: int) -> str | None:
        if k < len(self.explicit):
            t = self.explicit[k].type
            if _is_nat(t):
                return "nat"
            if isinstance(t, S.Const | S.Ident) and t.name in REAL_NAMES:
                return "real"
            h, _ = head_and_args(t) if t is not None else (None, ())
            if h is not None and const_name(h) == "Fin":
                return "fin"
            return None
        return "fin"

    # --- unfolding -----------------------------------------------------------

    def apply_args(
        self,
        ev: Host,
        args: tuple[Any, ...],
        pinned: Mapping[str, Sz] | None = None,
        expected: Ty | None = None,
    ) -> tuple[Any, int]:
        """The value applied to `args` and how many of them it took. `pinned`: implicit
        dimensions given explicitly (`@f N a c ..`), checked against the arguments;
        `expected`: the type the context expects of the value applied to all of `args`.
        Raises `Deferred` when the implicit dimensions are fixed only by arguments of the
        value that are not given yet (`flatConv W b` composed, then applied).

        An application to exact constants (integers, lists of them) whose value is exact
        too is computed once per library: `absSumZ (combZ 784 cs rows)` then costs its
        thousands of unfoldings once, not in every trace of the statement. Where the
        expected type may fix implicit dimensions, it is not cached."""
        memo = getattr(ev.lib, "applications", None)
        keys = tuple(exact_key(a) for a in args)
        if memo is None or pinned or None in keys or (expected is not None and self.implicit_dims):
            return self._euclidean(self._unfold(ev, args, pinned, expected))
        key = (self.name, keys)
        if key in memo:
            memo.move_to_end(key)
            return memo[key][0]
        out = self._euclidean(self._unfold(ev, args, pinned, expected))
        if exact_key(out[0]) is not None:
            memo[key] = (out, args)  # the arguments stay alive: their identities stay theirs
            while len(memo) > MAX_APPLICATIONS:
                memo.popitem(last=False)
        return out

    def _euclidean(self, out: tuple[Any, int]) -> tuple[Any, int]:
        """A value of the declared type `EuclideanSpace ℝ ι` is a Euclidean vector (its norm
        the Euclidean one), however its body built it (`fun i => …`, where Mathlib's
        `PiLp` was a type synonym)."""
        value, used = out
        if (
            isinstance(value, Arr)
            and len(value.dom) == 1
            and used == len(self.explicit)
            and not self.extra
            and const_name(head_and_args(self.result)[0]) == "EuclideanSpace"
            if self.result is not None
            else False
        ):
            return value.with_(l2=True), used
        return out

    def _unfold(
        self,
        ev: Host,
        args: tuple[Any, ...],
        pinned: Mapping[str, Sz] | None,
        expected: Ty | None,
    ) -> tuple[Any, int]:
        if self.recursive:
            ev.count_unfolding(self.name)
        n_exp = len(self.explicit)
        used = min(len(args), n_exp + len(self.extra))
        dims: dict[str, Sz] = dict(pinned or {})
        pending: list[tuple[S.Term, int]] = []
        links: list[list[S.Term]] = []  # type expressions that must be equal (`Back i i`)
        unknown = {p.name for p in self.params if _is_nat(p.type) and p.kind != "explicit"}
        for p, a in zip(self.explicit, args, strict=False):
            if _is_nat(p.type):
                # a constant ℕ may size types in the body; a sampled one is a plain value
                if isinstance(a, Arr) and a.is_static:
                    n = int(coerce(settle(a), "nat", ev.ctx).data)
                    dims[p.name] = numeral_size(a, n)
                continue
            unify_value(p.type, a, dims, unknown, pending, links)
        for expr, a in zip(self.extra_dims, args[n_exp:used], strict=False):
            if isinstance(a, Arr) and a.kind == "fin" and a.bound is not None:
                unify_dim(expr, a.bound, dims, unknown, pending)
        if used == n_exp + len(self.extra) and any(n not in dims for n in unknown):
            # as Lean elaborates `flatConv W b v`: `v` is the value's argument, and its type
            # is the domain the definition states
            for ty, a in zip(self.arrow_domains, args[used:], strict=False):
                unify_value(ty, a, dims, unknown, pending, links)
            if expected is not None and len(args) == used and not self.arrow_domains:
                # `(Tensor3.unflatten v : Tensor3 2 4 4)`: the expected type fixes them
                unify_expected(self.rest_dims, expected, dims, unknown, pending)
        solve(pending, dims, unknown, self.name)
        link(links, dims, unknown, pending, self.name)
        if any(n not in dims for n in unknown):
            # `batchMap N (globalAvgPoolFlat c h w) x`: `f : Vec a → Vec b`'s b is its value's
            _probe_functions(ev, self.explicit, args, dims, unknown, pending)
            solve(pending, dims, unknown, self.name)
        missing = sorted(n for n in unknown if n not in dims)
        if missing and len(args) < used + len(self.arrow_domains):
            raise Deferred(self.name)
        # a dimension keeps the factors it was solved with: `m := c * h * w` is that term
        env: dict[str, Any] = {k: static_nat(v.n).with_(size=v) for k, v in dims.items()}
        if missing:
            # left to the body: the values it computes have the shapes (see `Unsolved`)
            unsolved = Unsolved(
                f"{self.name}: cannot infer the implicit dimension(s) "
                f"{', '.join(missing)} from the arguments"
            )
            env.update(dict.fromkeys(missing, unsolved))
            ev.unsolved = unsolved.reason
        for p in self.params:
            if _is_sort(p.type):  # the type its arguments have (`α := ℤ`), ℝ where none says
                env[p.name] = TypeValue(
                    argument_type(p.name, [q.type for q in self.explicit], args)
                )
        sizes: dict[str, Any] = {**env, **dims}
        for p, var, a in zip(self.explicit, self.lhs_vars, args, strict=False):
            v = a
            if (
                p.type is not None
                and isinstance(a, Arr)
                and not _is_nat(p.type)
                and not (missing and _mentions(p.type, missing))
            ):
                # the types see the dimensions with their factors (`Vec (c * h * w)`)
                v = ev.coerce_to(a, ev.type_of(p.type, {**env, **dims}))
            elif _is_nat(p.type) and isinstance(a, Arr):
                v = coerce(settle(a), "nat", ev.ctx)
            env[p.name] = v
            env[var] = v
        axes: list[tuple[Axis, Sz]] = []
        for k, (var, expr) in enumerate(zip(self.extra, self.extra_dims, strict=True)):
            sz = eval_dim(expr, sizes)
            if n_exp + k < used:
                env[var] = coerce(ev._arr(args[n_exp + k], self.name), "fin", ev.ctx, sz)
            else:
                ax = Axis(var, sz.n)
                env[var] = iota(ax, bound=sz)
                axes.append((ax, sz))
        expected = self._expected(ev, {**env, **dims}) if not axes else None
        val = self.body(ev, env, dims, expected)
        if axes:
            if not isinstance(val, Arr):
                raise EvalError(f"{self.name}: its value is not a number or array")
            for ax, sz in reversed(axes):
                val = move_axis_to_dom(val, ax, sz)
        if expected is not None:
            val = ev.coerce_to(val, expected)
        if isinstance(val, Ctor) and None in val.indices and self.result is not None:
            # `def cot (W : Mat d₁ d₂) … : Back d₃ d₁ := (…).subst …`: the declared type
            # settles the indices its constructors could not
            val = with_indices(val, self.result, {**env, **dims})
        return val, used

    def body(
        self, ev: Host, env: dict[str, Any], dims: Mapping[str, Sz], expected: Ty | None
    ) -> Any:
        """The right-hand side's value with the parameters bound in `env` and the implicit
        dimensions settled to `dims`."""
        return ev.eval(self.rhs, env, expected)

    def param_type(self, k: int) -> Ty | None:
        """The type expected of explicit argument `k` where it is a type the evaluator does
        not model by kind (an inductive type: what a `.ctor` argument resolves against)."""
        t = self.explicit[k].type if k < len(self.explicit) else None
        if t is None:
            return None
        h, _ = head_and_args(t)
        name = const_name(h)
        if name is None or array_rank(name) is not None or name in _MODELLED:
            return None
        return TOther(name, name)

    def _expected(self, ev: Host, env: dict[str, Any]) -> Ty | None:
        """The type of the value once every trailing index is supplied."""
        if self.result is None or self.res_elem is None:
            return None
        try:
            out = ev.type_of(self.res_elem, env)
            for e in reversed(self.rest_dims):
                out = TFun(TFin(eval_dim(e, env)), out)
            return out
        except EvalError:
            return None


def with_indices(v: Ctor, ty: S.Term, sizes: Mapping[str, Any]) -> Ctor:
    """`v` with the indices it does not know taken from its type `ty`, where they evaluate."""
    _, targs = head_and_args(ty)
    if len(targs) != len(v.indices):
        return v
    out: list[Sz | None] = []
    for known, t in zip(v.indices, targs, strict=True):
        if known is None:
            try:
                known = eval_dim(t, sizes)
            except (EvalError, NotSupported):
                known = None
        out.append(known)
    return replace(v, indices=tuple(out))


class Deferred(Exception):
    """The implicit dimensions wait for an argument of the value that is not given yet."""


def _probe_functions(
    ev: Host,
    params: tuple[Param, ...],
    args: tuple[Any, ...],
    dims: dict[str, Sz],
    unknown: set[str],
    pending: list[tuple[S.Term, int]],
) -> None:
    """Settle the dimensions of a function argument's codomain (`f : Vec a → Vec b`, f a
    partial application or lambda) from its value at a vector of the domain's size, as
    Lean reads them off f's type."""
    for p, a in zip(params, args, strict=False):
        if p.type is None or isinstance(a, Arr | Ctor) or not callable_value(a):
            continue
        doms = arrow_domains(p.type)
        if len(doms) != 1:
            continue
        cod = codomain(p.type)
        if cod is None or not any(free_dims(e, unknown, dims) for e in type_dim_exprs(cod)[0]):
            continue
        exprs, elem = type_dim_exprs(doms[0])
        if not exprs or any(free_dims(e, unknown, dims) for e in exprs):
            continue
        sizes = tuple(eval_dim(e, dims) for e in exprs)
        probe = Arr(jnp.zeros(tuple(sz.n for sz in sizes), dtype=ev.ctx.dtype), "real", dom=sizes)
        try:
            out = ev.apply(a, [probe])
        except (EvalError, NotSupported, Deferred):
            continue
        unify_value(cod, out, dims, unknown, pending)


def callable_value(v: Any) -> bool:
    """Whether a value is a function the evaluator applies (not an array or a term)."""
    return isinstance(v, Closure | Partial | Builtin) or hasattr(v, "apply_args")


def _mentions(t: S.Term, names: list[str]) -> bool:
    return any(isinstance(u, S.Var | S.Ident) and u.name in names for u in S.subterms(t))
