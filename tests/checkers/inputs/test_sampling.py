"""Sampling: dims draws, keys, Fin enumeration, samplers and constraints."""

from __future__ import annotations

import numpy as np
import pytest

from checkers.core import Bound, DimConstraint, InputSpec
from checkers.inputs.regimes import ANTITHETIC, LOPSIDED_FACTOR, antithetic_sources, regimes
from checkers.inputs.sampling import (
    SAMPLERS,
    DimsError,
    draw_dims,
    draw_key,
    fin_plan,
    sample_batch,
    sample_input,
    sample_trial,
    stress_scale,
    stress_scales,
)
from checkers.inputs.streams import Stream, input_key


def test_draw_dims_distinct_small_values():
    draws = draw_dims("Proofs.t", 0, ("N", "a", "c"), draws=4)
    assert len(draws) == 4
    assert len({tuple(d.values()) for d in draws}) == 4
    for d in draws:
        assert list(d) == ["N", "a", "c"]
        assert len(set(d.values())) == 3
        assert all(1 <= v <= 5 for v in d.values())


def test_draw_dims_same_seed_same_draws():
    a = draw_dims("Proofs.t", 7, ("N", "D"), draws=4)
    assert a == draw_dims("Proofs.t", 7, ("N", "D"), draws=4)
    assert a != draw_dims("Proofs.t", 8, ("N", "D"), draws=4)
    assert a != draw_dims("Proofs.u", 7, ("N", "D"), draws=4)


def test_draw_dims_pins_and_fixed_win():
    draws = draw_dims(
        "Proofs.t", 0, ("N", "a", "c"), fixed={"c": 768}, pinned={"N": 9, "c": 2}, draws=4
    )
    assert all(d["N"] == 9 and d["c"] == 768 for d in draws)
    assert len({d["a"] for d in draws}) == 4


def test_draw_dims_pins_ignore_unknown_names():
    assert draw_dims("Proofs.t", 0, ("n",), pinned={"n": 3, "zz": 4}) == [{"n": 3}]


def test_draw_dims_respect_constraints():
    draws = draw_dims(
        "Proofs.t", 3, ("W", "P"), constraints=(DimConstraint("W", ">=", "P"),), draws=6
    )
    assert len(draws) == 6
    assert all(d["W"] >= d["P"] for d in draws)


def test_draw_dims_fewer_when_space_small():
    draws = draw_dims("Proofs.t", 0, ("n",), draws=8)
    assert sorted(d["n"] for d in draws) == [1, 2, 3, 4, 5]


def test_draw_dims_from_a_lower_value_where_given():
    draws = draw_dims("Proofs.t", 0, ("n", "len"), lows={"len": 0}, draws=4)
    assert all(d["n"] >= 1 for d in draws)
    assert draws[0]["len"] == 0  # the lower value is drawn first, when it can be
    draws = draw_dims("Proofs.t", 0, ("len",), lows={"len": 0}, draws=8)
    assert sorted(d["len"] for d in draws) == [0, 1, 2, 3, 4, 5]


def test_draw_dims_from_a_lower_value_with_many_dims():
    names = ("a", "b", "c", "d", "e", "f", "g", "len")
    draws = draw_dims("Proofs.t", 0, names, lows={"len": 0}, draws=2)
    assert len(draws) == 2
    assert all(d[n] >= 1 for d in draws for n in names[:-1])
    assert all(d["len"] >= 0 for d in draws)


def test_sample_signed_integer_arrays_in_their_range():
    spec = InputSpec.integers(-3, 3, (4,))
    x = sample_input(spec, Stream(input_key((1, 2), "xs"), range(200)))
    assert x.shape == (200, 4) and x.dtype == np.int64
    assert x.min() == -3 and x.max() == 3
    with pytest.raises(ValueError, match="int bounds are empty"):
        InputSpec.integers(2, 1)


def test_draw_dims_widen_range_for_many_dims():
    draws = draw_dims("Proofs.t", 0, ("a", "b", "c", "d", "e", "f", "g"), draws=2)
    assert all(len(set(d.values())) == 7 for d in draws)


def test_refuse_dims_unsatisfiable():
    with pytest.raises(DimsError) as info:
        draw_dims("Proofs.t", 0, ("n",), pinned={"n": 2}, constraints=(DimConstraint("n", ">", 3),))
    assert str(info.value) == "no dimensions in the given values satisfy n > 3 with n=2"


