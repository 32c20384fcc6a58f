"""Semantics of the upstream project's vocabulary (namespace `Proofs`).

Each entry reproduces the definition in the project's Lean sources
(Foundation/Tensor.lean, Foundation/MLP.lean, Architectures/BatchNorm.lean,
LayerNorm.lean, CNN.lean, Depthwise.lean, Attention.lean, ViTClose.lean,
Certificates/SmoothingGaussian.lean),
with Lean's total arithmetic. Numeric definitions are written for one point
(plain arrays of the value's own shape) and vectorised over named axes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from checkers.pack import (
    Arr,
    Builtin,
    EvalError,
    NotSupported,
    Sz,
    as_array,
    call_vectorised,
    coerce,
    jnp,
    nat_constant,
    note_operands,
    note_terms,
    numeral_size,
    xp_of,
)
from checkers.pack import lax_ops as L
from checkers.pack import total as T

if TYPE_CHECKING:
    from checkers.pack import Evaluator


def _static(ev: Evaluator, x: Any, what: str) -> int:
    return nat_constant(ev._arr(x, what), what)


def _written_dom(
    dom: tuple[Sz, ...], specs: str, args: tuple[Any, ...], conv: list[Any]
) -> tuple[Sz, ...]:
    """The result's domain with the factors its size was written with: `relu (2 * 4 * 4) x`
    is a `Vec (2 * 4 * 4)` (a size argument of that value), else the factors of an array
    argument of the same shape; only the sizes' values come from the computation."""
    shape = tuple(x.n for x in dom)
    if len(dom) == 1:
        for s, a, c in zip(specs, args, conv, strict=True):
            if s == "d" and c == shape[0] and isinstance(a, Arr):
                return (numeral_size(a, c),)
    for s, c in zip(specs, conv, strict=True):
        if s == "r" and isinstance(c, Arr) and tuple(x.n for x in c.dom) == shape:
            return c.dom
    return dom


def _vec(
    name: str,
    specs: str,
    raw: Callable[..., Any],
    *,
    kind: str = "real",
    dom: Callable[..., tuple[Sz, ...] | None] | None = None,
) -> Builtin:
    """A numeric definition. specs, one letter per argument: 'd' a constant ℕ
    (passed as int), 'r' a real array or scalar, 'i' an index or ℕ value."""

    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        conv: list[Any] = []
        for s, a in zip(specs, args, strict=True):
            if s == "d":
                conv.append(_static(ev, a, name))
            elif s == "r":
                conv.append(coerce(ev._arr(a, name), "real", ev.ctx))
            else:
                conv.append(coerce(ev._arr(a, name), "nat", ev.ctx))
        d = dom(*conv) if dom is not None else None
        out = call_vectorised(raw, conv, kind=kind, dom=d)
        if d is None:
            out = out.with_(dom=_written_dom(out.dom, specs, args, conv), data=out.data)
        # the definitions sum internally (products, means, normalisations): their
        # terms are bounded by the product of the real arguments' magnitudes
        reals = [as_array(a) for s, a in zip(specs, conv, strict=True) if s == "r"]
        note_operands(ev.ctx, *reals)
        if len(reals) > 1:
            note_terms(ev.ctx, *reals)
        return out

    types = tuple({"d": "nat", "r": "real", "i": "fin"}[s] for s in specs)
    return Builtin(name, len(specs), fn, types)


# --- linear algebra -------------------------------------------------------------


def _dense(W: Any, b: Any, x: Any) -> Any:
    return jnp.einsum("i,ij->j", x, W) + b


def _mul_vec(Am: Any, v: Any) -> Any:
    return jnp.einsum("ij,j->i", Am, v)


def _outer(u: Any, v: Any) -> Any:
    return u[:, None] * v[None, :]


def _mat_mul(Am: Any, B: Any) -> Any:
    return jnp.einsum("ij,jk->ik", Am, B)


# --- activations and losses --------------------------------------------------


def _relu(n: int, x: Any) -> Any:
    return L.where_scalar(L.compare_scalar(">", x, 0), x, 0.0)


def _softmax(c: int, z: Any) -> Any:
    if c == 0:
        return z
    e = jnp.exp(z - jnp.max(z))
    return T.real_div(e, jnp.sum(e))


