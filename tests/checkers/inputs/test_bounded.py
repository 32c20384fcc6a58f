"""Sampling inside bounds: dependency order, each kind of bound, and drawing at scale 1."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from checkers.core import Bound, InputSpec
from checkers.inputs.bounded import bounds_hold, bounds_order
from checkers.inputs.sampling import (
    draw_key,
    fin_plan,
    regimes,
    sample_batch,
    sample_trial,
    stress_scales,
    trial_scales,
)

BASE = draw_key("Proofs.t", 0, {})


def const(side: str, c: float, *, strict: bool = False, hyp: str = "h") -> Bound:
    return Bound(side, strict, (), lambda _v: np.asarray(c), f"{side} {c}", hyp, exact=True)


def draw(specs: dict[str, InputSpec], trials: int = 256) -> dict[str, np.ndarray]:
    return sample_batch(specs, fin_plan(specs, trials), BASE, range(trials))


def test_order_bounds_after_the_inputs_they_read() -> None:
    w_reads_x = Bound("lower", False, ("x",), lambda v: v["x"], "x ≤ w", "h")
    specs = {"w": InputSpec.real(bounds=(w_reads_x,)), "x": InputSpec.real()}
    assert bounds_order(specs) == ["x", "w"]
    both = Bound("lower", False, ("w",), lambda v: v["w"], "w ≤ x", "h2")
    cyclic = {"w": specs["w"], "x": InputSpec.real(bounds=(both,))}
    with pytest.raises(ValueError, match="read each other"):
        bounds_order(cyclic)


@pytest.mark.parametrize(
    ("bounds", "holds"),
    [
        ((const("lower", 0.0, strict=True),), lambda x: x > 0),
        ((const("lower", 2.0),), lambda x: x >= 2),
        ((const("upper", -1.0, strict=True),), lambda x: x < -1),
        ((const("lower", 0.0), const("upper", 1.0)), lambda x: (0 <= x) & (x <= 1)),
        (
            (const("lower", -3.0, strict=True), const("upper", -2.0, strict=True)),
            lambda x: (-3 < x) & (x < -2),
        ),  # fmt: skip
        ((const("other", 0.0),), lambda x: x != 0),
    ],
)
def test_sample_real_input_inside_constant_bounds(
    bounds: tuple[Bound, ...], holds: Callable[[np.ndarray], np.ndarray]
) -> None:
    x = draw({"x": InputSpec.real((3,), bounds=bounds)})["x"]
    assert holds(x).all()
    assert len(np.unique(x)) > 100  # still random, not pinned to the bound


def test_meet_nonstrict_bound_with_equality_sometimes() -> None:
    x = draw({"x": InputSpec.real((4,), bounds=(const("lower", 0.0), const("upper", 1.0)))})["x"]
    assert (x == 0).any() and (x == 1).any()
    rounded = Bound("lower", False, (), lambda _v: np.asarray(0.1 + 0.2), "0.1 + 0.2 ≤ x", "h")
    assert (draw({"x": InputSpec.real((4,), bounds=(rounded,))})["x"] > 0.1 + 0.2).all()
    strict = (const("lower", 0.0, strict=True), const("upper", 1.0, strict=True))
    y = draw({"y": InputSpec.real((4,), bounds=strict)})["y"]
    assert ((0 < y) & (y < 1)).all()


def test_bound_by_an_earlier_input_elementwise_and_reduced() -> None:
    # ∀ i j, |W i j| ≤ w with w drawn after W: w ≥ max |W|
    w = Bound("lower", False, ("W",), lambda v: np.abs(v["W"]).max(axis=(1, 2)), "|W| ≤ w", "hw")
    specs = {"W": InputSpec.real((2, 3)), "w": InputSpec.real(bounds=(w,))}
    got = draw(specs)
    assert (np.abs(got["W"]).max(axis=(1, 2)) <= got["w"]).all()
    # ... and W drawn within w (w first): -w ≤ W i j ≤ w, elementwise
    lo = Bound("lower", False, ("w",), lambda v: -v["w"][:, None, None], "|W| ≤ w", "hw")
    hi = Bound("upper", False, ("w",), lambda v: v["w"][:, None, None], "|W| ≤ w", "hw")
    specs = {
        "w": InputSpec.real(constraint="nonnegative"),
        "W": InputSpec.real((2, 3), bounds=(lo, hi)),
    }
    got = draw(specs)
    assert (np.abs(got["W"]) <= got["w"][:, None, None]).all()
    assert bounds_hold(specs, got)["hw"].all()


def test_bounded_input_keeps_the_trial_scale() -> None:
    x = draw({"x": InputSpec.real(bounds=(const("lower", 0.0, strict=True),))}, 64)["x"]
    scales = stress_scales(np.arange(64), "float64")
    loose = ~regimes(np.arange(64), "float64").tight  # the tight trials sit at the bound
    for s in (1e-3, 1e3):
        assert 0.05 * s < np.median(x[(scales == s) & loose]) < 5 * s


def test_skip_bound_that_is_not_finite() -> None:
    inf = Bound("upper", False, (), lambda _v: np.asarray(np.inf), "x ≤ ∞", "h")
    x = draw({"x": InputSpec.real(bounds=(inf, const("lower", 1.0)))})["x"]
    assert np.isfinite(x).all() and (x >= 1).all()


def test_unmeetable_bounds_meet_one_side_each() -> None:
    # 1 < x and x < -1: no value meets both; each is met in some trials, never together
    specs = {
        "x": InputSpec.real(
            bounds=(
                const("lower", 1.0, strict=True, hyp="h1"),
                const("upper", -1.0, strict=True, hyp="h2"),
            )
        )
    }
    held = bounds_hold(specs, draw(specs))
    assert held["h1"].any() and held["h2"].any()
    assert not (held["h1"] & held["h2"]).any()


def test_bounds_hold_reports_each_hypothesis() -> None:
    specs = {
        "x": InputSpec.real(bounds=(const("lower", 0.0, hyp="h0"), const("upper", 1.0, hyp="h1")))
    }
    batch = {"x": np.array([-1.0, 0.0, 0.5, 1.0, 2.0])}
    held = bounds_hold(specs, batch)
    assert held["h0"].tolist() == [False, True, True, True, True]
    assert held["h1"].tolist() == [True, True, True, True, False]


def test_draw_trials_at_unit_scale_on_request() -> None:
    specs = {"x": InputSpec.real((2,)), "i": InputSpec.fin(3)}
    plan = fin_plan(specs, 64)
    stressed = sample_batch(specs, plan, BASE, range(16))
    unit = trial_scales(specs, plan, range(16), "float64") != 1.0
    assert unit.any()
    redrawn = sample_batch(specs, plan, BASE, range(16), scale_as=np.where(unit, 1.0, np.nan))
    np.testing.assert_array_equal(redrawn["i"], stressed["i"])
    scales = trial_scales(specs, plan, range(16), "float64")
    np.testing.assert_allclose(redrawn["x"] * scales[:, None], stressed["x"])
    for t in np.flatnonzero(unit):
        one = sample_trial(specs, plan, BASE, int(t), scale=1.0)
        np.testing.assert_array_equal(one["x"], redrawn["x"][t])


@pytest.mark.parametrize("constraint", ["nonnegative", "positive"])
def test_an_upper_bound_alone_keeps_the_sign_constraint(constraint: str) -> None:
    # `(hu : 0 ≤ u) (hM : u ≤ 1/16)`: drawn in [0, 1/16], never below 0
    specs = {"u": InputSpec.real(constraint=constraint, bounds=(const("upper", 0.0625),))}
    u = draw(specs)["u"]
    assert u.max() <= 0.0625
    assert (u > 0).all() if constraint == "positive" else (u >= 0).all()
    assert u.std() > 0.01  # spread over the interval, not stuck at an end


def test_tight_trials_sit_on_a_bound_that_allows_equality_and_just_inside_a_strict_one() -> None:
    specs = {
        "x": InputSpec.real(bounds=(const("lower", 2.0),)),
        "e": InputSpec.real(bounds=(const("lower", 0.0, strict=True),)),
        "w": InputSpec.real((3,), bounds=(const("lower", -1.0), const("upper", 1.0))),
    }
    got = draw(specs, 64)
    tight = regimes(np.arange(64), "float64").tight
    assert tight.sum() == 20 and (got["x"][tight] == 2.0).all()
    assert (got["x"][~tight] > 2.0).mean() > 0.9  # elsewhere rarely on the bound
    e = got["e"][tight]
    assert (e > 0).all() and (e < 1e-4).all()
    assert np.isin(got["w"][tight], (-1.0, 1.0)).all()
    assert bounds_hold(specs, got)["h"].all()


def test_near_trials_draw_a_pair_the_bound_subtracts_close_together() -> None:
    # |xt - x| ≤ ea: in the near trials x is xt moved by 2^-20 of its own draw, so ea,
    # bounded below by the difference, can be small as well (the tight trials)
    diff = Bound(
        "lower",
        False,
        ("x", "xt"),
        lambda v: np.abs(v["xt"] - v["x"]),
        "|xt - x| ≤ ea",
        "hx",
        pairs=(("xt", "x"),),
    )
    specs = {"xt": InputSpec.real(), "x": InputSpec.real(), "ea": InputSpec.real(bounds=(diff,))}
    got = draw(specs, 64)
    r = regimes(np.arange(64), "float64")
    near, tight = r.near, r.tight
    gap = np.abs(got["xt"] - got["x"])
    scale = stress_scales(np.arange(64), "float64")
    assert (gap[near] < 1e-5 * scale[near]).all()  # 2^-20 of a normal draw at its scale
    assert (gap[~near] > 1e-3 * scale[~near]).mean() > 0.9
    both = near & tight
    assert both.sum() == 8 and (got["ea"][both] < 1e-4 * scale[both]).all()
    assert bounds_hold(specs, got)["hx"].all()
    # the same draw for the same trial, alone
    alone = sample_trial(specs, fin_plan(specs, 1), BASE, 12)
    assert alone["x"] == got["x"][12] and alone["ea"] == got["ea"][12]


def test_boundary_trials_mix_zero_and_one_into_inputs_within_their_domain() -> None:
    specs = {
        "x": InputSpec.real((6,)),
        "p": InputSpec.real((6,), constraint="positive"),
        "k": InputSpec.nat(2, 9),
        "w": InputSpec.real(bounds=(const("lower", 5.0),)),
    }
    got = draw(specs, 256)
    edge = regimes(np.arange(256), "float64").boundary
    x, p = got["x"][edge], got["p"][edge]
    assert (x == 0).any() and (x == 1).any() and (x == -1).any()
    assert (got["x"][~edge] != 0).all()
    assert (p > 0).all() and (p == 1).any()  # 0 and -1 become 1: the constraint holds
    assert set(got["k"][edge]) >= {2, 3} and (got["k"] >= 2).all()
    assert (got["w"] >= 5).all()  # a bounded input keeps its bounds
    # the same draw for the same trial, alone
    t = int(np.flatnonzero(edge)[0])
    alone = sample_trial(specs, fin_plan(specs, 1), BASE, t)
    assert (alone["x"] == got["x"][t]).all() and alone["k"] == got["k"][t]


def test_a_complex_number_takes_its_boundary_values_with_both_parts() -> None:
    # `z.re`, `z.im`: a complex input's parts (language/complex.py); in the boundary trials z
    # is 0, ±1, on the real axis and on its negative half (log's branch cut) together
    specs = {"z.re": InputSpec.real((4,)), "z.im": InputSpec.real((4,))}
    got = draw(specs, 256)
    edge = regimes(np.arange(256), "float64").boundary
    z = got["z.re"] + 1j * got["z.im"]
    at_edge, elsewhere = z[edge], z[~edge]
    assert (at_edge == 0).any() and (at_edge == 1).any() and (at_edge == -1).any()
    negative_axis = (at_edge.imag == 0) & (at_edge.real < 0) & (at_edge != -1)
    assert negative_axis.mean() > 0.1
    assert (elsewhere.imag != 0).all() and (elsewhere != 0).all()
    # the same draw for the same trial, alone
    t = int(np.flatnonzero(edge)[0])
    alone = sample_trial(specs, fin_plan(specs, 1), BASE, t)
    assert (alone["z.re"] == got["z.re"][t]).all() and (alone["z.im"] == got["z.im"][t]).all()
