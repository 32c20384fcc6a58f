"""The exact evaluation of checker programs (checkers/confirm): interval functions against
mpmath, three-valued comparisons, the hull of an undecided select, XLA's integer
semantics without wraparound, and one quantity read twice being equal to itself."""

from __future__ import annotations

import math
import time

import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest

from checkers.confirm import examine, run
from checkers.confirm import functions as fn
from checkers.confirm import intervals as iv
from checkers.confirm.rules import RULES
from checkers.confirm.values import Undecided


def _contains(x: iv.Interval, value: mpmath.mpf) -> bool:
    lo, hi = mpmath.mpf(x.lo), mpmath.mpf(x.hi)
    return bool(lo <= value <= hi)


def _width(x: iv.Interval) -> float:
    return float(mpmath.mpf(x.hi) - mpmath.mpf(x.lo))


@pytest.mark.parametrize(
    ("name", "at", "reference"),
    [
        ("exp", 1.5, mpmath.exp),
        ("exp", -746.0, mpmath.exp),  # below float64's range: no underflow here
        ("log", 3.0, mpmath.log),
        ("log1p", 1e-20, mpmath.log1p),
        ("expm1", 1e-20, mpmath.expm1),
        ("sqrt", 2.0, mpmath.sqrt),
        ("tanh", 0.7, mpmath.tanh),
        ("logistic", 822.0, lambda x: 1 / (1 + mpmath.exp(-x))),
        ("sin", 3.0, mpmath.sin),
        ("cos", 3.0, mpmath.cos),
        ("atan", 2.0, mpmath.atan),
        ("asin", 0.3, mpmath.asin),
        ("acos", 0.3, mpmath.acos),
        ("sinh", 2.0, mpmath.sinh),
        ("cosh", 2.0, mpmath.cosh),
        ("asinh", 2.0, mpmath.asinh),
        ("atanh", 0.5, mpmath.atanh),
        ("cbrt", -27.5, lambda x: -mpmath.cbrt(-x)),
        ("lgamma", 7.5, mpmath.loggamma),
    ],
)
def test_interval_functions_contain_the_value(name, at, reference) -> None:
    with mpmath.workdps(120), iv.working(200):
        got = fn.UNARY[name](iv.point(at))
        value = reference(mpmath.mpf(at))
        assert _contains(got, value), (got, value)
        assert _width(got) <= abs(float(value)) * 2.0**-190 + 2.0**-1000


def test_functions_outside_their_domain_are_the_whole_line() -> None:
    for name, at in (("log", -2.0), ("sqrt", -1.0), ("asin", 2.0), ("atanh", 1.5)):
        got = fn.UNARY[name](iv.point(at))
        assert not got.finite, name
    # XLA's log 0 is -inf, a value the program selects away (Lean's `Real.log 0 = 0`)
    assert fn.UNARY["log"](iv.point(0.0)).is_point


def test_three_valued_comparisons() -> None:
    a, b = iv.Interval(iv.point(1).lo, iv.point(2).lo), iv.Interval(iv.point(3).lo, iv.point(4).lo)
    overlap = iv.Interval(iv.point(1.5).lo, iv.point(3.5).lo)
    assert iv.less(a, b, strict=True) is True
    assert iv.less(b, a, strict=False) is False
    assert iv.less(a, overlap, strict=True) is None
    assert iv.equal(a, b) is False and iv.equal(a, overlap) is None
    assert iv.equal(iv.point(2), iv.point(2)) is True
    # an exact tie fails a strict inequality and holds a non-strict one
    assert iv.less(iv.point(2), iv.point(2), strict=True) is False
    assert iv.less(iv.point(2), iv.point(2), strict=False) is True


def test_the_certain_maximum_is_that_quantity() -> None:
    # where one operand is certainly at least the other, the maximum (minimum) is that very
    # quantity, so that comparing it with the maximum is decided however wide its interval
    a, b = iv.Interval(iv.point(1).lo, iv.point(2).lo), iv.Interval(iv.point(3).lo, iv.point(4).lo)
    assert iv.maximum(a, b) is b and iv.maximum(b, a) is b
    assert iv.minimum(a, b) is a and iv.minimum(b, a) is a
    assert iv.equal(b, iv.maximum(a, b)) is True and iv.equal(a, iv.maximum(a, b)) is False
    assert iv.less(b, b, strict=False) is True and iv.less(b, b, strict=True) is False
    # overlapping operands: a new quantity, and comparing with it stays undecided
    overlap = iv.Interval(iv.point(1.5).lo, iv.point(3.5).lo)
    top = iv.maximum(overlap, b)
    assert top is not b and top is not overlap
    assert iv.equal(b, top) is None
    # two intervals with the same endpoints are two quantities, not one
    twin = iv.Interval(b.lo, b.hi)
    assert iv.equal(b, twin) is None


