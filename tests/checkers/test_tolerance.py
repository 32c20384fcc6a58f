"""Tolerances: the per-dtype table, scalar and dict overrides, the elementwise comparison."""

from __future__ import annotations

import numpy as np
import pytest

from checkers import ToleranceOverride
from checkers.tolerance import TOLERANCES, Tolerance, compare, tolerance_for, validate_override


def test_tolerance_table_by_dtype():
    # relative only: atol is rtol times the dtype's smallest normal number
    assert tolerance_for("float64") == Tolerance(atol=1e-10 * 2.2250738585072014e-308, rtol=1e-10)
    assert tolerance_for("float32") == Tolerance(atol=1e-4 * 1.1754943508222875e-38, rtol=1e-4)
    assert tolerance_for("bfloat16") == Tolerance(atol=1e-1 * 1.1754943508222875e-38, rtol=1e-1)
    assert TOLERANCES["float64"].rtol < TOLERANCES["float32"].rtol < TOLERANCES["bfloat16"].rtol
    for dtype, tol in TOLERANCES.items():
        tiny = float(np.finfo(np.float32 if dtype != "float64" else np.float64).tiny)
        assert tol.atol < tiny  # below the smallest normal number: a floor, not a tolerance


def test_tolerance_scalar_override_applies_to_every_dtype():
    override = validate_override(1e-3)
    assert tolerance_for("float64", override) == Tolerance(1e-3, 1e-3)
    assert tolerance_for("bfloat16", override) == Tolerance(1e-3, 1e-3)


def test_tolerance_dict_override_by_dtype():
    override = validate_override({"atol": {"float32": 1e-4}, "rtol": 1e-6})
    assert override == ToleranceOverride(atol={"float32": 1e-4}, rtol=1e-6)
    assert tolerance_for("float32", override) == Tolerance(1e-4, 1e-6)
    assert tolerance_for("float64", override) == Tolerance(TOLERANCES["float64"].atol, 1e-6)


def test_refuse_tolerance_for_unknown_dtype():
    with pytest.raises(ValueError, match="dtype must be one of float64, float32, bfloat16"):
        tolerance_for("float16")


def test_compare_elementwise_atol_plus_rtol():
    tol = Tolerance(atol=1e-3, rtol=1e-2)
    ref = np.array([0.0, 100.0, 100.0, -5.0])
    got = np.array([5e-4, 100.9, 101.2, -5.0])
    c = compare(got, ref, tol)
    assert c.ok.tolist() == [True, True, False, True]
    np.testing.assert_allclose(c.abs_err, [5e-4, 0.9, 1.2, 0.0], atol=1e-12)
    assert c.rel_err[0] == 0.0  # reference 0: no relative error
    assert c.ratio[2] > 1 > c.ratio[1]


def test_compare_does_not_scale_with_size():
    tol = Tolerance(atol=1e-12, rtol=0.0)
    for n in (1, 10_000):
        c = compare(np.full(n, 2e-12), np.zeros(n), tol)
        assert not c.ok.any()


F64 = TOLERANCES["float64"]


def test_compare_scale_decides_tiny_and_huge_values():
    # 1e-38 against 0 is far outside rtol of either side: decided both ways
    assert not compare(np.array([1e-38]), np.array([0.0]), F64).ok.any()
    assert compare(np.array([0.0]), np.array([1e-38]), F64, relation="<").ok.all()
    assert not compare(np.array([1e-38]), np.array([0.0]), F64, relation="<").ok.any()
    # 1e30 + 1e25 differs from 1e30 by 1e-5 relative: outside rtol = 1e-10
    assert not compare(np.array([1e30 + 1e25]), np.array([1e30]), F64).ok.any()


def test_compare_scale_of_cancelled_terms_allows_their_rounding():
    # terms ~1 that cancel leave ~1e-16: within rtol of the terms, not of the result
    got, ref = np.array([2.2e-16]), np.array([0.0])
    assert not compare(got, ref, F64).ok.any()
    assert compare(got, ref, F64, scale=np.array([1.0])).ok.all()
    # the scale is per trial: it broadcasts against the trailing axes
    c = compare(np.full((2, 3), 2.2e-16), np.zeros((2, 3)), F64, scale=np.array([[1.0], [0.0]]))
    assert c.ok.tolist() == [[True] * 3, [False] * 3]


@pytest.mark.parametrize(
    "relation, holds",
    [
        ("=", [False, True, False]),
        ("≤", [True, True, False]),
        ("<", [True, False, False]),
        ("≥", [False, True, True]),
        (">", [False, False, True]),
    ],
)
def test_compare_relation_strict_excludes_ties(relation, holds):
    lhs, rhs = np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 2.0])
    c = compare(lhs, rhs, F64, relation=relation)
    assert c.ok.tolist() == holds
    assert c.tied.tolist() == ([False] * 3 if relation == "=" else [False, True, False])


def test_compare_tie_within_rounding_fails_strict_and_holds_non_strict():
    lhs, rhs = np.array([1.0 + 1e-13]), np.array([1.0])
    assert compare(rhs, lhs, F64, relation="≤").ok.all()
    assert not compare(rhs, lhs, F64, relation="<").ok.any()
    assert compare(rhs, lhs, F64, relation="<").tied.all()
    # a tie ranks above any entry that holds and below nothing that violates more
    c = compare(np.array([0.0, 1.0, 5.0]), np.array([1.0, 1.0, 1.0]), F64, relation="<")
    assert c.ratio[0] < 1 < c.ratio[1] < c.ratio[2]
    assert c.abs_err.tolist() == [0.0, 0.0, 4.0]


def test_refuse_unknown_relation():
    with pytest.raises(ValueError, match="relation must be one of =, ≤, <, ≥, >, ≠"):
        compare(np.zeros(1), np.zeros(1), F64, relation="↔")


def test_compare_not_equal_fails_ties_and_holds_differences():
    tol = TOLERANCES["float64"]
    c = compare(np.array([1.0, 1.0, 2.0]), np.array([1.0, 1.0 + 1e-14, 3.0]), tol, relation="≠")
    assert c.ok.tolist() == [False, False, True]
    assert c.tied.tolist() == [True, True, False]


def test_judge_not_equal_of_arrays_holds_where_some_entry_differs():
    from checkers.harness.verdict import judge

    lhs = np.array([[1.0, 2.0], [1.0, 2.0]])
    rhs = np.array([[1.0, 5.0], [1.0, 2.0]])
    outs = (lhs, rhs, np.zeros(2), np.zeros(2), np.ones(2))
    v = judge(outs, "float64", TOLERANCES["float64"], "≠")
    assert v.ok.tolist() == [[True, True], [False, False]]
    assert v.tied.tolist() == [[False, False], [True, True]]
