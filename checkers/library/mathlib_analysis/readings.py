"""Mathlib's predicates on real functions, read as the relations a numeric check tests.

A predicate such as `HasDerivAt f f' x` is not a relation, but what a numeric check can
test of it is one: `deriv f x = f'`. Each `Reading` is that relation, written as a
definition of the predicate (its parameters and its body, Lean text parsed as any
statement is), unfolded where the predicate is applied (statements/propositions.py), in a
conclusion and in a hypothesis alike, and the note the result carries: what the reading
leaves unchecked, so that a pass never says more than was tested.

- `HasDerivAt f f' x`, `HasStrictDerivAt f f' x` (Mathlib/Analysis/Calculus/Deriv/Basic.lean):
  `deriv f x = f'`. Lean's `deriv f x` is `f'` where f has that derivative at x and 0
  where f is not differentiable there; the evaluator differentiates automatically, and a
  trial at a kink decides nothing (derivatives.py). That f is differentiable at x (and
  strictly, for the second) is not checked. As a hypothesis, it defines f' (reparam.py).
- `Function.Periodic f c`, `Function.Antiperiodic f c` (Mathlib/Algebra/Periodic.lean):
  `∀ x, f (x + c) = f x` and `= -f x`, at sampled x.
- `Monotone`, `Antitone`, `StrictMono`, `StrictAnti` (Mathlib/Order/Monotone/Defs.lean),
  and their `…On s` forms on an interval: the defining implication at sampled pairs.
- `ConvexOn ℝ s f`, `ConcaveOn`, `StrictConvexOn`, `StrictConcaveOn`
  (Mathlib/Analysis/Convex/Function.lean): the defining inequality at sampled x, y of s and
  weights a and 1 - a; that s is convex (the definition's first conjunct) is not checked.

Each body is typed at ℝ → ℝ: a statement over another type (ℂ, a generic space not
instantiated at ℝ) does not unfold, and says why.

`UNREFUTABLE` names the predicates no finite sample can refute (continuity, limits,
differentiability, integrability, summability, surjectivity) and injectivity, whose premise
random pairs do not meet: a statement that is one stays `unsupported`, with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from theorem_index.model import Declaration

__all__ = ["READINGS", "UNREFUTABLE", "Reading"]


@dataclass(frozen=True)
class Reading:
    """A predicate read as a relation: its definition as Lean text, and what is not
    checked of it (`note`, carried by every result that unfolds it)."""

    name: str
    binders: str
    body: str
    note: str
    source: str

    def declaration(self) -> Declaration:
        params = " ".join(n for group in _explicit_names(self.binders) for n in group)
        return Declaration(
            name=self.name,
            kind="def",
            module=self.source,
            binders=self.binders,
            statement="Prop",
            equations=(f"{self.name} {params} = ({self.body})",),
        )


def _explicit_names(binders: str) -> list[list[str]]:
    """The names of the explicit binder groups `(a b : T)` of a binder text."""
    out: list[list[str]] = []
    depth, start = 0, -1
    for k, ch in enumerate(binders):
        if ch == "(":
            if depth == 0:
                start = k
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and start >= 0:
                inner = binders[start + 1 : k]
                out.append(inner.split(":", 1)[0].split())
    return out


_DERIV = "Mathlib/Analysis/Calculus/Deriv/Basic.lean"
_PERIODIC = "Mathlib/Algebra/Periodic.lean"
_MONOTONE = "Mathlib/Order/Monotone/Defs.lean"
_CONVEX = "Mathlib/Analysis/Convex/Function.lean"
_INT_MODEQ = "Mathlib/Data/Int/ModEq.lean"
_NAT_MODEQ = "Mathlib/Data/Nat/ModEq.lean"
_DIFFERENTIABLE = (
    "read as deriv f x = f' (Lean's deriv, 0 where f is not differentiable): that {} is "
    "differentiable at x is not checked"
)
_SAMPLED = "checked at sampled {} only"


def _monotone(name: str, rel: str, flip: bool) -> list[Reading]:
    lhs, rhs = ("f b", "f a") if flip else ("f a", "f b")
    order = "≤" if "Strict" not in name else "<"
    out = [
        Reading(
            name,
            "(f : ℝ → ℝ)",
            f"∀ a b : ℝ, a {order} b → {lhs} {rel} {rhs}",
            _SAMPLED.format("pairs a " + order + " b"),
            _MONOTONE,
        ),
        Reading(
            name + "On",
            "(f : ℝ → ℝ) (s : Set ℝ)",
            f"∀ a ∈ s, ∀ b ∈ s, a {order} b → {lhs} {rel} {rhs}",
            _SAMPLED.format("pairs a " + order + " b of s"),
            _MONOTONE,
        ),
    ]
    return out


def _convex(name: str, strict: bool, concave: bool) -> Reading:
    """`ConvexOn 𝕜 s f` and its kin (Mathlib/Analysis/Convex/Function.lean) at 𝕜 = ℝ:
    the defining inequality at sampled x, y of s and weights a, b = 1 - a (Mathlib's
    weights are any with a + b = 1, which independent draws would almost never meet)."""
    lt = "<" if strict else "≤"
    mixed, chord = "f (a * x + (1 - a) * y)", "a * f x + (1 - a) * f y"
    lhs, rhs = (chord, mixed) if concave else (mixed, chord)
    apart = "x ≠ y → " if strict else ""
    return Reading(
        name,
        "(𝕜 : Type) (s : Set ℝ) (f : ℝ → ℝ)",
        f"∀ x ∈ s, ∀ y ∈ s, {apart}∀ a : ℝ, 0 {lt} a → a {lt} 1 → {lhs} {lt} {rhs}",
        "checked at sampled x, y of s and weights a, 1 - a only; that s is convex is not checked",
        _CONVEX,
    )


_ALL: list[Reading] = [
    Reading(
        "HasDerivAt",
        "(f : ℝ → ℝ) (f' : ℝ) (x : ℝ)",
        "deriv f x = f'",
        _DIFFERENTIABLE.format("f"),
        _DERIV,
    ),
    Reading(
        "HasStrictDerivAt",
        "(f : ℝ → ℝ) (f' : ℝ) (x : ℝ)",
        "deriv f x = f'",
        _DIFFERENTIABLE.format("f (strictly)"),
        _DERIV,
    ),
    Reading(
        "Function.Periodic",
        "(f : ℝ → ℝ) (c : ℝ)",
        "∀ x : ℝ, f (x + c) = f x",
        _SAMPLED.format("x"),
        _PERIODIC,
    ),
    Reading(
        "Function.Antiperiodic",
        "(f : ℝ → ℝ) (c : ℝ)",
        "∀ x : ℝ, f (x + c) = -f x",
        _SAMPLED.format("x"),
        _PERIODIC,
    ),
    *_monotone("Monotone", "≤", False),
    *_monotone("Antitone", "≤", True),
    *_monotone("StrictMono", "<", False),
    *_monotone("StrictAnti", "<", True),
    # congruences are Mathlib's definitions themselves: nothing is left unchecked
    Reading("Int.ModEq", "(n a b : ℤ)", "a % n = b % n", "", _INT_MODEQ),
    Reading("Nat.ModEq", "(n a b : ℕ)", "a % n = b % n", "", _NAT_MODEQ),
    _convex("ConvexOn", strict=False, concave=False),
    _convex("ConcaveOn", strict=False, concave=True),
    _convex("StrictConvexOn", strict=True, concave=False),
    _convex("StrictConcaveOn", strict=True, concave=True),
]

READINGS: dict[str, Reading] = {r.name: r for r in _ALL}


# Predicates no finite sample can refute, with the reason a check gives.
_LIMIT = "a statement about limits, which no finite sample of points can refute"
_MEASURE = "a statement about integrals over a measure, which no finite sample can refute"
_SERIES = "a statement about an infinite series, which no finite sample of terms can refute"
UNREFUTABLE: dict[str, str] = {
    **dict.fromkeys(
        (
            "Continuous", "ContinuousAt", "ContinuousOn", "ContinuousWithinAt",
            "Filter.Tendsto", "Tendsto", "Differentiable", "DifferentiableAt",
            "DifferentiableOn", "DifferentiableWithinAt", "ContDiff", "ContDiffAt",
            "ContDiffOn", "ContDiffWithinAt", "AnalyticAt", "AnalyticOn", "AnalyticOnNhd",
            "AnalyticWithinAt", "HasDerivAtFilter", "HasDerivWithinAt",
            "HasStrictDerivWithinAt", "HasFDerivAt", "HasFDerivWithinAt", "HasStrictFDerivAt",
            "UniformContinuous", "LipschitzWith", "Asymptotics.IsBigO", "Asymptotics.IsLittleO",
        ),
        _LIMIT,
    ),
    **dict.fromkeys(
        (
            "IntervalIntegrable", "MeasureTheory.Integrable", "Integrable",
            "MeasureTheory.IntegrableOn", "IntegrableOn", "Measurable", "AEMeasurable",
            "AEStronglyMeasurable", "MeasureTheory.AEStronglyMeasurable",
        ),
        _MEASURE,
    ),
    **dict.fromkeys(("Summable", "HasSum", "Multipliable", "HasProd"), _SERIES),
    **dict.fromkeys(
        ("Function.Surjective", "Set.SurjOn", "SurjOn"),
        "a surjectivity, an existential for every point: a numeric check cannot search for "
        "the witnesses",
    ),
    **dict.fromkeys(
        ("Function.Injective", "Set.InjOn", "InjOn"),
        "an injectivity, whose premise f a = f b random pairs of points almost never meet",
    ),
}  # fmt: skip
