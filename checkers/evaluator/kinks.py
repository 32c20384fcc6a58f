"""Where automatic differentiation is not Mathlib's derivative: a function at a kink.

Mathlib's `deriv f x` (and `fderiv`, and through it `pdiv`) is 0 where f is not
differentiable at x; JAX differentiates the branch it takes, so `deriv (fun x => |x|) 0`
is 1 there, not 0. The two agree wherever f is differentiable, and f is differentiable
wherever every non-smooth primitive it computes on a value that depends on x sits off
its kink: `abs` and `sign` off 0, `max`/`min` off a tie, `floor`/`ceil`/a conversion to
an integer off an integer, a comparison (an `if`, and the guards of Lean's total
arithmetic: `x / 0`, `Real.log 0`, `Real.sqrt` of a non-positive number) off a tie of
its sides, `sqrt` and `pow` off a zero base, a maximum off a tie of its terms.

`at_kink(jaxpr, x)` evaluates f's jaxpr (derivatives.py traces f once, for the
derivative and this test alike) at x (into the current trace, one `bind` per
equation), follows which values depend on x, and says whether any such primitive met
one of these points. A derivative taken there is no evidence either way: derivatives.py
makes it NaN, a trial the comparison cannot decide, never a fail that rests on a
differentiability the checker assumed. Conservative: a tie of a comparison that does
not change the function (`max x x`) refuses the trial too. The bodies of loops and
conditionals are not looked into (their results count as depending on x, their kinks
are not seen); the evaluator does not emit them for the functions it differentiates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from checkers.language.metered import _bind
from checkers.lazyjax import jax, jcore, jnp

# equations that call a jaxpr of their own: (primitive, the parameter holding it). A
# function with its own differentiation rule (`custom_jvp_call`, `custom_vjp_call`:
# `jnp.logaddexp`, which the log-space values use) is not looked into: its rule gives
# its derivative, whatever its body computes with (`logaddexp` takes a `max`)
_CALLS = {
    "pjit": "jaxpr",
    "jit": "jaxpr",
    "closed_call": "call_jaxpr",
    "remat": "jaxpr",
    "checkpoint": "jaxpr",
}


def _float(x: Any) -> bool:
    return jnp.issubdtype(jnp.result_type(x), jnp.floating)


def _zero(x: Any) -> Any:
    return x == 0


def _integral(x: Any) -> Any:
    return jnp.floor(x) == x if _float(x) else jnp.zeros(jnp.shape(x), bool)


def _tie(a: Any, b: Any) -> Any:
    return a == b


def _round(x: Any) -> Any:
    return jnp.abs(x - jnp.floor(x)) == 0.5


def _reduced_tie(pick: str) -> Callable[..., Any]:
    """Two terms share the maximum (or minimum: `pick`, a jnp reduction's name) that a
    reduction picks. The reduction is looked up when called: JAX loads on first use."""

    def tie(x: Any, *, axes: Sequence[int], **_: Any) -> Any:
        best = getattr(jnp, pick)(x, axis=tuple(axes), keepdims=True)
        return jnp.sum(x == best, axis=tuple(axes)) > 1

    return tie


def _clamp(lo: Any, x: Any, hi: Any) -> Any:
    return (x == lo) | (x == hi)


def _convert(x: Any, *, new_dtype: Any, **_: Any) -> Any:
    # a float to an integer (not to a float, nor to a complex number: smooth)
    if _float(x) and not jnp.issubdtype(new_dtype, jnp.inexact):
        return jnp.trunc(x) == x
    return jnp.zeros(jnp.shape(x), bool)


def _comparison(a: Any, b: Any) -> Any:
    if _float(a) or _float(b):
        return a == b
    return jnp.zeros((), bool)


def _atan2(y: Any, x: Any) -> Any:
    return (y == 0) & (x <= 0)


def _rem(x: Any, y: Any) -> Any:
    return jnp.fmod(x, y) == 0 if _float(x) else jnp.zeros(jnp.shape(x), bool)


def _sort(*xs: Any, dimension: int, **_: Any) -> Any:
    x = jnp.sort(xs[0], axis=dimension)
    n = x.shape[dimension]
    if n < 2:
        return jnp.zeros((), bool)
    a = jax.lax.slice_in_dim(x, 0, n - 1, axis=dimension)
    b = jax.lax.slice_in_dim(x, 1, n, axis=dimension)
    return a == b


# primitive -> (the points where it is not differentiable) of its operands (and params)
KINKS: dict[str, Callable[..., Any]] = {
    "abs": _zero,
    "sign": _zero,
    "sqrt": _zero,
    "rsqrt": _zero,
    "cbrt": _zero,
    "log": _zero,
    "pow": lambda x, y: (x == 0) & (y < 1),
    "div": lambda x, y: y == 0,
    "floor": _integral,
    "ceil": _integral,
    "round": lambda x, **_: _round(x),
    "max": _tie,
    "min": _tie,
    "clamp": _clamp,
    "lt": _comparison,
    "le": _comparison,
    "gt": _comparison,
    "ge": _comparison,
    "eq": _comparison,
    "ne": _comparison,
    "convert_element_type": _convert,
    "atan2": _atan2,
    "rem": _rem,
    "reduce_max": _reduced_tie("max"),
    "reduce_min": _reduced_tie("min"),
    "argmax": _reduced_tie("max"),
    "argmin": _reduced_tie("min"),
    "sort": _sort,
}
_WITH_PARAMS = frozenset(
    {"round", "convert_element_type", "reduce_max", "reduce_min", "argmax", "argmin", "sort"}
)


def at_kink(closed: jcore.ClosedJaxpr, x: Any) -> Any:
    """Whether f, the function of one argument the jaxpr `closed` computes (its first
    output), meets a point where it is not differentiable at `x` (see the module): a
    boolean in the current trace."""
    flags: list[Any] = []
    _evaluate(closed.jaxpr, closed.consts, [x], [True], [False] * len(closed.jaxpr.outvars), flags)
    if not flags:
        return jnp.zeros((), bool)
    return jnp.any(jnp.stack([jnp.any(f) for f in flags]))


def _literal(v: Any) -> bool:
    return isinstance(v, jcore.Literal)


def _body(eqn: Any) -> tuple[jcore.Jaxpr, Sequence[Any]] | None:
    """The jaxpr an equation calls (and its constants), or None."""
    name = eqn.primitive.name
    inner = eqn.params.get(_CALLS[name]) if name in _CALLS else None
    if inner is None:
        return None
    return (inner.jaxpr, inner.consts) if isinstance(inner, jcore.ClosedJaxpr) else (inner, ())


def _taint(jaxpr: jcore.Jaxpr, depends: Sequence[bool]) -> tuple[list[bool], list[bool]]:
    """Which outputs depend on x (`depends`: which inputs do), and which equations
    record a kink: a non-smooth primitive on a value that depends on x, or a call of a
    jaxpr with one."""
    tainted = {v for v, d in zip(jaxpr.invars, depends, strict=True) if d}
    kinks: list[bool] = []
    for eqn in jaxpr.eqns:
        ins = [not _literal(v) and v in tainted for v in eqn.invars]
        body = _body(eqn)
        if body is not None:
            outs, inner = _taint(body[0], ins)
            kinks.append(any(inner))
        else:
            outs = [any(ins)] * len(eqn.outvars)
            kinks.append(eqn.primitive.name in KINKS and any(ins))
        tainted.update(v for v, d in zip(eqn.outvars, outs, strict=True) if d)
    return [not _literal(v) and v in tainted for v in jaxpr.outvars], kinks


def _evaluate(
    jaxpr: jcore.Jaxpr,
    consts: Sequence[Any],
    args: Sequence[Any],
    depends: Sequence[bool],
    wanted: Sequence[bool],
    flags: list[Any],
) -> tuple[list[Any], list[bool]]:
    """The `wanted` outputs (None for the others) and which outputs depend on x, each
    kink met appended to `flags`. Only the equations that a kink's operands or a wanted
    output need are bound: the rest of f (whatever it computes after its last kink) would
    be equations of the trial's program whose values nothing reads."""
    outs_depend, kinks = _taint(jaxpr, depends)
    needed = {v for v, w in zip(jaxpr.outvars, wanted, strict=True) if w and not _literal(v)}
    live: list[list[bool] | None] = [None] * len(jaxpr.eqns)  # the outputs wanted of each
    for k in reversed(range(len(jaxpr.eqns))):
        eqn = jaxpr.eqns[k]
        used = [v in needed for v in eqn.outvars]
        if kinks[k] or eqn.effects or any(used):
            live[k] = used
            needed.update(v for v in eqn.invars if not _literal(v))
    env: dict[Any, Any] = {}
    tainted: set[Any] = set()

    def read(v: Any) -> Any:
        return v.val if _literal(v) else env[v]

    env.update(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))
    tainted.update(v for v, d in zip(jaxpr.invars, depends, strict=True) if d)
    for eqn, wanted_outs in zip(jaxpr.eqns, live, strict=True):
        if wanted_outs is None:
            continue
        invals = [read(v) for v in eqn.invars]
        ins = [not _literal(v) and v in tainted for v in eqn.invars]
        name = eqn.primitive.name
        body = _body(eqn)
        if body is not None:
            outs, inner_depend = _evaluate(body[0], body[1], invals, ins, wanted_outs, flags)
        else:
            out = _bind(eqn, invals)
            outs = list(out) if eqn.primitive.multiple_results else [out]
            inner_depend = [any(ins)] * len(outs)
            kink = KINKS.get(name)
            if kink is not None and any(ins):
                params = eqn.params if name in _WITH_PARAMS else {}
                flags.append(kink(*invals, **params))
        for v, o, d in zip(eqn.outvars, outs, inner_depend, strict=True):
            env[v] = o
            if d:
                tainted.add(v)
    outvals = [read(v) if w else None for v, w in zip(jaxpr.outvars, wanted, strict=True)]
    return outvals, outs_depend
