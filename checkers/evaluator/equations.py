"""Definitions whose semantics come from their ingested equation.

`Proofs.rowDense_weight_grad X dY i j = ∑ r : Fin N, X r i * dY r j` with
binders `{N a c : ℕ} (X : Mat N a) (dY : Mat N c)` and type `Mat a c`
unfolds like a macro: the explicit arguments are bound to the left-hand
side's variables, the implicit dimensions (N, a, c) are inferred by unifying
the binder types with the arguments' types (sizes and how they factor), and
trailing index variables (i, j) that are not supplied are abstracted over, so
`rowDense_weight_grad X dY` is the whole `Mat a c`.

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

from checkers.language.coercion import coerce, settle
from checkers.language.errors import EvalError, NotSupported
from checkers.language.instances import argument_type
from checkers.language.types import (
    INT_NAMES,
    LIST_NAMES,
    NAT_NAMES,
    REAL_NAMES,
    TFin,
    TFun,
    TOther,
    Ty,
    array_rank,
    const_name,
    eval_dim,
    fin_domains,
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
    move_axis_to_dom,
    numeral_size,
    static_nat,
)
from checkers.lazyjax import jnp
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.language.host import Host


# types the evaluator models by kind (numbers, indices, lists), not by name
_MODELLED = NAT_NAMES | REAL_NAMES | INT_NAMES | LIST_NAMES | {"Fin"}
# exact applications kept per library (see EqnFn.apply_args), the least recent dropped first
MAX_APPLICATIONS = 256


@dataclass(frozen=True)
class Param:
    name: str
    type: S.Term | None
    kind: str  # binder kind: explicit, implicit, strict, inst


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
        return dims, t
    return dims, None


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
        self.arrow_domains = _arrow_domains(self.res_elem) if not self.rest_dims else ()
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
            return self._unfold(ev, args, pinned, expected)
        key = (self.name, keys)
        if key in memo:
            memo.move_to_end(key)
            return memo[key][0]
        out = self._unfold(ev, args, pinned, expected)
        if exact_key(out[0]) is not None:
            memo[key] = (out, args)  # the arguments stay alive: their identities stay theirs
            while len(memo) > MAX_APPLICATIONS:
                memo.popitem(last=False)
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
            _unify_value(p.type, a, dims, unknown, pending, links)
        for expr, a in zip(self.extra_dims, args[n_exp:used], strict=False):
            if isinstance(a, Arr) and a.kind == "fin" and a.bound is not None:
                _unify_dim(expr, a.bound, dims, unknown, pending)
        if used == n_exp + len(self.extra) and any(n not in dims for n in unknown):
            # as Lean elaborates `flatConv W b v`: `v` is the value's argument, and its type
            # is the domain the definition states
            for ty, a in zip(self.arrow_domains, args[used:], strict=False):
                _unify_value(ty, a, dims, unknown, pending, links)
            if expected is not None and len(args) == used and not self.arrow_domains:
                # `(Tensor3.unflatten v : Tensor3 2 4 4)`: the expected type fixes them
                _unify_expected(self.rest_dims, expected, dims, unknown, pending)
        _solve(pending, dims, unknown, self.name)
        _link(links, dims, unknown, pending, self.name)
        if any(n not in dims for n in unknown):
            # `batchMap N (globalAvgPoolFlat c h w) x`: `f : Vec a → Vec b`'s b is its value's
            _probe_functions(ev, self.explicit, args, dims, unknown, pending)
            _solve(pending, dims, unknown, self.name)
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


def _unify_expected(
    exprs: list[S.Term],
    expected: Ty,
    dims: dict[str, Sz],
    unknown: set[str],
    pending: list[tuple[S.Term, int]],
) -> None:
    doms, _ = fin_domains(expected)
    if len(doms) == len(exprs) and all(d is not None for d in doms):
        for e, sz in zip(exprs, doms, strict=True):
            _unify_dim(e, sz, dims, unknown, pending)


def _arrow_domains(t: S.Term | None) -> tuple[S.Term, ...]:
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


# --- dimension unification ------------------------------------------------------


def _unify_value(
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
                    _unify_dim(e, sz, dims, unknown, pending)
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
            _unify_dim(e, sz, dims, unknown, pending)
    if elem is not None and v.kind == "fin" and v.bound is not None:
        h, args = head_and_args(elem)
        if const_name(h) == "Fin" and len(args) == 1:
            _unify_dim(args[0], v.bound, dims, unknown, pending)


def _unify_dim(
    e: S.Term, sz: Sz, dims: dict[str, Sz], unknown: set[str], pending: list[tuple[S.Term, int]]
) -> None:
    if isinstance(e, S.Paren):
        _unify_dim(e.term, sz, dims, unknown, pending)
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
        _unify_dim(e.lhs, sz.factors[0], dims, unknown, pending)
        _unify_dim(e.rhs, sz.factors[1], dims, unknown, pending)
        return
    pending.append((e, sz.n))


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
        doms = _arrow_domains(p.type)
        if len(doms) != 1:
            continue
        cod = _codomain(p.type)
        if cod is None or not any(_free_dims(e, unknown, dims) for e in type_dim_exprs(cod)[0]):
            continue
        exprs, elem = type_dim_exprs(doms[0])
        if not exprs or any(_free_dims(e, unknown, dims) for e in exprs):
            continue
        sizes = tuple(eval_dim(e, dims) for e in exprs)
        probe = Arr(jnp.zeros(tuple(sz.n for sz in sizes), dtype=ev.ctx.dtype), "real", dom=sizes)
        try:
            out = ev.apply(a, [probe])
        except (EvalError, NotSupported, Deferred):
            continue
        _unify_value(cod, out, dims, unknown, pending)


def _codomain(t: S.Term) -> S.Term | None:
    while isinstance(t, S.Paren):
        t = t.term
    if isinstance(t, S.BinOp) and t.op == "→":
        return t.rhs
    return None


def callable_value(v: Any) -> bool:
    """Whether a value is a function the evaluator applies (not an array or a term)."""
    return isinstance(v, Closure | Partial | Builtin) or hasattr(v, "apply_args")


def _link(
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
            known = [e for e in group if not _free_dims(e, unknown, dims)]
            if not known:
                continue
            sz = eval_dim(known[0], dims)
            for e in group:
                _unify_dim(e, sz, dims, unknown, pending)
            links.remove(group)
            _solve(pending, dims, unknown, name)
            progress = True


def _mentions(t: S.Term, names: list[str]) -> bool:
    return any(isinstance(u, S.Var | S.Ident) and u.name in names for u in S.subterms(t))


def _free_dims(e: S.Term, unknown: set[str], dims: dict[str, Sz]) -> set[str]:
    if isinstance(e, S.Var | S.Ident):
        return {e.name} if e.name in unknown and e.name not in dims else set()
    if isinstance(e, S.BinOp):
        return _free_dims(e.lhs, unknown, dims) | _free_dims(e.rhs, unknown, dims)
    if isinstance(e, S.Paren):
        return _free_dims(e.term, unknown, dims)
    return set()


def _solve(
    pending: list[tuple[S.Term, int]], dims: dict[str, Sz], unknown: set[str], name: str
) -> None:
    progress = True
    while pending and progress:
        progress = False
        for item in list(pending):
            e, n = item
            free = _free_dims(e, unknown, dims)
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
        lhs_free = bool(_free_dims(e.lhs, unknown, dims))
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