def test_select_on_undecided_predicate_takes_the_hull() -> None:
    cases = (np.asarray(iv.point(0), dtype=object), np.asarray(iv.point(5), dtype=object))
    got = RULES["select_n"](np.asarray(None, dtype=object), *cases, out_kind="f").item()
    assert (float(mpmath.mpf(got.lo)), float(mpmath.mpf(got.hi))) == (0.0, 5.0)
    picked = RULES["select_n"](np.asarray(True, dtype=object), *cases, out_kind="f").item()
    assert picked is cases[1].item()
    # an undecided boolean as a float is [0, 1]
    one = RULES["convert_element_type"](
        np.asarray(None, dtype=object), new_dtype=np.float64, out_kind="f"
    ).item()
    assert (float(mpmath.mpf(one.lo)), float(mpmath.mpf(one.hi))) == (0.0, 1.0)
    # integers an undecided choice leaves apart cannot be pinned down
    ints = (np.asarray(1, dtype=object), np.asarray(2, dtype=object))
    with pytest.raises(Undecided):
        RULES["select_n"](np.asarray(None, dtype=object), *ints, out_kind="i")


def test_integers_follow_xla_without_wrapping() -> None:
    div = RULES["div"](np.asarray(-7, dtype=object), np.asarray(2, dtype=object), out_kind="i")
    rem = RULES["rem"](np.asarray(-7, dtype=object), np.asarray(2, dtype=object), out_kind="i")
    assert (div.item(), rem.item()) == (-3, -1)  # truncation toward zero, as XLA
    by_zero = RULES["div"](np.asarray(7, dtype=object), np.asarray(0, dtype=object), out_kind="i")
    assert by_zero.item() == -1
    big = RULES["mul"](np.asarray(2**62, dtype=object), np.asarray(8, dtype=object), out_kind="i")
    assert big.item() == 2**65  # ℕ and ℤ are unbounded: no int64 wraparound


def test_decimal_constants_are_widened_exact_ones_are_points() -> None:
    assert iv.constant(0.5).is_point and iv.constant(3.0).is_point
    wide = iv.constant(0.044715)
    assert not wide.is_point and _contains(wide, mpmath.mpf("0.044715"))
    assert _contains(iv.constant(math.pi), mpmath.pi)


def _trace(f, *args):
    return jax.make_jaxpr(f)(*args)


def test_lean_total_conventions_as_the_program_spells_them() -> None:
    # x / 0 = 0, Real.log 0 = 0, Real.log (-x) = Real.log x, Real.sqrt of a negative is 0:
    # the program's guards, evaluated exactly
    def lean(x):
        zero = x == 0
        safe = jnp.where(zero, 1.0, x)
        log = jnp.where(zero, 0.0, jnp.log(jnp.abs(safe)))
        return x / jnp.where(zero, 1.0, 0.0 * x + 1.0) * 0 + jnp.where(zero, 0.0, 1.0 / safe), log

    closed = _trace(lean, 1.0)
    with iv.working(200):
        inv, log = run(closed, [np.float64(0.0)])
        assert inv.item().is_point and float(mpmath.mpf(inv.item().lo)) == 0.0
        assert float(mpmath.mpf(log.item().lo)) == 0.0
        _, log_neg = run(closed, [np.float64(-2.0)])
        assert _contains(log_neg.item(), mpmath.log(2))
    sqrt = _trace(lambda x: jnp.sqrt(jnp.maximum(x, 0.0)), 1.0)
    assert run(sqrt, [np.float64(-4.0)])[0].item().is_point


def _program(lhs, rhs):
    """A one-trial program of x: (lhs, rhs, scale, underflow, held)."""
    return _trace(lambda x: (lhs(x), rhs(x), 0.0 * x, 0.0 * x, 1.0 + 0.0 * x), 1.0)


def test_examine_sees_underflow_and_saturation() -> None:
    # 3 ^ -746 underflows to 0 in float64 (log 0 = 0 then); exactly it is e^(-746 log 3)
    closed = _program(
        lambda x: jnp.log(jnp.exp(-746.0 * jnp.log(x))), lambda x: -746.0 * jnp.log(x)
    )
    exact = examine(closed, [np.float64(3.0)], "=")
    assert exact.status == "undecided"  # equal to within any interval: never a counterexample
    wrong = _program(lambda x: jnp.log(jnp.exp(-746.0 * jnp.log(x))), lambda x: -745.0 * jnp.log(x))
    assert examine(wrong, [np.float64(3.0)], "=").status == "confirmed"
    # sigmoid(822) and sigmoid(822 + 441) are both 1.0 in float64 and stay apart exactly
    sig = _program(jax.nn.sigmoid, lambda x: jax.nn.sigmoid(x + 441.0))
    assert examine(sig, [np.float64(822.0)], "≠").status != "confirmed"