def _cross_entropy(c: int, z: Any, label: Any) -> Any:
    # -(log (softmax z)_label); the softmax is positive, so this is the
    # log-sum-exp form, free of underflow.
    m = jnp.max(z)
    lse = m + jnp.log(jnp.sum(jnp.exp(z - m)))
    return lse - jnp.take(z, label)


_GELU_C = math.sqrt(2 / math.pi)


def _gelu_scalar(x: Any) -> Any:
    return 0.5 * x * (1 + jnp.tanh(_GELU_C * (x + 0.044715 * x**3)))


def _gelu(n: int, x: Any) -> Any:
    return _gelu_scalar(x)


# --- batch / layer norm ---------------------------------------------------------


def _mean(n: int, x: Any) -> Any:
    return T.real_div(jnp.sum(x), jnp.asarray(float(n), x.dtype))


def _var(n: int, x: Any) -> Any:
    mu = _mean(n, x)
    return T.real_div(jnp.sum((x - mu) * (x - mu)), jnp.asarray(float(n), x.dtype))


def _istd(n: int, x: Any, eps: Any) -> Any:
    return T.real_div(jnp.ones((), x.dtype), T.real_sqrt(_var(n, x) + eps))


def _xhat(n: int, eps: Any, x: Any) -> Any:
    return (x - _mean(n, x)) * _istd(n, x, eps)


def _bn_forward(n: int, eps: Any, g: Any, b: Any, x: Any) -> Any:
    return g * _xhat(n, eps, x) + b


def _bn_grad_gamma(n: int, eps: Any, x: Any, dy: Any) -> Any:
    return jnp.sum(dy * _xhat(n, eps, x))


def _bn_grad_beta(n: int, dy: Any) -> Any:
    return jnp.sum(dy)


def _ln_vec(d: int, eps: Any, gv: Any, bv: Any, x: Any) -> Any:
    return gv * _bn_forward(d, eps, 1.0, 0.0, x) + bv


# --- convolutions and pooling ----------------------------------------------------


