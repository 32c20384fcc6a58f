"""A short name inside a namespace whose constants are not all known: Lean looks in the
enclosing namespaces before the `open` ones, so `exp` in `namespace Circle` is
`Circle.exp` (a map to the unit circle), never the opened `Real.exp`."""

from __future__ import annotations

import pytest
from derived_support import environment

from checkers import Environment, check
from theorem_index.readers.lean_source import read_lean_source

SOURCE = """
open Complex Real

namespace Circle
theorem exp_two_pi : exp (2 * π) = 1 := sorry
theorem exp_sub_qualified (x y : ℝ) : Real.exp (x - y) = Real.exp x / Real.exp y := sorry
end Circle

namespace Complex
theorem cos_pi : cos π = -1 := sorry
end Complex

namespace Real
theorem exp_sub (x y : ℝ) : exp (x - y) = exp x / exp y := sorry
end Real

noncomputable def glue (x : ℝ) : ℝ := if x ≤ 0 then 0 else Real.exp (-x⁻¹)
namespace glue
theorem nonneg (x : ℝ) : 0 ≤ glue x := sorry
theorem max_nonneg (x : ℝ) : 0 ≤ max (glue x) 0 := sorry
end glue
"""


@pytest.fixture(scope="module")
def env() -> Environment:
    doc = read_lean_source("Namespaces.lean", SOURCE, "Namespaces.lean")
    assert not doc.errors, doc.errors
    return environment(*doc.declarations)


def test_refuse_short_name_of_unmodelled_namespace_naming_its_constant(env: Environment) -> None:
    circle = check("Circle.exp_two_pi", env, trials=16)
    assert circle.status == "unsupported"
    assert circle.reason == "no semantics for: Circle.exp"
    # ℂ is modelled (library/complex): `cos` there is Complex.cos, not the opened Real.cos
    cos = check("Complex.cos_pi", env, trials=16)
    assert cos.status == "pass", cos.reason


def test_check_opened_name_inside_modelled_namespace_or_written_qualified(
    env: Environment,
) -> None:
    assert check("Real.exp_sub", env, trials=16).status == "pass"
    assert check("Circle.exp_sub_qualified", env, trials=16).status == "pass"
    # the namespace's own declaration, where its lemmas live, and a name at the root
    assert check("glue.nonneg", env, trials=16).status == "pass"
    assert check("glue.max_nonneg", env, trials=16).status == "pass"