def test_dvd_constraint_follows_lean():
    c = DimConstraint("P", "dvd", "W")
    assert c.holds({"P": 2, "W": 6}) and not c.holds({"P": 4, "W": 6})
    assert DimConstraint(0, "dvd", "W").holds({"W": 0})
    assert not DimConstraint(0, "dvd", "W").holds({"W": 3})


def test_sample_trial_reproducible_per_trial():
    specs = {"x": InputSpec.real((3,)), "k": InputSpec.nat(0, 9), "m": InputSpec.index_map(4, 3)}
    plan = fin_plan(specs, 64)
    base = draw_key("Proofs.t", 0, {"n": 3})
    one = sample_trial(specs, plan, base, 5)
    batch = sample_batch(specs, plan, base, range(8))
    for name in specs:
        np.testing.assert_array_equal(batch[name][5], one[name])
    other = sample_trial(specs, plan, draw_key("Proofs.t", 1, {"n": 3}), 5)
    assert not np.array_equal(other["x"], one["x"])


@pytest.mark.parametrize("trial", [0, 7, 2**32 - 1, 2**32 + 5])
def test_trial_values_follow_documented_stream(trial):
    # input `name` of trial t is drawn from Stream(input_key(draw key, name), [t]) at the
    # trial's stress scale (an antithetic trial: the negation of its source trial's draw);
    # in a boundary trial (regimes.py) some entries are then 0, ±1 or ±2^-20 of the scale,
    # the others as drawn
    base = draw_key("Proofs.t", 3, {"n": 4})
    got = sample_trial({"γ": InputSpec.real((6,))}, fin_plan({}, 64), base, trial)["γ"]
    source, sign = antithetic_sources(np.array([trial]), "float64")
    expected = sign[0] * Stream(input_key(base, "γ"), source).standard_normal((6,))[0]
    scale = stress_scale(trial, "float64")
    if not regimes(np.array([trial]), "float64").boundary[0]:
        np.testing.assert_array_equal(got, expected * scale)
        return
    kept = got == expected * scale
    assert kept.any() and not kept.all()
    assert set(got[~kept].tolist()) <= {0.0, 1.0, -1.0, scale * 2.0**-20, -scale * 2.0**-20}


def test_sample_trial_independent_of_other_inputs():
    base = draw_key("Proofs.t", 0, {"n": 2})
    alone = sample_trial({"x": InputSpec.real((2,))}, fin_plan({}, 64), base, 3)
    specs = {"y": InputSpec.real((5,)), "x": InputSpec.real((2,))}
    together = sample_trial(specs, fin_plan(specs, 64), base, 3)
    np.testing.assert_array_equal(alone["x"], together["x"])


def test_enumerate_fin_tuples_when_small():
    specs = {"i": InputSpec.fin(2), "x": InputSpec.real(), "j": InputSpec.fin(3)}
    plan = fin_plan(specs, 8)
    assert plan.enumerated and plan.total == 6
    base = draw_key("Proofs.t", 0, {})
    tuples = [
        (int(t["i"]), int(t["j"])) for t in (sample_trial(specs, plan, base, k) for k in range(8))
    ]
    assert tuples[:6] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert tuples[6:] == [(0, 0), (0, 1)]


def test_sample_fin_when_product_exceeds_trials():
    specs = {"i": InputSpec.fin(10), "j": InputSpec.fin(10)}
    plan = fin_plan(specs, 64)
    assert not plan.enumerated
    values = sample_batch(specs, plan, draw_key("Proofs.t", 0, {}), range(64))
    assert values["i"].min() >= 0 and values["i"].max() < 10
    assert len({(int(a), int(b)) for a, b in zip(values["i"], values["j"], strict=True)}) > 30


def _stream(trials: int = 1) -> Stream:
    return Stream(input_key((1, 2, 3, 4), "x"), range(trials))


@pytest.mark.parametrize("constraint", ["positive", "nonnegative", "nonzero"])
def test_sample_real_satisfies_constraint(constraint):
    spec = InputSpec.real((1000,), constraint=constraint)
    x = sample_input(spec, _stream(3))
    assert x.shape == (3, 1000)
    ok = {"positive": x > 0, "nonnegative": x >= 0, "nonzero": x != 0}[constraint]
    assert ok.all()


