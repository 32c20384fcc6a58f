"""The vocabulary pack against loop-by-loop references written from the Lean definitions."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
import pytest
from derived_support import evaluate, fin, nat, real, value

from checkers.language.values import Arr, Sz

RNG = np.random.default_rng(7)


def _flat(x: np.ndarray, *factors: int) -> Arr:
    """A vector whose type shows its size as the left-nested product of `factors`."""
    sz = Sz(factors[0])
    for f in factors[1:]:
        sz = Sz.prod(sz, Sz(f))
    return Arr(jnp.asarray(x.reshape(-1)), "real", dom=(sz,))


def test_dense_is_sum_over_inputs_plus_bias() -> None:
    W, b, x = RNG.normal(size=(3, 2)), RNG.normal(size=2), RNG.normal(size=3)
    ref = [sum(x[i] * W[i, j] for i in range(3)) + b[j] for j in range(2)]
    got = value("dense W b x", {"W": real(W), "b": real(b), "x": real(x)})
    np.testing.assert_allclose(got, ref, rtol=1e-13)


def test_mat_mul_transpose_flatten_row_major() -> None:
    A, B = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 4))
    np.testing.assert_allclose(value("Mat.mul A B", {"A": real(A), "B": real(B)}), A @ B)
    np.testing.assert_array_equal(value("Mat.transpose A", {"A": real(A)}), A.T)
    flat = value("Mat.flatten A", {"A": real(A)})
    for k in range(6):
        assert flat[k] == A[k // 3, k % 3]
    back = value("Mat.unflatten (Mat.flatten A)", {"A": real(A)})
    np.testing.assert_array_equal(back, A)


def test_tensor3_and_kernel4_flatten_index_order() -> None:
    T = RNG.normal(size=(2, 3, 4))
    flat = value("Tensor3.flatten T", {"T": real(T)})
    for c in range(2):
        for y in range(3):
            for x in range(4):
                assert flat[(c * 3 + y) * 4 + x] == T[c, y, x]
    K = RNG.normal(size=(2, 3, 2, 2))
    kflat = value("K.flatten", {"K": real(K)})
    for o in range(2):
        for c in range(3):
            for y in range(2):
                for x in range(2):
                    assert kflat[((o * 3 + c) * 2 + y) * 2 + x] == K[o, c, y, x]
    v = RNG.normal(size=24)
    np.testing.assert_array_equal(
        value("Tensor3.unflatten v", {"v": _flat(v, 2, 3, 4)}), v.reshape(2, 3, 4)
    )
    np.testing.assert_array_equal(
        value("Kernel4.unflatten v", {"v": _flat(v, 2, 3, 2, 2)}), v.reshape(2, 3, 2, 2)
    )


def test_unflatten_without_factors_raises() -> None:
    from checkers.language.errors import EvalError

    with pytest.raises(EvalError, match="factors"):
        evaluate("Mat.unflatten v", {"v": real(np.zeros(6))})


def test_activations_and_losses() -> None:
    z = np.array([0.5, -1.0, 2.0, 0.0])
    np.testing.assert_array_equal(value("relu 4 z", {"z": real(z)}), [0.5, 0.0, 2.0, 0.0])
    sm = np.exp(z) / np.exp(z).sum()
    np.testing.assert_allclose(value("softmax 4 z", {"z": real(z)}), sm, rtol=1e-14)
    np.testing.assert_array_equal(value("oneHot 4 l", {"l": fin(2, 4)}), [0, 0, 1, 0])
    assert value("crossEntropy 4 z l", {"z": real(z), "l": fin(1, 4)}) == pytest.approx(
        -math.log(sm[1]), rel=1e-14
    )
    x = 0.7
    gelu = 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    assert value("geluScalar x", {"x": real(x)}) == pytest.approx(gelu, rel=1e-15)


def test_batch_norm_family_with_total_arithmetic() -> None:
    x, dy = RNG.normal(size=5), RNG.normal(size=5)
    env = {"x": real(x), "dy": real(dy), "ε": real(0.1), "γ": real(1.3), "β": real(-0.2)}
    mu = x.mean()
    var = ((x - mu) ** 2).mean()
    xhat = (x - mu) / math.sqrt(var + 0.1)
    assert value("bnMean 5 x", env) == pytest.approx(mu, rel=1e-14)
    assert value("bnVar 5 x", env) == pytest.approx(var, rel=1e-14)
    np.testing.assert_allclose(value("bnXhat 5 ε x", env), xhat, rtol=1e-13)
    np.testing.assert_allclose(value("bnForward 5 ε γ β x", env), 1.3 * xhat - 0.2, rtol=1e-13)
    np.testing.assert_allclose(
        value("layerNormForward 5 ε γ β x", env), 1.3 * xhat - 0.2, rtol=1e-13
    )
    assert value("bn_grad_gamma 5 ε x dy", env) == pytest.approx(float(dy @ xhat), rel=1e-13)
    assert value("bn_grad_beta 5 dy", env) == pytest.approx(dy.sum(), rel=1e-14)
    # var + ε ≤ 0: √ of a non-positive is 0 and 1 / 0 = 0, so x̂ = 0.
    neg = {**env, "ε": real(-var - 1.0)}
    np.testing.assert_array_equal(value("bnXhat 5 ε x", neg), np.zeros(5))
    gv, bv = RNG.normal(size=5), RNG.normal(size=5)
    np.testing.assert_allclose(
        value("layerNormVec 5 ε gv bv x", {**env, "gv": real(gv), "bv": real(bv)}),
        gv * xhat + bv,
        rtol=1e-13,
    )


def _conv_ref(W: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    oc, ic, kH, kW = W.shape
    _, h, w = x.shape
    pH, pW = max(kH - 1, 0) // 2, max(kW - 1, 0) // 2
    out = np.zeros((oc, h, w))
    for o in range(oc):
        for hi in range(h):
            for wi in range(w):
                s = b[o]
                for c in range(ic):
                    for kh in range(kH):
                        for kw in range(kW):
                            hh, ww = kh + hi, kw + wi
                            if pH <= hh and hh - pH < h and pW <= ww and ww - pW < w:
                                s += W[o, c, kh, kw] * x[c, hh - pH, ww - pW]
                out[o, hi, wi] = s
    return out


@pytest.mark.parametrize("k", [(3, 3), (2, 3), (1, 4)])
def test_conv2d_same_padding_matches_definition(k: tuple[int, int]) -> None:
    W, b, x = RNG.normal(size=(2, 3, *k)), RNG.normal(size=2), RNG.normal(size=(3, 4, 5))
    got = value("conv2d W b x", {"W": real(W), "b": real(b), "x": real(x)})
    np.testing.assert_allclose(got, _conv_ref(W, b, x), rtol=1e-12, atol=1e-13)


def test_depthwise_conv_pool_and_average() -> None:
    W, b, x = RNG.normal(size=(3, 3, 2)), RNG.normal(size=3), RNG.normal(size=(3, 4, 6))
    ref = np.stack([_conv_ref(W[c][None, None], b[c : c + 1], x[c : c + 1])[0] for c in range(3)])
    got = value("depthwiseConv2d W b x", {"W": real(W), "b": real(b), "x": real(x)})
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-13)
    pool = value("maxPool2 x", {"x": real(x)})
    np.testing.assert_array_equal(pool, x.reshape(3, 2, 2, 3, 2).max(axis=(2, 4)))
    gap = value("globalAvgPool x", {"x": real(x)})
    np.testing.assert_allclose(gap, x.mean(axis=(1, 2)), rtol=1e-14)


def _patch_read_ref(
    ic: int, H: int, W: int, P: int, img: np.ndarray, c: int, kh: int, kw: int, p: int
) -> float:
    wq = W // P if P else 0
    hq = p // wq if wq else 0
    wr = p % wq if wq else p
    hh, ww = hq * P + kh, wr * P + kw
    return float(img[(c * H + hh) * W + ww]) if hh < H and ww < W else 0.0


@pytest.mark.parametrize("ic, H, W, P, N, D", [(2, 4, 6, 2, 7, 3), (1, 3, 2, 3, 3, 2)])
def test_patch_embed_matches_definition(ic: int, H: int, W: int, P: int, N: int, D: int) -> None:
    Wc, bc, cls = RNG.normal(size=(D, ic, P, P)), RNG.normal(size=D), RNG.normal(size=D)
    pos, img = RNG.normal(size=(N + 1, D)), RNG.normal(size=ic * H * W)
    env = {
        "Wc": real(Wc),
        "bc": real(bc),
        "cls": real(cls),
        "pos": real(pos),
        "img": _flat(img, ic, H, W),
    }
    for name, v in (("ic", ic), ("H", H), ("W", W), ("P", P), ("N", N), ("D", D)):
        env[name] = nat(v)
    got = value("patchEmbed_flat ic H W P N D Wc bc cls pos img", env)
    for n in range(N + 1):
        for d in range(D):
            if n == 0:
                ref = pos[n, d] + cls[d]
            else:
                ref = (
                    pos[n, d]
                    + bc[d]
                    + sum(
                        Wc[d, c, kh, kw] * _patch_read_ref(ic, H, W, P, img, c, kh, kw, n - 1)
                        for c in range(ic)
                        for kh in range(P)
                        for kw in range(P)
                    )
                )
            assert got[n * D + d] == pytest.approx(ref, rel=1e-12, abs=1e-13)
    for p in range(N):
        read = value(
            "patchRead ic H W P img c kh kw p",
            {
                **env,
                "c": fin(ic - 1, ic),
                "kh": fin(P - 1, P),
                "kw": fin(0, P),
                "p": Arr(jnp.asarray(p), "nat"),
            },
        )
        assert read == _patch_read_ref(ic, H, W, P, img, ic - 1, P - 1, 0, p)
