"""Derivatives measured like the rest of a statement.

A derivative (`pdiv`, `fderiv`, `deriv`, a contraction's VJP or JVP) is JAX's
transformation of the function the evaluator computes, and its additions are
JAX's: the differentiated function's own, and those of the differentiation rules
(the product rule's sum, a chain's accumulated cotangents, a transposed matrix
product). The meter (measure.py) cannot see them where they happen, so a derivative
that cancels (`deriv geluScalar` at x = -5.1: `1 + tanh u` is 4e-8 with an error of
1e-16, and the two terms of the product rule, 2e-8 and 7e-7, carry it) would be
compared as if its error were relative to its own small value, and a statement that
holds would fail.

`metered` therefore traces the transformation to a jaxpr first and evaluates its
equations into the trial's own trace, one `bind` each (those no output needs left out),
recording with the meter the operands of every additive equation (`ADDITIVE`) and the
bound on the terms of every product that sums (`SUMMED_PRODUCTS`), as the evaluator
does for its own. Nested `jit`s are evaluated equation by equation too; the bodies of
other higher-order primitives (loops, conditionals) are bound whole and not measured
inside. Without an active meter (a value computed outside a trial, or a derivative of
a derivative, whose inner values belong to another trace) it is the plain call.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from checkers.language.measure import Meter
from checkers.language.memo import Applications
from checkers.lazyjax import jax, jcore

if TYPE_CHECKING:
    from checkers.language.host import Host

# equations whose operands are the terms of an addition
ADDITIVE = frozenset({"add", "add_any", "sub", "reduce_sum", "cumsum"})
# equations that sum products of their first two operands' entries
SUMMED_PRODUCTS = frozenset({"dot_general", "conv_general_dilated"})
# equations that call a jaxpr of their own, evaluated here equation by equation
_CALLS = frozenset({"pjit", "jit"})


def metered(ev: Host, fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)`, with the additions it makes measured by the meter of `ev`'s
    context (see module). `fn` evaluates terms with `ev`: what `ev` keeps of the values
    it computes in this trace (memo.py) is set aside meanwhile, so that no value of the
    jaxpr's own trace is kept, nor one of the trial's trace taken for one of the jaxpr's."""
    meter = getattr(ev.ctx, "meter", None)
    if meter is None or not meter.active:
        return fn(*args)
    kept = ev.applications
    ev.applications = None if kept is None else Applications()
    try:
        closed, shape = jax.make_jaxpr(fn, return_shape=True)(*args)
    finally:
        ev.applications = kept
    outs = evaluate(closed, jax.tree.leaves(args), meter)
    return jax.tree.unflatten(jax.tree.structure(shape), outs)


def evaluate(closed: jcore.ClosedJaxpr, args: Sequence[Any], meter: Meter) -> list[Any]:
    """The values of the jaxpr's outputs at `args`, bound into the current trace, each
    additive equation's operands recorded with `meter`. Equations whose values no
    output needs (a JVP's primal result, a pull-back's forward output) are left out:
    measured, their additions would widen the comparison for values that are not
    compared (`f x = x * x + 1e8`: `deriv f x = 2 * x + 0.001` would pass)."""
    jaxpr = closed.jaxpr
    return _evaluate(jaxpr, closed.consts, args, meter, [True] * len(jaxpr.outvars))


def _live(jaxpr: jcore.Jaxpr, wanted: Sequence[bool]) -> tuple[list[bool], set[Any]]:
    """Which equations an output in `wanted` needs (or that have effects), and the
    variables those equations and outputs read."""
    needed = {v for v, w in zip(jaxpr.outvars, wanted, strict=True) if w and not _literal(v)}
    live = [False] * len(jaxpr.eqns)
    for k in reversed(range(len(jaxpr.eqns))):
        eqn = jaxpr.eqns[k]
        if eqn.effects or any(v in needed for v in eqn.outvars):
            live[k] = True
            needed.update(v for v in eqn.invars if not _literal(v))
    return live, needed


def _literal(v: Any) -> bool:
    return isinstance(v, jcore.Literal)


def _evaluate(
    jaxpr: jcore.Jaxpr,
    consts: Sequence[Any],
    args: Sequence[Any],
    meter: Meter,
    wanted: Sequence[bool],
) -> list[Any]:
    env: dict[Any, Any] = {}

    def read(v: Any) -> Any:
        return v.val if _literal(v) else env[v]

    env.update(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))
    live, needed_vars = _live(jaxpr, wanted)
    for eqn, needed in zip(jaxpr.eqns, live, strict=True):
        if not needed:
            continue
        invals = [read(v) for v in eqn.invars]
        name = eqn.primitive.name
        inner = eqn.params.get("jaxpr") if name in _CALLS else None
        if isinstance(inner, jcore.ClosedJaxpr):
            used = [v in needed_vars for v in eqn.outvars]
            outs = _evaluate(inner.jaxpr, inner.consts, invals, meter, used)
        else:
            if name in ADDITIVE:
                meter.operands(*invals)
            elif name in SUMMED_PRODUCTS:
                meter.term_bound(*invals[:2])
            out = _bind(eqn, invals)
            outs = list(out) if eqn.primitive.multiple_results else [out]
        env.update(zip(eqn.outvars, outs, strict=True))
    return [read(v) if w else None for v, w in zip(jaxpr.outvars, wanted, strict=True)]


def _bind(eqn: Any, invals: list[Any]) -> Any:
    """The equation's primitive applied to `invals` in the current trace, as JAX's own
    evaluation of a jaxpr does (older releases give the sub-functions apart)."""
    params = eqn.primitive.get_bind_params(eqn.params)
    subfuns: tuple[Any, ...] = ()
    if isinstance(params, tuple):
        subfuns, params = params
    ctx = getattr(eqn, "ctx", None)
    with ctx.manager if ctx is not None else contextlib.nullcontext():
        return eqn.primitive.bind(*subfuns, *invals, **params)
