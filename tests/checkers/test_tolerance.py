"""Tolerances: the per-dtype table, scalar and dict overrides, the elementwise comparison."""

from __future__ import annotations

import numpy as np
import pytest

from checkers import ToleranceOverride
from checkers.tolerance import TOLERANCES, Tolerance, compare, tolerance_for, validate_override


def test_tolerance_table_by_dtype():
    assert tolerance_for("float64") == Tolerance(atol=1e-12, rtol=1e-10)
    assert tolerance_for("float32") == Tolerance(atol=1e-5, rtol=1e-4)
    assert tolerance_for("bfloat16") == Tolerance(atol=5e-2, rtol=1e-1)
    assert TOLERANCES["float64"].atol < TOLERANCES["float32"].atol < TOLERANCES["bfloat16"].atol


def test_tolerance_scalar_override_applies_to_every_dtype():
    override = validate_override(1e-3)
    assert tolerance_for("float64", override) == Tolerance(1e-3, 1e-3)
    assert tolerance_for("bfloat16", override) == Tolerance(1e-3, 1e-3)


def test_tolerance_dict_override_by_dtype():
    override = validate_override({"atol": {"float32": 1e-4}, "rtol": 1e-6})
    assert override == ToleranceOverride(atol={"float32": 1e-4}, rtol=1e-6)
    assert tolerance_for("float32", override) == Tolerance(1e-4, 1e-6)
    assert tolerance_for("float64", override) == Tolerance(1e-12, 1e-6)


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
