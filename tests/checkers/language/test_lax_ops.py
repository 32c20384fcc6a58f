"""The operations bound directly as primitives (lax_ops.py, vectorise._take) compute what
the `jax.numpy` functions they stand for compute, bit for bit, with fewer equations."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from checkers.language import lax_ops as L
from checkers.language import total as T
from checkers.language.vectorise import _take


def _jaxpr(fn, *xs):
    with jax.disable_jit():
        return jax.make_jaxpr(fn)(*xs)


@pytest.mark.parametrize("c,f,i,r", list(itertools.product(range(3), repeat=4)))
def test_take_is_vmapped_jnp_take(c, f, i, r):
    rng = np.random.default_rng(c * 27 + f * 9 + i * 3 + r)
    C, F, J, R = (tuple(rng.integers(1, 4, k)) for k in (c, f, i, r))
    n = int(rng.integers(1, 5))
    data = rng.normal(size=C + F + (n,) + R)
    idx = rng.integers(-3, n + 3, size=C + J)  # out of range: clamped, as mode="clip"

    def reference(a, b):
        g = lambda a, b: jnp.take(a, b, axis=f, mode="clip")  # noqa: E731
        for _ in range(c):
            g = jax.vmap(g)
        return g(a, b)

    want = np.asarray(reference(data, idx))
    got = np.asarray(_take(jnp.asarray(data), jnp.asarray(idx), c, f))
    assert got.shape == want.shape == C + F + J + R
    np.testing.assert_array_equal(got, want)
    eqns = _jaxpr(lambda a, b: _take(a, b, c, f), data, idx).jaxpr.eqns
    assert [e.primitive.name for e in eqns] == ["broadcast_in_dim", "gather"]


SHAPES = [((3,), (3,)), ((3, 1), (1, 4)), ((2, 3), (2, 3)), ((), ())]


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
@pytest.mark.parametrize("sx,sy", SHAPES)
def test_binary_is_the_numpy_operator(op, sx, sy):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=sx), rng.normal(size=sy)
    ref = {"+": jnp.add, "-": jnp.subtract, "*": jnp.multiply, "/": jnp.true_divide}[op]
    for dt in (jnp.float64, jnp.float32):
        a, b = jnp.asarray(x, dt), jnp.asarray(y, dt)
        want = jax.jit(ref)(a, b)
        got = jax.jit(lambda u, v: L.binary(op, u, v))(a, b)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_binary_leaves_other_operands_to_jax_numpy():
    # a host constant, an integer array, a weakly typed scalar, mixed dtypes
    f32 = jnp.ones(3, jnp.float32)
    for x, y in [
        (np.ones(3), jnp.ones(3)),
        (jnp.arange(3), jnp.arange(3)),
        (jnp.ones(3), 2.0),
        (f32, jnp.ones(3)),
    ]:
        got, want = L.binary("*", x, y), jnp.multiply(x, y)
        assert got.dtype == want.dtype and got.weak_type == want.weak_type
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_select_and_compare_with_a_number():
    x = jnp.asarray([-1.5, 0.0, 2.0, np.nan])
    c = x > 0
    for first in (False, True):
        want = jnp.where(c, 7.0, x) if first else jnp.where(c, x, 7.0)
        got = L.where_scalar(c, x, 7.0, scalar_first=first)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(L.compare_scalar(">", x, 0)), np.asarray(x > 0))
    np.testing.assert_array_equal(np.asarray(L.compare_scalar("==", x, 0)), np.asarray(x == 0))
    eqns = _jaxpr(lambda v: L.where_scalar(L.compare_scalar(">", v, 0), v, 0.0), x).jaxpr.eqns
    assert "select_n" in [e.primitive.name for e in eqns] and len(eqns) <= 5


@pytest.mark.parametrize("shape_a,shape_b", [((4,), (4,)), ((4, 1), (1, 3)), ((), (4,))])
def test_real_division_is_total_and_the_same_on_the_host(shape_a, shape_b):
    rng = np.random.default_rng(1)
    a = rng.normal(size=shape_a)
    b = rng.normal(size=shape_b)
    b.flat[0] = 0.0  # x / 0 = 0
    host = T.real_div(a, b)
    traced = jax.jit(T.real_div)(jnp.asarray(a), jnp.asarray(b))
    np.testing.assert_array_equal(np.asarray(traced), host)
    assert np.asarray(host).flat[0] == 0.0
    inv = jax.jit(T.real_inv)(jnp.asarray(b))
    np.testing.assert_array_equal(np.asarray(inv), T.real_inv(b))


@pytest.mark.parametrize("sc,sx,sy", [((3,), (3,), (3,)), ((3, 1), (1, 4), (3, 4)), ((), (), ())])
def test_where_is_jnp_where(sc, sx, sy):
    rng = np.random.default_rng(2)
    c = rng.normal(size=sc) > 0
    x, y = rng.normal(size=sx), rng.normal(size=sy)
    want = jax.jit(jnp.where)(c, x, y)
    got = jax.jit(L.where)(c, x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # integers, and a host condition, are left to jax.numpy
    ints = L.where(jnp.asarray(c), jnp.ones(sx, jnp.int64), jnp.zeros(sy, jnp.int64))
    np.testing.assert_array_equal(
        np.asarray(ints), np.where(c, np.ones(sx, int), np.zeros(sy, int))
    )


def test_filled_stages_one_broadcast():
    eqns = _jaxpr(lambda: L.filled((2, 3), 0.5, jnp.float32)).jaxpr.eqns
    assert [e.primitive.name for e in eqns] == ["broadcast_in_dim"]
    value = L.filled((2, 3), 0.5, jnp.float32)
    assert value.dtype == jnp.float32 and np.all(np.asarray(value) == 0.5)
    assert L.filled((), 2.0, jnp.float64).shape == ()


def test_take_of_a_host_index_stages_only_the_gather():
    eqns = _jaxpr(lambda a: _take(a, np.array([[0, 2], [1, 1]]), 1, 0), np.ones((2, 3))).jaxpr
    assert [e.primitive.name for e in eqns.eqns] == ["gather"]


@pytest.mark.parametrize("shape_a,shape_b", [((4,), (4,)), ((4, 1), (1, 3)), ((3,), ())])
def test_division_by_a_host_constant_is_guarded_on_the_host(shape_a, shape_b):
    rng = np.random.default_rng(3)
    a = rng.normal(size=shape_a)
    b = np.asarray(rng.normal(size=shape_b))
    b.flat[0] = 0.0

    def reference(x):  # the guard as it was written: every step staged
        zero = b == 0
        return jnp.where(zero, 0.0, x / jnp.where(zero, 1.0, b))

    want = jax.jit(reference)(a)
    got = jax.jit(lambda x: T.real_div(x, b))(a)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    eqns = [e.primitive.name for e in _jaxpr(lambda x: T.real_div(x, b), a).jaxpr.eqns]
    assert "eq" not in eqns  # the zeros of a constant are not computed in the program


def test_real_sqrt_is_lean_s():
    x = np.array([-4.0, 0.0, 2.25, np.inf])
    want = jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)
    for arg in (x, jnp.asarray(x)):
        got = jax.jit(T.real_sqrt)(arg)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert np.asarray(T.real_sqrt(np.array([-1.0, 9.0]))).tolist() == [0.0, 3.0]