def test_sample_named_distributions():
    assert set(SAMPLERS) >= {"normal", "uniform", "positive", "small_int", "zeros", "ones"}
    u = SAMPLERS["uniform"].draw(_stream(), (500,))
    assert u.shape == (1, 500) and u.min() >= -1 and u.max() <= 1
    s = SAMPLERS["small_int"].draw(_stream(), (500,))
    assert set(np.unique(s)) == {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0}
    assert (SAMPLERS["positive"].draw(_stream(), (500,)) > 0).all()
    assert (SAMPLERS["zeros"].draw(_stream(2), (3,)) == 0).all()


def test_stress_scale_only_in_float64():
    assert [stress_scale(t, "float64") for t in range(8)] == [1, 1, 1, 1, 1, 1e-3, 10, 1e3]
    assert {stress_scale(t, "float32") for t in range(8)} == {1.0}


def test_sample_input_index_map_in_range():
    m = sample_input(InputSpec.index_map(50, 4), Stream(input_key((0, 0, 0, 0), "p"), [0]))
    assert m.shape == (1, 50) and m.dtype == np.int64
    assert m.min() >= 0 and m.max() < 4
    assert set(np.unique(m)) == {0, 1, 2, 3}


def _unscaled(spec: InputSpec, base: tuple[int, ...], name: str, trials: np.ndarray) -> np.ndarray:
    """An input's draw at scale 1 in each trial, as sampling.py draws it: in an antithetic
    trial a symmetric, unconstrained input is its source trial's draw negated."""
    source, sign = antithetic_sources(trials, "float64")
    if spec.constraint is not None or spec.bounds:
        source, sign = trials, np.ones(len(trials))
    z = sample_input(spec, Stream(input_key(base, name), source))
    return z * sign.reshape(sign.shape + (1,) * (z.ndim - 1))


@pytest.mark.parametrize("size", [3, 4])
def test_stress_every_enumerated_tuple_meets_every_scale(size: int) -> None:
    spec = InputSpec.real()
    specs = {"i": InputSpec.fin(size), "x": spec}
    plan = fin_plan(specs, 64)
    base = draw_key("Proofs.t", 0, {})
    batch = sample_batch(specs, plan, base, range(64))
    unscaled = _unscaled(spec, base, "x", np.arange(64))
    regime = regimes(np.arange(64), "float64")
    scales: dict[int, set[float]] = {}
    for t in range(64):
        s = stress_scale(t, "float64")
        if regime.boundary[t] and float(batch["x"][t]) in (
            0.0,
            1.0,
            -1.0,
            s * 2.0**-20,
            -s * 2.0**-20,
        ):
            continue  # a boundary value (regimes.py), not a scaled draw
        # x, the only real input, is tiny in the lopsided trials (regimes.py)
        tiny = LOPSIDED_FACTOR if regime.lopsided[t] else 1.0
        scale = float(np.round(batch["x"][t] / unscaled[t] / tiny, 6))
        scales.setdefault(int(batch["i"][t]), set()).add(scale)
    assert scales == {i: {1.0, 1e-3, 10.0, 1e3} for i in range(size)}