def test_one_quantity_read_twice_is_equal_to_itself() -> None:
    # two traces of the same expression are one quantity: an exact tie, so `<` fails and
    # `≤` holds however wide the interval
    closed = _program(jax.nn.sigmoid, jax.nn.sigmoid)
    assert examine(closed, [np.float64(0.3)], "<").status == "confirmed"
    assert examine(closed, [np.float64(0.3)], "≤").status == "holds"


def test_equal_values_are_one_quantity() -> None:
    # exp x and exp y where x = y: inputs known exactly are numbered by their values
    closed = _trace(
        lambda x, y: (jnp.exp(x), jnp.exp(y), 0.0 * x, 0.0 * x, 1.0 + 0.0 * x), 1.0, 1.0
    )
    assert examine(closed, [np.float64(0.3), np.float64(0.3)], "<").status == "confirmed"
    assert examine(closed, [np.float64(0.3), np.float64(0.4)], "<").status == "holds"


def test_too_large_a_program_is_not_evaluated_exactly() -> None:
    def big(x):
        m = jnp.outer(x, x)
        return jnp.sum(m @ m), jnp.sum(m @ m) + 1, 0.0, 0.0, 1.0

    exact = examine(_trace(big, np.ones(200)), [np.ones(200)], "=")
    assert exact.status == "unconfirmable"
    assert "evaluated exactly" in exact.why


def test_a_reduction_counts_every_operand_it_reads() -> None:
    # one sum of an input of 250,000 numbers: its result is one number, but each operand
    # is an interval to add
    def wide(x):
        s = jnp.sum(x)
        return s, s + 1.0, 0.0, 0.0, 1.0

    x = np.ones((500, 500))
    exact = examine(_trace(wide, x), [x], "=")
    assert exact.status == "unconfirmable" and "250,00" in exact.why


def test_an_examination_stops_at_its_deadline() -> None:
    # every equation is cheap and the work small; the deadline is what stops it
    def chain(x):
        for _ in range(50):
            x = jnp.exp(jnp.log(x + 1.0))
        return x, x + 1.0, 0.0, 0.0, 1.0

    closed = _trace(chain, np.float64(1.0))
    late = examine(closed, [np.float64(1.0)], "=", deadline=time.perf_counter() - 1.0)
    assert late.status == "unconfirmable" and late.timed_out
    assert late.why == "the examination budget ran out"
    on_time = examine(closed, [np.float64(1.0)], "=", deadline=time.perf_counter() + 600.0)
    assert on_time.status == "confirmed" and not on_time.timed_out


_AT_EXACT_POINTS = {
    "pad": lambda x: jnp.pad(x, (2, 1), constant_values=3.0),
    "dynamic_slice": lambda x: jax.lax.dynamic_slice(x, (jnp.int64(1),), (2,)),
    "gather": lambda x: x[jnp.array([2, 0, 1])],
    "scatter_add": lambda x: jnp.zeros(3).at[jnp.array([0, 0, 2])].add(x[:3]),
    "dot_general": lambda x: jnp.outer(x, x) @ x,
    "cumsum": jnp.cumsum,
    "argmax": jnp.argmax,
    "reduce_max_min": lambda x: jnp.max(x) - jnp.min(x),
    "select": lambda x: jnp.where(x > 1.5, x, -x),
    "integers": lambda x: (x.astype(jnp.int64) // 2) * 3 % 5,
    "concatenate_rev": lambda x: jnp.concatenate([x, x[::-1]]),
    "transpose_reshape": lambda x: jnp.outer(x, jnp.arange(3.0)).T.reshape(-1),
    "reduce_max_of_booleans": lambda x: jnp.max(x > 2),
}


@pytest.mark.parametrize("name", list(_AT_EXACT_POINTS))
def test_rules_agree_with_jax_where_float64_is_exact(name) -> None:
    f = _AT_EXACT_POINTS[name]
    x = np.array([1.0, 3.0, 2.0, 0.5])
    got = run(_trace(f, x), [x])[0]
    want = np.asarray(f(x))

    def value(e):
        if isinstance(e, iv.Interval):
            assert e.is_point, e
            return float(mpmath.mpf(e.lo))
        return e

    assert np.array_equal(np.vectorize(value, otypes=[object])(got).astype(want.dtype), want)


def test_integer_power_too_large_is_not_evaluated() -> None:
    from checkers.confirm.values import Unconfirmable

    with pytest.raises(Unconfirmable, match="integer power"):
        RULES["pow"](np.asarray(10**9, dtype=object), np.asarray(10**9, dtype=object), out_kind="i")
    ok = RULES["pow"](np.asarray(3, dtype=object), np.asarray(50, dtype=object), out_kind="i")
    assert ok.item() == 3**50