def _pad_reads(k: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For a SAME stride-1 window: source rows (k, size) and their validity."""
    p = max(k - 1, 0) // 2
    hh = np.arange(k)[:, None] + np.arange(size)[None, :]
    ok = (p <= hh) & (hh - p < size)
    return np.clip(hh - p, 0, max(size - 1, 0)), ok


def _conv2d(W: Any, b: Any, x: Any) -> Any:
    _, _, kh, kw = W.shape
    _, h, w = x.shape
    rows, rok = _pad_reads(kh, h)
    cols, cok = _pad_reads(kw, w)
    xg = x[:, rows[:, :, None, None], cols[None, None, :, :]]
    mask = (rok[:, :, None, None] & cok[None, None, :, :]).astype(x.dtype)
    return b[:, None, None] + jnp.einsum("ockl,ckhlw->ohw", W, xg * mask)


def _depthwise(W: Any, b: Any, x: Any) -> Any:
    _, kh, kw = W.shape
    _, h, w = x.shape
    rows, rok = _pad_reads(kh, h)
    cols, cok = _pad_reads(kw, w)
    xg = x[:, rows[:, :, None, None], cols[None, None, :, :]]
    mask = (rok[:, :, None, None] & cok[None, None, :, :]).astype(x.dtype)
    return b[:, None, None] + jnp.einsum("ckl,ckhlw->chw", W, xg * mask)


def _max_pool2(x: Any) -> Any:
    c, h2, w2 = x.shape
    h, w = h2 // 2, w2 // 2
    x = x[:, : 2 * h, : 2 * w].reshape(c, h, 2, w, 2)
    a = jnp.maximum(x[:, :, 0, :, 0], x[:, :, 1, :, 0])
    b = jnp.maximum(x[:, :, 0, :, 1], x[:, :, 1, :, 1])
    return jnp.maximum(a, b)


def _gap(x: Any) -> Any:
    _, h, w = x.shape
    return T.real_div(jnp.sum(x, axis=(1, 2)), jnp.asarray(float(h * w), x.dtype))


# --- patch embedding ------------------------------------------------------------------


def _patch_read(ic: int, H: int, W: int, P: int, img: Any, c: Any, kh: Any, kw: Any, p: Any) -> Any:
    """`patchRead`: pixel (c, h'·P + kh, w'·P + kw) of patch p, 0 out of range
    (ℕ arithmetic: with W / P = 0, h' = p / 0 = 0 and w' = p % 0 = p)."""
    wq = 0 if P == 0 else W // P
    hq = T.nat_div(p, wq)
    wr = T.nat_mod(p, wq)
    hh = hq * P + kh
    ww = wr * P + kw
    ok = (hh < H) & (ww < W)
    idx = (c * H + hh) * W + ww
    n = ic * H * W
    xp = xp_of(idx)
    val = jnp.take(img, xp.clip(idx, 0, max(n - 1, 0)), mode="clip") if n else 0.0
    return jnp.where(ok, val, 0.0)


def _patch_embed(
    ic: int, H: int, W: int, P: int, N: int, D: int, Wc: Any, bc: Any, cls: Any, pos: Any, img: Any
) -> Any:
    c = np.arange(ic)[:, None, None, None]
    kh = np.arange(P)[None, :, None, None]
    kw = np.arange(P)[None, None, :, None]
    p = np.arange(N)[None, None, None, :]
    read = _patch_read(ic, H, W, P, img, c, kh, kw, p)  # (ic, P, P, N)
    conv = jnp.einsum("dckl,cklp->pd", Wc, read) + bc[None, :]  # rows n = 1..N
    body = jnp.concatenate([cls[None, :], conv], axis=0)  # (N + 1, D)
    return (pos + body).reshape((N + 1) * D)


def _patch_embed_dom(ic: int, H: int, W: int, P: int, N: int, D: int, *rest: Any) -> tuple[Sz, ...]:
    return (Sz.prod(Sz(N + 1), Sz(D)),)


# --- shape plumbing (on values directly: the named axes lead, so a reshape of the
# own trailing axes is valid for every point at once) -----------------------------


def _reshape(x: Arr, dom: tuple[Sz, ...]) -> Arr:
    d = as_array(x)
    lead = d.shape[: len(x.axes)]
    return Arr(jnp.reshape(d, lead + tuple(s.n for s in dom)), x.kind, x.axes, dom, x.bound)


def _flatten(rank: int, name: str) -> Callable[..., Any]:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        x = ev._arr(args[0], name)
        if len(x.dom) != rank:
            raise EvalError(f"{name} of a {x.describe()}")
        sz = x.dom[0]
        for s in x.dom[1:]:
            sz = Sz.prod(sz, s)
        return _reshape(x, (sz,))

    return fn


def _unflatten(rank: int, name: str) -> Callable[..., Any]:
    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        x = ev._arr(args[0], name)
        if len(x.dom) != 1:
            raise EvalError(f"{name} of a {x.describe()}")
        leaves = x.dom[0].leaves()
        if len(leaves) < rank:
            raise EvalError(
                f"{name} of a vector of size {x.dom[0].n}: its type does not "
                f"show the {rank} factors of the size"
            )
        parts = _group(x.dom[0], rank)
        return _reshape(x, parts)

    return fn


def _group(sz: Sz, rank: int) -> tuple[Sz, ...]:
    """Split a left-nested product into `rank` factors (the last ones simple)."""
    out: list[Sz] = []
    cur = sz
    while len(out) < rank - 1:
        if cur.factors is None:
            raise EvalError(f"cannot split the size {sz} into {rank} factors")
        cur, last = cur.factors
        out.insert(0, last)
    out.insert(0, cur)
    return tuple(out)


def _transpose(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    x = ev._arr(args[0], "Mat.transpose")
    if len(x.dom) != 2:
        raise EvalError(f"Mat.transpose of a {x.describe()}")
    return Arr(jnp.swapaxes(as_array(x), -1, -2), x.kind, x.axes, (x.dom[1], x.dom[0]), x.bound)


def _basis_vec(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    i = ev._arr(args[0], "basisVec")
    if i.kind != "fin" or i.bound is None:
        raise EvalError("basisVec of an index whose bound is unknown")
    from checkers.pack import one_hot

    return one_hot(i, i.bound, ev)


def _one_hot_b(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    c = _static(ev, args[0], "oneHot")
    label = coerce(ev._arr(args[1], "oneHot"), "fin", ev.ctx, Sz(c))
    from checkers.pack import one_hot

    return one_hot(label, Sz(c), ev)


# --- the Gaussian quantile (Certificates/SmoothingGaussian.lean) -----------------------


def _std_normal_quantile(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`stdNormalQuantile p = sSup {t | stdNormalCDF t < p}`: Φ⁻¹(p) on (0, 1), else 0
    (the supremum of ∅, or of all of ℝ, is 0 in Lean). Only of a constant: Φ⁻¹ is
    ill-conditioned near 0 and 1 (its slope is 1/φ), so a computed argument, rounded,
    does not determine it (Φ(10) rounds to 1, whose quantile is 0)."""
    p = coerce(ev._arr(args[0], "stdNormalQuantile"), "real", ev.ctx)
    if p.log or not isinstance(p.data, np.ndarray | np.generic):
        raise NotSupported(
            "stdNormalQuantile of a value computed in the trial: Φ⁻¹ is ill-conditioned "
            "near 0 and 1 (its slope is 1/φ), so a rounded argument does not determine "
            "it; only constant arguments are checked"
        )
    import scipy.special  # a fifth of a second to import: only where a quantile is asked

    d = np.asarray(p.data, dtype=np.float64)
    inside = (d > 0) & (d < 1)
    q = np.where(inside, scipy.special.ndtri(np.where(inside, d, 0.5)), 0.0)
    return p.with_(data=np.asarray(q, dtype=p.data.dtype), iota=None)


VOCABULARY: tuple[Builtin, ...] = (
    _vec("Proofs.dense", "rrr", _dense),
    _vec("Proofs.Mat.mulVec", "rr", _mul_vec),
    _vec("Proofs.Mat.outer", "rr", _outer),
    _vec("Proofs.Mat.mul", "rr", _mat_mul),
    Builtin("Proofs.Mat.transpose", 1, _transpose),
    Builtin("Proofs.Mat.flatten", 1, _flatten(2, "Mat.flatten")),
    Builtin("Proofs.Mat.unflatten", 1, _unflatten(2, "Mat.unflatten")),
    Builtin("Proofs.Tensor3.flatten", 1, _flatten(3, "Tensor3.flatten")),
    Builtin("Proofs.Tensor3.unflatten", 1, _unflatten(3, "Tensor3.unflatten")),
    Builtin("Proofs.Kernel4.flatten", 1, _flatten(4, "Kernel4.flatten")),
    Builtin("Proofs.Kernel4.unflatten", 1, _unflatten(4, "Kernel4.unflatten")),
    Builtin("Proofs.basisVec", 1, _basis_vec, ("fin",)),
    _vec("Proofs.relu", "dr", _relu),
    _vec("Proofs.softmax", "dr", _softmax),
    Builtin("Proofs.oneHot", 2, _one_hot_b, ("nat", "fin")),
    _vec("Proofs.crossEntropy", "dri", _cross_entropy),
    _vec("Proofs.geluScalar", "r", _gelu_scalar),
    _vec("Proofs.gelu", "dr", _gelu),
    _vec("Proofs.bnMean", "dr", _mean),
    _vec("Proofs.bnVar", "dr", _var),
    _vec("Proofs.bnIstd", "drr", _istd),
    _vec("Proofs.bnXhat", "drr", _xhat),
    _vec("Proofs.bnForward", "drrrr", _bn_forward),
    _vec("Proofs.layerNormForward", "drrrr", _bn_forward),
    _vec("Proofs.bn_grad_gamma", "drrr", _bn_grad_gamma),
    _vec("Proofs.bn_grad_beta", "dr", _bn_grad_beta),
    _vec("Proofs.layerNormVec", "drrrr", _ln_vec),
    _vec("Proofs.conv2d", "rrr", _conv2d),
    _vec("Proofs.depthwiseConv2d", "rrr", _depthwise),
    _vec("Proofs.maxPool2", "r", _max_pool2),
    _vec("Proofs.globalAvgPool", "r", _gap),
    _vec("Proofs.patchRead", "ddddriiii", _patch_read),
    _vec("Proofs.patchEmbed_flat", "ddddddrrrrr", _patch_embed, dom=_patch_embed_dom),
    Builtin("Proofs.stdNormalQuantile", 1, _std_normal_quantile, ("real",), implicit=0),
)


def pack() -> tuple[Builtin, ...]:
    """The pack's entry point (pyproject.toml, group `proofbridge.vocabulary`): registers
    the project's structure samplers (`FloatModel`, float_model.py) and gives its
    constants."""
    import proofbridge_lean4_mlir.float_model  # noqa: F401  (registers the FloatModel sampler)

    return VOCABULARY
