"""Derivatives: `pdiv`, `fderiv`, `deriv`, and the contraction rewrite.

`pdiv f x i j = ∂ f(x)_j / ∂ x_i` (input index first) is one forward-mode
JVP of f at x along the basis vector e_i, read at j; with i ranging over a
named axis that is `jacfwd`. A sum `∑ o, pdiv f x i o * g o` is the
vector-Jacobian product (Jᵀ g)_i: one `jax.vjp` with cotangent g, and the
mirror `∑ o, pdiv f x o j * g o` is (J g)_j: one `jax.jvp` with tangent g.
No Jacobian is materialised for a contraction.

Mathlib's `fderiv` is 0 where f is not differentiable; JAX differentiates
the branch taken, so at a kink the two can differ. A derivative at a point
where f meets a kink of a non-smooth primitive (kinks.py: `|x|` at 0, a tie
of `max` or of an `if`'s comparison, the guard of `x / 0`) is not evidence: the
trial decides nothing (it counts as vacuous, its premise that the function is
differentiable there failing), rather than fail on a differentiability assumed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from checkers.evaluator.kinks import at_kink
from checkers.language.axes import broadcast_to_axes, expand, move_axis_to_dom, union_axes
from checkers.language.coercion import coerce
from checkers.language.contraction import factors
from checkers.language.errors import EvalError
from checkers.language.measure import paused
from checkers.language.memo import Applications
from checkers.language.metered import metered
from checkers.language.total import xp_of
from checkers.language.types import TFin, TReal, const_name, head_and_args
from checkers.language.values import Arr, Axis, Builtin, Sz, as_array, host_or_array, iota
from checkers.language.vectorise import index
from checkers.lazyjax import jax, jcore, jnp
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.language.host import Env, Host

PDIV_NAMES = ("Proofs.pdiv", "pdiv")


# --- free-variable test -------------------------------------------------------


def _binder_names(bs: tuple[S.Binder, ...]) -> set[str]:
    return {n for b in bs for n in b.names}


def mentions(t: Any, name: str) -> bool:
    """Whether the variable `name` occurs free in the term t."""
    if isinstance(t, S.Var | S.Ident):
        return t.name == name or t.name.startswith(name + ".")
    if isinstance(t, S.Lam) and name in _binder_names(t.binders):
        return any(mentions(b.type, name) for b in t.binders if b.type is not None)
    if isinstance(t, S.BigOp) and name in _binder_names(t.binders):
        return t.domain is not None and mentions(t.domain, name)
    if isinstance(t, S.Let) and t.name == name:
        return mentions(t.value, name)
    if isinstance(t, S.Term):
        return any(
            mentions(getattr(t, f.name), name) for f in dataclasses.fields(t) if f.name != "span"
        )
    if isinstance(t, tuple):
        return any(mentions(x, name) for x in t)
    return False


def _is_var(t: S.Term, name: str) -> bool:
    return isinstance(t, S.Var | S.Ident) and t.name == name


# --- JVP / VJP of a function value -----------------------------------------


def _as_fn(ev: Host, f: Any, x: Arr) -> tuple[Callable[[Any], Any], dict[str, Arr]]:
    box: dict[str, Arr] = {}

    def fn(xd: Any) -> Any:
        with paused(ev.ctx):  # the values here belong to the transformation's trace
            out = ev.apply(f, [x.with_(data=xd, iota=None)])
        if not isinstance(out, Arr):
            raise EvalError("differentiating a function whose values are not arrays")
        out = coerce(out, "real", ev.ctx)
        box["out"] = out
        return jnp.broadcast_to(as_array(out, ev.ctx.dtype), out.shape)

    return fn, box


def _traced(ev: Host, fn: Callable[[Any], Any], xd: Any) -> jcore.ClosedJaxpr:
    """fn's jaxpr at xd. The derivative is taken of its evaluation (`_replay`) and the kink
    test reads it (kinks.py), so the evaluator computes f once for both, not once each
    (over every 10th upstream theorem the second computation took 2.6 % of the checking
    time; the equations the check evaluates are the same). What
    `ev` keeps of the values it computes is set aside meanwhile, as metered.py does: the
    values of this trace must not be kept."""
    kept = ev.applications
    ev.applications = None if kept is None else Applications()
    try:
        return jax.make_jaxpr(fn)(xd)
    finally:
        ev.applications = kept


def _replay(closed: jcore.ClosedJaxpr) -> Callable[[Any], Any]:
    """The function the jaxpr computes: the same equations, bound in whatever trace
    (a JVP's, a VJP's, a vmap's) it is called in, as f's own evaluation there binds."""
    run = jcore.jaxpr_as_fun(closed)

    def fn(xd: Any) -> Any:
        return run(xd)[0]

    return fn


def _undefined_at_kink(ev: Host, closed: jcore.ClosedJaxpr, xd: Any, data: Any) -> Any:
    """`data`, a derivative at xd of the function `closed` computes; where it is not
    differentiable at xd (kinks.py) the trial holds vacuously (the meter records it), or,
    without a meter, NaN."""
    kink = at_kink(closed, xd)
    meter = getattr(ev.ctx, "meter", None)
    if meter is not None and meter.kink(kink):
        return data  # the trial's premise then fails (checkers/harness/trials.py)
    return jnp.where(kink, jnp.nan, data)


def _vmap_over(fn: Callable[[Any], Any], n: int) -> Callable[[Any], Any]:
    for _ in range(n):
        fn = jax.vmap(fn)
    return fn


def jvp_value(ev: Host, f: Any, x: Arr, t: Arr) -> Arr:
    """d/ds f(x + s·t) at s = 0, for every point of t's own named axes."""
    x = coerce(x, "real", ev.ctx)
    t = coerce(t, "real", ev.ctx)
    if tuple(d.n for d in t.dom) != tuple(d.n for d in x.dom):
        raise EvalError("a tangent of a different shape than the point")
    extra = tuple(a for a in t.axes if a not in x.axes)
    layout = extra + x.axes
    td = expand(t, layout, len(x.dom), ev.ctx.dtype)
    td = jnp.broadcast_to(td, tuple(a.size for a in layout) + tuple(d.n for d in x.dom))
    xd = jnp.broadcast_to(as_array(x, ev.ctx.dtype), x.shape)
    fn, box = _as_fn(ev, f, x)
    closed = _traced(ev, fn, xd)
    replay = _replay(closed)

    def one(tt: Any) -> Any:
        return jax.jvp(replay, (xd,), (tt,))[1]

    data = metered(ev, _vmap_over(one, len(extra)), td)
    out = box["out"]
    data = _undefined_at_kink(ev, closed, xd, data)
    return Arr(data, "real", extra + out.axes, out.dom)


def _pullback(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """x -> the pull-back of fn at x (a pytree of the residuals it closes over)."""

    def pull(xd: Any) -> Any:
        return jax.vjp(fn, xd)[1]

    return pull


def vjp_value(ev: Host, f: Any, x: Arr, g: Arr) -> Arr:
    """(Jᵀ g) for the Jacobian J of f at x, one VJP per point of g's extra axes."""
    x = coerce(x, "real", ev.ctx)
    g = coerce(g, "real", ev.ctx)
    xd = jnp.broadcast_to(as_array(x, ev.ctx.dtype), x.shape)
    fn, box = _as_fn(ev, f, x)
    closed = _traced(ev, fn, xd)
    pull = metered(ev, _pullback(_replay(closed)), xd)
    out = box["out"]
    more = tuple(a for a in out.axes if a not in x.axes)
    if more:
        # f varies along axes x does not: give x those axes so that the pull-back
        # does not sum over them.
        x = broadcast_to_axes(x, x.axes + more)
        fn, box = _as_fn(ev, f, x)
        xd = as_array(x)
        closed = _traced(ev, fn, xd)
        pull = metered(ev, _pullback(_replay(closed)), xd)
        out = box["out"]
    if tuple(d.n for d in g.dom) != tuple(d.n for d in out.dom):
        raise EvalError("a cotangent of a different shape than the function's values")
    extra = tuple(a for a in g.axes if a not in out.axes)
    layout = extra + out.axes
    gd = expand(g, layout, len(out.dom), ev.ctx.dtype)
    gd = jnp.broadcast_to(gd, tuple(a.size for a in layout) + tuple(d.n for d in out.dom))

    def one(gg: Any) -> Any:
        return pull(gg)[0]

    data = metered(ev, _vmap_over(one, len(extra)), gd)
    data = _undefined_at_kink(ev, closed, xd, data)
    return Arr(data, "real", extra + x.axes, x.dom)


def one_hot(i: Arr, sz: Sz, ev: Host) -> Arr:
    i = coerce(i, "fin", ev.ctx, sz)
    d = host_or_array(i)
    xp = xp_of(d)
    data = (xp.arange(sz.n) == d[..., None]).astype(ev.ctx.dtype)
    return Arr(data, "real", i.axes, (sz,))


# --- builtins -------------------------------------------------------------------


def _pdiv(ev: Host, args: tuple[Any, ...]) -> Any:
    f, x, i, j = args
    x = ev._arr(x, "pdiv")
    if len(x.dom) != 1:
        raise EvalError("pdiv at a point that is not a vector")
    col = jvp_value(ev, f, x, one_hot(ev._arr(i, "pdiv"), x.dom[0], ev))
    if len(col.dom) != 1:
        raise EvalError("pdiv of a function whose values are not vectors")
    return index(col, ev._arr(j, "pdiv"), ev.ctx)


def _pdiv_mat(ev: Host, args: tuple[Any, ...]) -> Any:
    """`pdivMat f A i j k l = ∂ f(A)_kl / ∂ A_ij`: one JVP along the unit matrix E_ij."""
    f, a, i, j, k, col_idx = args
    a = ev._arr(a, "pdivMat")
    if len(a.dom) != 2:
        raise EvalError("pdivMat at a point that is not a matrix")
    ei = one_hot(ev._arr(i, "pdivMat"), a.dom[0], ev)
    ej = one_hot(ev._arr(j, "pdivMat"), a.dom[1], ev)
    axes = union_axes(ei, ej)
    t = expand(ei, axes, 1)[..., :, None] * expand(ej, axes, 1)[..., None, :]
    col = jvp_value(ev, f, a, Arr(t, "real", axes, a.dom))
    if len(col.dom) != 2:
        raise EvalError("pdivMat of a function whose values are not matrices")
    return index(index(col, ev._arr(k, "pdivMat"), ev.ctx), ev._arr(col_idx, "pdivMat"), ev.ctx)


def _fderiv(ev: Host, args: tuple[Any, ...]) -> Any:
    _field, f, x, v = args
    return jvp_value(ev, f, ev._arr(x, "fderiv"), ev._arr(v, "fderiv"))


def _deriv(ev: Host, args: tuple[Any, ...]) -> Any:
    f, x = args
    x = ev._arr(x, "deriv")
    if x.kind == "complex" or _complex_valued(ev, f, x):
        return complex_deriv(ev, f, x)
    x = coerce(x, "real", ev.ctx)
    return jvp_value(ev, f, x, x.with_(data=jnp.ones(x.shape, ev.ctx.dtype), iota=None))


def _complex_valued(ev: Host, f: Any, x: Arr) -> bool:
    """Whether f's value at x (a real point) is complex: its derivative is then too."""
    with paused(ev.ctx):
        out = ev.apply(f, [coerce(x, "real", ev.ctx)])
    return isinstance(out, Arr) and out.kind == "complex"


# how far the Cauchy-Riemann equations may miss, relative to the derivative's size, before
# a function of ℂ is taken as not complex-differentiable at the point
CAUCHY_RIEMANN_RTOL = 1e-8


def complex_deriv(ev: Host, f: Any, x: Arr) -> Arr:
    """`deriv f x` for f : ℂ → ℂ (or ℝ → ℂ): f differentiated as a map of the real and
    imaginary parts, along the real axis, f'(x) = ∂f/∂re. Where f is a function of ℂ whose
    derivative along the imaginary axis is not i·f'(x) (the Cauchy-Riemann equations fail:
    f is not complex-differentiable there, and Mathlib's `deriv` is 0), or where f meets a
    kink, the trial decides nothing, as at a kink of a real function."""
    from checkers.language.complex import build, parts  # noqa: PLC0415

    complex_point = x.kind == "complex"
    z = coerce(x, "complex", ev.ctx)
    re, im = parts(as_array(z))
    pd = jnp.stack([jnp.broadcast_to(re, z.shape), jnp.broadcast_to(im, z.shape)], axis=-1)
    box: dict[str, Arr] = {}

    def fn(p: Any) -> Any:
        point = z.with_(data=build(p[..., 0], p[..., 1]), iota=None)
        if not complex_point:
            point = coerce(x, "real", ev.ctx).with_(data=p[..., 0], iota=None)
        with paused(ev.ctx):
            out = ev.apply(f, [point])
        if not isinstance(out, Arr):
            raise EvalError("differentiating a function whose values are not arrays")
        out = coerce(out, "complex", ev.ctx)
        box["out"] = out
        a, b = parts(jnp.broadcast_to(as_array(out), out.shape))
        return jnp.stack([a, b], axis=-1)

    closed = _traced(ev, fn, pd)
    replay = _replay(closed)
    one, zero = jnp.ones(z.shape, pd.dtype), jnp.zeros(z.shape, pd.dtype)
    along = jnp.stack([one, zero], axis=-1)
    d_re = metered(ev, lambda t: jax.jvp(replay, (pd,), (t,))[1], along)
    kink = at_kink(closed, pd)
    if complex_point:
        across = jnp.stack([zero, one], axis=-1)
        d_im = jax.jvp(replay, (pd,), (across,))[1]
        # ∂f/∂im = i ∂f/∂re: (d_im.re, d_im.im) = (-d_re.im, d_re.re)
        miss = jnp.abs(d_im[..., 0] + d_re[..., 1]) + jnp.abs(d_im[..., 1] - d_re[..., 0])
        size = jnp.abs(d_re).sum(-1) + jnp.abs(d_im).sum(-1)
        kink = kink | jnp.any(miss > CAUCHY_RIEMANN_RTOL * size + jnp.finfo(pd.dtype).tiny)
    meter = getattr(ev.ctx, "meter", None)
    data = build(d_re[..., 0], d_re[..., 1])
    if not (meter is not None and meter.kink(kink)):
        data = jnp.where(kink, jnp.nan, data)
    out = box["out"]
    return Arr(data, "complex", out.axes, out.dom)


BUILTINS = (
    Builtin("Proofs.pdiv", 4, _pdiv, ("fn", "real", "fin", "fin")),
    Builtin("Proofs.pdivMat", 6, _pdiv_mat, ("fn", "real", "fin", "fin", "fin", "fin")),
    Builtin("fderiv", 4, _fderiv, (None, "fn", "real", "real")),
    Builtin("deriv", 2, _deriv, ("fn", "real")),
)
DERIVATIVE_NAMES = frozenset(b.name for b in BUILTINS)


# --- the contraction rewrite -----------------------------------------------------


def try_contraction(ev: Host, name: str, sz: Sz, body: S.Term, env: Env) -> Arr | None:
    """`∑ name, pdiv f x i name * g name` as one VJP (or the mirror as one JVP)."""
    terms = factors(body)
    for k, fac in enumerate(terms):
        head, args = head_and_args(fac)
        if const_name(head) not in PDIV_NAMES or len(args) != 4:
            continue
        f, x, i, j = args
        if _is_var(j, name) and not any(mentions(u, name) for u in (f, x, i)):
            mode, other = "vjp", i
        elif _is_var(i, name) and not any(mentions(u, name) for u in (f, x, j)):
            mode, other = "jvp", j
        else:
            continue
        fv = ev.eval(f, env)
        xv = ev._arr(ev.eval(x, env, TReal()), "pdiv")
        if len(xv.dom) != 1:
            return None
        rest = terms[:k] + terms[k + 1 :]
        ax = Axis(name, sz.n)
        env2 = {**env, name: iota(ax, bound=sz)}
        if rest:
            prod: S.Term = rest[0]
            for r in rest[1:]:
                prod = S.BinOp("*", prod, r)
            gv = ev._arr(ev.eval(prod, env2, TReal()), "∑")
            if gv.dom:
                return None
            gv = coerce(gv, "real", ev.ctx)
        else:
            gv = Arr(jnp.ones((), ev.ctx.dtype), "real")
        gv = move_axis_to_dom(gv, ax, sz)
        if mode == "vjp":
            res = vjp_value(ev, fv, xv, gv)
            idx_sz = xv.dom[0]
        else:
            res = jvp_value(ev, fv, xv, gv)
            if len(res.dom) != 1:
                return None
            idx_sz = res.dom[0]
        iv = ev._arr(ev.eval(other, env, TFin(idx_sz)), "pdiv")
        return index(res, iv, ev.ctx)
    return None
