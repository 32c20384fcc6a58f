"""Lean's total arithmetic, reproduced by the evaluator."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from derived_support import evaluate, fin, nat, real, value

from checkers.language import total as T
from checkers.language.coercion import Ctx
from checkers.language.errors import EvalError
from checkers.language.powers import power
from checkers.language.values import Arr, Sz


def test_divide_real_by_zero_is_zero() -> None:
    assert value("x / 0", {"x": real(3.5)}) == 0.0
    assert value("x / y", {"x": real(3.5), "y": real(0.0)}) == 0.0
    assert value("x / y", {"x": real(3.0), "y": real(2.0)}) == 1.5


def test_invert_zero_is_zero() -> None:
    assert value("x⁻¹", {"x": real(0.0)}) == 0.0
    assert value("x⁻¹", {"x": real(4.0)}) == 0.25


def _int(k: int) -> Arr:
    return Arr(jnp.asarray(k, dtype=jnp.int64), "int")


@pytest.mark.parametrize(
    ("x", "n", "want"),
    [
        (2.0, 3, 8.0),
        (2.0, -2, 0.25),
        (-2.0, -3, -0.125),
        (0.0, 0, 1.0),
        (0.0, -1, 0.0),  # zpow of 0 at a negative exponent: Lean's 0⁻¹ = 0
        (0.0, 2, 0.0),
    ],
)
def test_integer_power_is_zpow(x: float, n: int, want: float) -> None:
    # a sampled ℤ exponent, and a literal one
    assert value("x ^ n", {"x": real(x), "n": _int(n)}) == want
    assert value(f"x ^ ({n} : ℤ)", {"x": real(x)}) == want


def test_zpow_of_zero_breaks_the_successor_law() -> None:
    # x ^ (n + 1) = x ^ n * x needs x ≠ 0 in Mathlib (zpow_add_one₀): false at 0, -1
    env = {"x": real(0.0), "n": _int(-1)}
    assert value("x ^ (n + 1)", env) == 1.0
    assert value("x ^ n * x", env) == 0.0


def test_sqrt_negative_is_zero() -> None:
    assert value("Real.sqrt x", {"x": real(-4.0)}) == 0.0
    assert value("Real.sqrt x", {"x": real(0.0)}) == 0.0
    assert value("Real.sqrt x", {"x": real(6.25)}) == 2.5


def test_log_zero_and_negative_follow_mathlib() -> None:
    assert value("Real.log x", {"x": real(0.0)}) == 0.0
    assert value("Real.log x", {"x": real(-math.e)}) == pytest.approx(1.0)
    assert value("Real.log x", {"x": real(math.e**2)}) == pytest.approx(2.0)


def test_subtract_nat_truncates_at_zero() -> None:
    assert value("a - b", {"a": nat(2), "b": nat(5)}) == 0
    assert value("a - b", {"a": nat(7), "b": nat(5)}) == 2
    traced = Arr(jnp.asarray(2), "nat")
    assert value("a - 5", {"a": traced}) == 0


def test_divide_nat_by_zero_is_zero_and_mod_zero_is_identity() -> None:
    assert value("a / b", {"a": nat(7), "b": nat(0)}) == 0
    assert value("a % b", {"a": nat(7), "b": nat(0)}) == 7
    assert value("a / b", {"a": nat(7), "b": nat(2)}) == 3
    traced = Arr(jnp.asarray(7), "nat")
    assert value("a / 0", {"a": traced}) == 0
    assert value("a % 0", {"a": traced}) == 7


def test_add_fin_wraps_mod_n() -> None:
    assert value("i + 1", {"i": fin(2, 3)}) == 0
    assert value("i + 1", {"i": fin(1, 3)}) == 2
    assert value("i - 2", {"i": fin(1, 3)}) == 2
    assert value("i * i", {"i": fin(2, 3)}) == 1


def test_read_numeral_in_fin_mod_n() -> None:
    assert value("(5 : Fin 3)") == 2
    assert value("v 7", {"v": real([10.0, 11.0, 12.0])}) == 11.0
    assert bool(value("i = 4", {"i": fin(1, 3)}))


def test_coerce_fin_arith_follows_binop_typing() -> None:
    env = {"i": fin(1, 5), "j": fin(3, 5)}
    # ↑i - ↑j at ℕ truncates, at ℝ it does not.
    assert value("↑i - ↑j", env) == 0
    assert value("(↑↑i - ↑↑j : ℝ)", env) == -2.0
    assert value("(↑↑i - ↑↑j) * x", {**env, "x": real(1.5)}) == -3.0
    assert value("↑i - 1", {"i": fin(0, 5)}) == 0


def test_read_decimal_as_exact_rational() -> None:
    v = evaluate("0.1 + 0.2 - 0.3")
    assert isinstance(v, Arr) and v.kind == "num" and v.data.exact() == 0
    assert value("(0.1 + 0.2 - 0.3 : ℝ)") == 0.0
    assert value("x * 0.044715", {"x": real(1.0)}) == pytest.approx(0.044715, abs=0, rel=1e-15)


def test_roundtrip_fin_prod_fin_equiv_row_major() -> None:
    for i in range(3):
        for j in range(4):
            k = value("finProdFinEquiv (i, j)", {"i": fin(i, 3), "j": fin(j, 4)})
            assert k == i * 4 + j
    env = {"k": Arr(jnp.asarray(9), "fin", bound=Sz.prod(Sz(3), Sz(4)))}
    assert value("(finProdFinEquiv.symm k).1", env) == 2
    assert value("(finProdFinEquiv.symm k).2", env) == 1
    assert value("finProdFinEquiv (finProdFinEquiv.symm k)", env) == 9


def test_nest_fin_prod_fin_equiv_left_associates() -> None:
    env = {"a": fin(1, 2), "b": fin(2, 3), "c": fin(3, 4)}
    assert value("finProdFinEquiv (finProdFinEquiv (a, b), c)", env) == (1 * 3 + 2) * 4 + 3


def test_split_fin_without_product_type_raises() -> None:
    with pytest.raises(EvalError, match="product"):
        evaluate("(finProdFinEquiv.symm k).1", {"k": fin(5, 12)})


def test_reverse_fin_and_succ_cast_succ() -> None:
    assert value("Fin.rev i", {"i": fin(1, 5)}) == 3
    assert value("i.succ", {"i": fin(4, 5)}) == 5
    assert value("↑i.castSucc", {"i": fin(4, 5)}) == 4
    succ = evaluate("i.succ", {"i": fin(4, 5)})
    assert succ.bound.n == 6


def test_sum_over_fin_and_range() -> None:
    v = real([1.0, 2.0, 3.0, 4.0])
    assert value("∑ i : Fin 4, v i", {"v": v}) == 10.0
    assert value("∑ i ∈ Finset.range 4, i") == 6
    assert value("∑ i : Fin 3, 2") == 6
    assert value("∏ i : Fin 4, v i", {"v": v}) == 24.0


def test_sum_body_precedence_keeps_addition_outside() -> None:
    # ∑ x, f x + g x is (∑ x, f x) + g x: here g x is a constant 10.
    v = real([1.0, 2.0, 3.0])
    assert value("∑ i : Fin 3, v i + 10", {"v": v}) == 16.0


def test_if_selects_per_index() -> None:
    v = real([-1.0, 2.0, -3.0])
    out = value("fun (i : Fin 3) => if v i > 0 then v i else 0", {"v": v})
    np.testing.assert_array_equal(out, [0.0, 2.0, 0.0])


def test_let_binds_value() -> None:
    assert value("let y := x * 2; y + y", {"x": real(1.5)}) == 6.0


def test_real_power_and_rpow() -> None:
    assert value("x ^ 3", {"x": real(2.0)}) == 8.0
    assert value("Real.rpow x y", {"x": real(0.0), "y": real(0.0)}) == 1.0
    assert value("Real.rpow x y", {"x": real(0.0), "y": real(2.0)}) == 0.0
    assert value("Real.rpow x y", {"x": real(4.0), "y": real(0.5)}) == pytest.approx(2.0)
    # a negative base: exp (log x * y) * cos (y * π), log x = log |x| (Mathlib)
    assert value("Real.rpow x y", {"x": real(-8.0), "y": real(1 / 3)}) == pytest.approx(1.0)
    assert abs(value("Real.rpow x y", {"x": real(-2.0), "y": real(0.5)})) < 1e-15


def test_max_min_abs_norm() -> None:
    assert value("max x y", {"x": real(1.0), "y": real(-2.0)}) == 1.0
    assert value("min x y", {"x": real(1.0), "y": real(-2.0)}) == -2.0
    assert value("|x|", {"x": real(-2.5)}) == 2.5
    assert value("‖v‖", {"v": real([1.0, -4.0, 2.0])}) == 4.0


@pytest.mark.parametrize(
    "f, at",
    [
        (T.real_sqrt, -1.0),
        (T.real_sqrt, 0.0),
        (lambda x: T.real_div(1.0, x), 0.0),
        (T.real_inv, 0.0),
        (T.real_log, 0.0),
        (lambda x: T.real_rpow(x, 0.5), 0.0),
        (lambda x: T.real_rpow(x, 0.5), -2.0),
    ],
)
def test_differentiate_total_op_gives_finite_gradient(f: object, at: float) -> None:
    g = jax.grad(f)(jnp.asarray(at))  # type: ignore[arg-type]
    assert np.isfinite(g)


def test_differentiate_guarded_sqrt_in_if_gives_finite_gradient() -> None:
    from derived_support import term

    from checkers.evaluator.evaluate import Evaluator
    from checkers.language.coercion import Ctx
    from checkers.library.semantics import Semantics

    t = term("if x > 0 then Real.sqrt x else 0", ("x",))
    ev = Evaluator(Semantics(), Ctx())

    def f(x: jax.Array) -> jax.Array:
        return jnp.asarray(ev.eval(t, {"x": Arr(x, "real")}).data)

    for at in (-1.0, 0.0, 4.0):
        assert np.isfinite(jax.grad(f)(jnp.asarray(at)))
    assert jax.grad(f)(jnp.asarray(4.0)) == pytest.approx(0.25)


def test_differentiate_nat_power_at_zero_gives_finite_gradient() -> None:
    def f(x: jax.Array) -> jax.Array:
        base = Arr(x, "real")
        return jnp.asarray(power(base, Arr(jnp.asarray(0), "nat"), Ctx()).data)

    assert jax.grad(f)(jnp.asarray(0.0)) == 0.0


def test_refuse_index_whose_result_exceeds_the_entry_limit() -> None:
    from checkers.language.errors import NotSupported
    from checkers.language.values import Axis
    from checkers.language.vectorise import MAX_ENTRIES, index

    a, b = Axis("a", 12_000), Axis("b", 12_000)
    assert a.size * b.size > MAX_ENTRIES
    f = Arr(jnp.zeros((12_000, 3)), "real", (a,), (Sz(3),))
    i = Arr(jnp.zeros((12_000,), dtype=jnp.int64), "fin", (b,), bound=Sz(3))
    with pytest.raises(NotSupported, match="more than the evaluator's limit"):
        index(f, i, Ctx())
    small = Arr(jnp.zeros((12_000,), dtype=jnp.int64), "fin", (a,), bound=Sz(3))
    assert index(f, small, Ctx()).shape == (12_000,)  # along the same axis: no blow-up