def test_lopsided_trials_draw_some_inputs_tiny_beside_the_others() -> None:
    """In the lopsided trials each stressed real input without bounds is drawn at 2^-12 of the
    trial's scale one time in two, by its own stream; a bounded or unstressed input keeps its
    draw (so its bounds still hold), and no other trial is touched."""
    specs = {
        "u": InputSpec.real((3,)),
        "e": InputSpec.real((3,)),
        "w": InputSpec.real((), distribution="unit"),
        "b": InputSpec.real((), constraint="nonnegative"),
    }
    upper = Bound("upper", False, ("b",), lambda v: v["b"], "x ≤ b", "h")
    specs["x"] = InputSpec.real((), bounds=(upper,))
    trials = np.arange(256)
    plan = fin_plan(specs, 256)
    base = draw_key("Proofs.t", 0, {})
    batch = sample_batch(specs, plan, base, trials)
    regime = regimes(trials, "float64")
    scales = stress_scales(trials, "float64")
    plain = ~regime.boundary & ~regime.near & ~regime.tight
    for name in ("u", "e", "b"):
        unscaled = _unscaled(specs[name], base, name, trials)
        ratio = np.abs(batch[name][:, ...] / unscaled).reshape(len(trials), -1)[:, 0] / scales
        keep = plain & ~regime.lopsided
        assert np.allclose(ratio[keep], 1.0)
        tiny = np.isclose(ratio, LOPSIDED_FACTOR)
        assert not tiny[~regime.lopsided].any()
        share = tiny[regime.lopsided & plain].mean()
        assert 0.3 < share < 0.7, (name, share)
    assert (batch["x"] <= batch["b"]).all()  # the bound holds in every trial
    w = sample_input(specs["w"], Stream(input_key(base, "w"), trials))
    assert np.array_equal(batch["w"][~regime.boundary], w[~regime.boundary])  # never tiny
    # the only candidate of a statement is tiny in every lopsided trial
    alone = {"z": InputSpec.real((4,))}
    one = sample_batch(alone, fin_plan(alone, 256), base, trials)
    z = _unscaled(alone["z"], base, "z", trials)
    ratio = np.abs(one["z"] / z)[:, 0] / scales
    assert np.allclose(ratio[regime.lopsided & plain], LOPSIDED_FACTOR)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sample_batch_equals_trial_by_trial(dtype):
    specs = {
        "x": InputSpec.real((2, 3)),
        "e": InputSpec.real((), constraint="positive"),
        "k": InputSpec.nat(0, 9),
        "m": InputSpec.index_map(4, 3),
        "i": InputSpec.fin(3),
        "j": InputSpec.fin(5),
    }
    base = draw_key("Proofs.t", 4, {"n": 3})
    for trials in (8, 64):  # Fin tuples drawn (15 > 8) and enumerated (15 <= 64)
        plan = fin_plan(specs, trials)
        batch = sample_batch(specs, plan, base, range(trials), dtype)
        shuffled = sample_batch(specs, plan, base, range(trials - 1, -1, -1), dtype)
        for t in range(trials):
            one = sample_trial(specs, plan, base, t, dtype)
            for name in specs:
                np.testing.assert_array_equal(batch[name][t], one[name])
                np.testing.assert_array_equal(shuffled[name][trials - 1 - t], one[name])


def test_refuse_negative_trial_numbers():
    with pytest.raises(ValueError, match="non-negative"):
        sample_batch({"x": InputSpec.real()}, fin_plan({}, 1), (0, 0, 0, 0), [-1])


@pytest.mark.parametrize("seed", range(20))
def test_draw_dims_spread_every_dimension_over_draws(seed: int) -> None:
    draws = draw_dims("Proofs.vit_rowDenseW_grad_bridge", seed, ["N", "a", "c"], draws=4)
    assert len(draws) == 4
    for d in ("N", "a", "c"):
        assert len({draw[d] for draw in draws}) == 4, draws
    for draw in draws:
        assert len(set(draw.values())) == 3, draw


# draws as the straightforward enumeration (one dictionary per candidate) gave them: the
# enumeration over tuples, and the kept answers, must draw exactly the same dims
DRAWN_BEFORE = [
    (
        ("Proofs.t", 0, ("N", "a", "c")),
        {},
        [
            {"N": 1, "a": 2, "c": 4},
            {"N": 2, "a": 4, "c": 1},
            {"N": 4, "a": 1, "c": 2},
            {"N": 4, "a": 3, "c": 5},
        ],
    ),
    (
        ("Proofs.t", 3, ("N", "a", "c")),
        {"constraints": (DimConstraint("a", "<=", "N"),)},
        [
            {"N": 5, "a": 3, "c": 4},
            {"N": 4, "a": 2, "c": 1},
            {"N": 2, "a": 1, "c": 3},
            {"N": 2, "a": 2, "c": 3},  # the edge a = N (before: N 3, a 1, c 5)
        ],
    ),
    (
        ("Proofs.u", 1, ("N", "a", "c", "k")),
        {"fixed": {"c": 3}, "pinned": {"N": 2}, "lows": {"a": 0}},
        [
            {"N": 2, "a": 0, "k": 4, "c": 3},
            {"N": 2, "a": 2, "k": 5, "c": 3},
            {"N": 2, "a": 5, "k": 1, "c": 3},
            {"N": 2, "a": 3, "k": 2, "c": 3},
        ],
    ),
    (
        ("Proofs.v", 2, ("P", "W")),
        {"constraints": (DimConstraint("P", "dvd", "W"),), "draws": 3},
        [{"P": 1, "W": 4}, {"P": 1, "W": 2}, {"P": 2, "W": 4}],
    ),
    (  # past the enumeration limit: drawn at random
        ("Proofs.w", 5, tuple(f"d{i}" for i in range(8))),
        {},
        [
            {"d0": 3, "d1": 2, "d2": 8, "d3": 7, "d4": 5, "d5": 6, "d6": 4, "d7": 1},
            {"d0": 3, "d1": 1, "d2": 5, "d3": 6, "d4": 8, "d5": 4, "d6": 7, "d7": 2},
            {"d0": 5, "d1": 4, "d2": 6, "d3": 8, "d4": 7, "d5": 2, "d6": 3, "d7": 1},
            {"d0": 2, "d1": 5, "d2": 3, "d3": 1, "d4": 4, "d5": 7, "d6": 8, "d7": 6},
        ],
    ),
]


@pytest.mark.parametrize(("args", "kwargs", "expected"), DRAWN_BEFORE)
def test_draw_dims_draws_what_it_always_drew(args, kwargs, expected):
    got = draw_dims(*args, **kwargs)
    assert got == expected
    assert [list(d) for d in got] == [list(d) for d in expected]  # the keys' order too


@pytest.mark.parametrize(
    ("constraint", "edge"),
    [
        (DimConstraint("i", "<=", "n"), lambda d: d["i"] == d["n"]),
        (DimConstraint("n", ">=", "i"), lambda d: d["i"] == d["n"]),
        (DimConstraint("k", "<", "n"), lambda d: d["k"] + 1 == d["n"]),
        (DimConstraint("n", ">", 2), lambda d: d["n"] == 3),
    ],
)
@pytest.mark.parametrize("seed", range(8))
def test_draw_dims_puts_a_draw_on_each_order_constraints_edge(constraint, edge, seed) -> None:
    # `i ≤ n` is most often wrong at i = n, which draws of distinct values leave out
    names = sorted(set(constraint.names) | {"n", "m"})
    draws = draw_dims("Proofs.edge", seed, names, constraints=(constraint,))
    assert len(draws) == 4
    assert any(edge(d) for d in draws), draws
    assert all(constraint.holds(d) for d in draws)


def test_draw_dims_answers_again_with_dictionaries_of_its_own():
    from checkers.inputs.sampling import _draw_dims

    first = draw_dims("Proofs.kept", 4, ("N", "D"), fixed={"K": 2})
    hits = _draw_dims.cache_info().hits
    first[0]["N"] = 99  # a caller's change is its own
    again = draw_dims("Proofs.kept", 4, ("N", "D"), fixed={"K": 2})
    assert _draw_dims.cache_info().hits == hits + 1
    assert again[0]["N"] != 99 and again == draw_dims("Proofs.kept", 4, ("N", "D"), fixed={"K": 2})
    assert again[0] is not first[0]


def test_antithetic_trials_negate_their_source_at_the_same_scale() -> None:
    """At the extreme scales and in the second lopsided trial, a symmetric input without bounds
    or sign constraint is its source trial's draw negated: both signs of every linear form
    are drawn there (`(v·z)^3 ≤ 2 ∑ t z²` fails at scale 1e3 only where v·z > 0)."""
    specs = {"z": InputSpec.real((8,)), "p": InputSpec.real((8,), constraint="positive")}
    trials = np.arange(64)
    batch = sample_batch(specs, fin_plan(specs, 64), draw_key("Proofs.t", 0, {}), trials)
    boundary = regimes(trials, "float64").boundary
    pairs = [(t + 16 * k, s + 16 * k) for t, s in ANTITHETIC.items() for k in range(4)]
    for t, s in pairs:
        assert stress_scale(t, "float64") == stress_scale(s, "float64")
        # negated, at the same scale but for the lopsided pair, where each trial draws the
        # input tiny (2^-12 of the scale) or not on its own
        kept = np.ones(8, bool)
        if boundary[t] or boundary[s]:  # boundary values replace some entries
            kept = ~np.isin(batch["z"][t], [0.0, 1.0, -1.0]) & (np.abs(batch["z"][t]) > 1e-3)
        ratio = batch["z"][t][kept] / batch["z"][s][kept]
        assert np.allclose(ratio, ratio[0]) and ratio[0] < 0
        assert np.isclose(abs(ratio[0]), 1.0) or (t % 16 == 10)
        assert (batch["p"][t] > 0).all() and not np.array_equal(batch["p"][t], batch["p"][s])
    # every other trial draws its own values
    sources = {s for _, s in pairs} | {t for t, _ in pairs}
    rest = [t for t in range(64) if t not in sources]
    assert len({float(batch["z"][t][0]) for t in rest}) == len(rest)
    # the low-precision modes draw no antithetic trial
    low = sample_batch(specs, fin_plan(specs, 64), draw_key("Proofs.t", 0, {}), trials, "float32")
    assert not np.array_equal(low["z"][15], -low["z"][7])
