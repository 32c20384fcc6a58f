"""The derived checker of one theorem: its statement's relation as a pure JAX function.

`DerivedChecker.build(dims, dtype)` is one trial's inputs -> (lhs, rhs), the two sides
of the relation the harness compares (checkers/tolerance.py); `build_measured` adds the
trial's scale and underflow (measure.py), and `build_premise` which trials hold
vacuously. The inputs are the binders as planned (binders.py), drawn and bound as
trial_inputs.py says: real arrays, indices, ℕ values, and binders drawn by a sampler
(structures.py, drawn_functions.py, drawn_lists.py: integers, and lists whose lengths
are dimensions).
`derive.py` builds these from a statement; this module is what they are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from checkers.core import DimConstraint, ToleranceOverride
from checkers.evaluator.derivatives import DERIVATIVE_NAMES
from checkers.evaluator.evaluate import Evaluator
from checkers.exact.sides import EXACT, exact_sides, list_sides
from checkers.language.arith import select
from checkers.language.coercion import Ctx, coerce, settle
from checkers.language.complex import as_parts, on_circle
from checkers.language.errors import EvalError, NotSupported
from checkers.language.measure import Meter, paused
from checkers.language.notation import constants_in
from checkers.language.types import value_type
from checkers.language.values import Arr, Lst, as_array
from checkers.lazyjax import jax, jnp
from checkers.library.semantics import Semantics
from checkers.premises.binders import Plan
from checkers.premises.drawn_functions import covers
from checkers.premises.drawn_lists import int_note, list_note
from checkers.premises.holding import per_trial, premise_fn
from checkers.statements.readings import harness_relation, reading_note, truth_values
from checkers.statements.trial_inputs import TrialInputs, sampler_of
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

VERSION = "derived-1"


@dataclass
class DerivedChecker(TrialInputs):
    name: str
    statement: S.BinOp  # `A R B`, after the binders are peeled
    plan: Plan
    semantics: Semantics
    dependencies: tuple[str, ...]
    version: str
    kind: str = "derived"
    tolerance: ToleranceOverride | None = None
    # how often each per-trial hypothesis held when the checker was derived (premises.py)
    premise_notes: tuple[str, ...] = ()
    # the predicates unfolded to reach the statement (propositions.py)
    unfolded: tuple[str, ...] = ()
    _sizes: dict[tuple[tuple[str, int], ...], dict[str, Any]] = field(default_factory=dict)
    _decided: dict[int | None, Any] = field(default_factory=dict)  # `decide_exactly`, by limit

    # --- protocol -------------------------------------------------------------

    @property
    def dim_names(self) -> tuple[str, ...]:
        return tuple(self.plan.dims)

    @property
    def relation(self) -> str:
        """How the harness compares the two sides: '=', '≤', '<', '≥', '>' or '≠'
        (`↔`: its sides' truth values by '='; readings.py)."""
        return harness_relation(self.statement.op)

    @property
    def program_identity(self) -> str:
        """What this checker's programs are built from: its version (the declaration and
        the definitions it uses) and the clause and binder plan it evaluates. The
        clauses of one theorem share a version; each must file programs of its own."""
        h = hashlib.sha256(self.version.encode())
        h.update(str(print_term(self.statement)).encode())
        h.update(repr(self.plan).encode())
        return f"{self.version}:{h.hexdigest()[:16]}"

    @property
    def fixed_dims(self) -> Mapping[str, int]:
        return dict(self.plan.fixed_dims)

    @property
    def dim_lows(self) -> Mapping[str, int]:
        """The dimensions drawn from below 1: the lists' lengths, from 0."""
        return dict(self.plan.dim_lows)

    @property
    def assumptions(self) -> tuple[str, ...]:
        extra: tuple[str, ...] = ()
        if self.premise_notes:
            extra += self.premise_notes
        else:
            extra += tuple(
                f"{h.text} (hypothesis {h.name}): trials where it fails hold vacuously"
                for h in per_trial(self)
                if h.how != "constraint"  # a bound the sampler meets (bounds.py)
            )
        drawn = tuple(
            f"{i.name} : {print_term(i.type)} drawn from "
            f"{sampler_of(i).covers if i.role == 'struct' else covers(i.type)}"
            for i in self.plan.inputs
            if i.role in ("struct", "function")
        )
        drawn += tuple(
            int_note(i.name)
            if i.role == "int"
            else list_note(i.name, i.type, self.plan.lists.shapes[i.name], self.plan.lists.fixed_by)
            for i in self.plan.inputs
            if i.role in ("int", "list")
        )
        note = reading_note(self.statement.op)
        return tuple(self.plan.assumptions) + drawn + extra + ((note,) if note else ())

    @property
    def premises(self) -> tuple[str, ...]:
        """The hypotheses evaluated in every trial, as `name : proposition`, and, for a
        statement that takes a derivative, that its function is differentiable there
        (a trial at a kink is vacuous: kinks.py)."""
        own = tuple(f"{h.name} : {h.text}" for h in per_trial(self))
        used = constants_in(self.statement) | set(self.dependencies)
        if used & DERIVATIVE_NAMES:
            own += ("each derivative's function differentiable at its point",)
        return own

    def dim_constraints(self) -> Sequence[DimConstraint]:
        return tuple(self.plan.dim_constraints)

    def _sides(self, ev: Evaluator, env: Mapping[str, Any]) -> tuple[Arr, Arr]:
        rel = self.statement
        if rel.op == "↔":
            lhs, rhs = truth_values(ev, rel, env)
        elif isinstance(rel.lhs, S.Lam) != isinstance(rel.rhs, S.Lam):
            # `f x = fun j => ..`: the other side gives the lambda its type
            first, second = (rel.rhs, rel.lhs) if isinstance(rel.lhs, S.Lam) else (rel.lhs, rel.rhs)
            a = ev.eval(first, env)
            b = ev.eval(second, env, value_type(a) if isinstance(a, Arr) else None)
            lhs, rhs = (b, a) if isinstance(rel.lhs, S.Lam) else (a, b)
        else:
            # both sides are elaborated at one type, as `binrel%` does
            lhs, rhs = ev.typed_trees([rel.lhs, rel.rhs], env, None, default_nat=True)
        # sides that are exact constants are decided exactly; the whole check is then
        # compared at tolerance `EXACT` only where it has one dims draw: with several,
        # other draws may compute their sides in floats (a list's length 0 makes `dotZ`
        # a constant), so those sides are given as 0 and 1, decided within any tolerance
        single = not self.plan.dims
        if isinstance(lhs, Lst) or isinstance(rhs, Lst):
            lhs, rhs, decided = list_sides(rel.op, lhs, rhs, ev.ctx)
            if decided:
                if single:
                    self.tolerance = EXACT
                return lhs, rhs
        # a side that is still a function of indices takes the other side's domain
        if isinstance(lhs, Arr) and lhs.dom and not isinstance(rhs, Arr):
            rhs = ev.tabulate(rhs, lhs.dom)
        elif isinstance(rhs, Arr) and rhs.dom and not isinstance(lhs, Arr):
            lhs = ev.tabulate(lhs, rhs.dom)
        for side in (lhs, rhs):
            if not isinstance(side, Arr):
                why = f" ({ev.unsolved})" if ev.unsolved else ""
                raise NotSupported(
                    f"an equation between values that are not numbers or arrays{why}"
                )
            if side.kind == "bool":
                raise NotSupported("an equation between propositions")
            if side.axes:
                raise EvalError("internal: a side still depends on a bound index")
        lhs, rhs = settle(lhs), settle(rhs)
        complex_sides = "complex" in (lhs.kind, rhs.kind)
        angle_sides = "angle" in (lhs.kind, rhs.kind)
        if complex_sides and rel.op not in ("=", "≠"):
            raise NotSupported(
                f"the order {rel.op} on ℂ (Mathlib's `ComplexOrder`, a scoped partial order) "
                "is not modelled"
            )
        if angle_sides and rel.op not in ("=", "≠"):
            raise NotSupported(f"the order {rel.op} on angles (Real.Angle has none)")
        if not (complex_sides or angle_sides) and not any(
            h.how in ("mask", "dims", "constraint") for h in self.plan.hyps
        ):
            exact = exact_sides(rel.op, lhs, rhs, ev.ctx.dtype, tolerant=not single)
            if exact is not None:
                if single:
                    self.tolerance = EXACT  # exact.py: decided exactly, in every dtype
                return exact
        kind = "complex" if complex_sides else "angle" if angle_sides else "real"
        lhs = coerce(lhs, kind, ev.ctx)
        rhs = coerce(rhs, kind, ev.ctx)
        for h in self.plan.hyps:
            if h.how in ("mask", "dims", "constraint"):
                with paused(ev.ctx):  # the hypotheses are not part of the comparison
                    ok = ev.eval(h.prop, env)
                if not (isinstance(ok, Arr) and ok.kind == "bool"):
                    raise NotSupported(f"the hypothesis {h.text} is not decidable here")
                zero = coerce(Arr(jnp.zeros((), ev.ctx.dtype), "real"), kind, ev.ctx)
                lhs = select(ok, lhs, zero, ev.ctx)
                rhs = select(ok, rhs, zero, ev.ctx)
        # (≠ of the arrays below: they differ in some entry, harness/verdict.py)
        if complex_sides:  # equal complex numbers: equal real and imaginary parts
            return as_parts(lhs), as_parts(rhs)
        if angle_sides:  # equal angles: equal points of the circle (cos θ, sin θ)
            return on_circle(lhs), on_circle(rhs)
        return lhs, rhs

    def build_measured(
        self, dims: Mapping[str, int], dtype: Any, *, together: bool = True
    ) -> Callable[[dict[str, Any]], Any]:
        """One trial's (lhs, rhs, {"scale": .., "underflow": ..}) (measure.py); `together`:
        the operands are measured together (for NumPy), else one by one (for XLA)."""
        dims = {k: int(v) for k, v in dims.items()}
        dt = jnp.dtype(dtype)
        self._types(dims)

        def fn(inputs: dict[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
            meter = Meter(underflow=self.statement.op in ("<", ">", "≠"), together=together)
            ev = Evaluator(self.semantics, Ctx(dtype=dt, int_dtype=jnp.int64, meter=meter))
            lhs, rhs = self._sides(ev, self.inputs_env(dims, inputs, dt))
            shape = jnp.broadcast_shapes(lhs.shape, rhs.shape)
            a = jnp.broadcast_to(as_array(lhs, dt), shape)
            b = jnp.broadcast_to(as_array(rhs, dt), shape)
            measures = {"scale": meter.scale(), "underflow": meter.underflow()}
            return a, b, {**measures, "undefined": meter.undefined()}

        return fn

    def build(self, dims: Mapping[str, int], dtype: Any) -> Callable[[dict[str, Any]], Any]:
        """One trial's (lhs, rhs): the two sides of the relation, without the measures
        (`build_measured`), which only the comparison needs."""
        dims = {k: int(v) for k, v in dims.items()}
        dt = jnp.dtype(dtype)
        self._types(dims)

        def fn(inputs: dict[str, Any]) -> tuple[Any, Any]:
            ev = Evaluator(self.semantics, Ctx(dtype=dt, int_dtype=jnp.int64))
            lhs, rhs = self._sides(ev, self.inputs_env(dims, inputs, dt))
            shape = jnp.broadcast_shapes(lhs.shape, rhs.shape)
            return (
                jnp.broadcast_to(as_array(lhs, dt), shape),
                jnp.broadcast_to(as_array(rhs, dt), shape),
            )

        return fn

    def build_premise(
        self, dims: Mapping[str, int], dtype: Any
    ) -> Callable[[dict[str, Any]], Any] | None:
        """Whether the hypotheses evaluated per trial hold (a bool per trial), or None
        when every hypothesis became a sampling or dimension constraint. `build`
        compares a trial where this is False as 0 = 0 (it holds vacuously): the
        harness should count such trials, and a run where every trial is vacuous
        is no evidence (status 'unsupported', not 'pass')."""
        each = premise_fn(self, dims, dtype)
        if each is None:
            return None
        held = each

        def holds(inputs: dict[str, Any]) -> Any:
            return jnp.all(held(inputs))

        return holds

    def decide_exactly(self, work_limit: int | None = None) -> Any:
        """The relation of a closed statement (no dimensions, inputs or hypotheses) decided
        in exact arithmetic (exact_terms.py: a `Decision`), or None where it is not exact
        or needs more than `work_limit` bits computed (None: the full limit)
        (checkers/harness/confirming.py)."""
        if work_limit not in self._decided:
            from checkers.exact.terms import decide

            p = self.plan
            closed = not (p.dims or p.inputs or p.hyps or p.type_vars)
            limit = {} if work_limit is None else {"work_limit": work_limit}
            self._decided[work_limit] = (
                decide(self.statement, self.semantics, **limit) if closed else None
            )
        return self._decided[work_limit]

    def locate_nonfinite(self, dims: Mapping[str, int], inputs: Mapping[str, Any]) -> str | None:
        """The first subterm (innermost first) whose value holds a NaN or infinity."""
        found: list[S.Term] = []

        def probe(t: S.Term, v: Any) -> None:
            if found or not isinstance(v, Arr) or v.kind not in ("real", "num"):
                return
            d = v.data
            if isinstance(d, jax.core.Tracer) or v.is_static:
                return
            if v.log:  # held as its logarithm: the value is what overflows
                d = as_array(v)
            if not np.all(np.isfinite(np.asarray(d, dtype=np.float64))):
                found.append(t)

        dt = jnp.dtype(
            next(
                (
                    np.asarray(v).dtype
                    for v in inputs.values()
                    if np.issubdtype(np.asarray(v).dtype, np.floating)
                ),
                np.float64,
            )
        )
        ev = Evaluator(self.semantics, Ctx(dtype=dt, int_dtype=jnp.int64), probe=probe)
        env = self.inputs_env({k: int(v) for k, v in dims.items()}, inputs, dt)
        with jax.disable_jit():
            self._sides(ev, env)
        return str(print_term(found[0])) if found else None


# --- derivation -------------------------------------------------------------------


def checker_version(name: str, env: Any, deps: tuple[str, ...]) -> str:
    h = hashlib.sha256(VERSION.encode())
    for n in (name, *deps):
        d = env.get(n) if hasattr(env, "get") else None
        h.update(n.encode())
        if d is not None:
            h.update(d.content_hash().encode())
    return f"{VERSION}:{h.hexdigest()[:12]}"


def trial_dims(plan: Plan) -> dict[str, int]:
    """Small dimensions that satisfy the dimension constraints, for a dry run."""
    for base in (2, 3, 1, 4, 5):
        dims = dict.fromkeys(plan.dims, base)
        dims.update(plan.fixed_dims)
        for _ in range(4):
            bad = [c for c in plan.dim_constraints if not c.holds(dims)]
            if not bad:
                return dims
            for c in bad:
                for side in c.names:
                    dims[side] = dims[side] + 1
        if all(c.holds(dims) for c in plan.dim_constraints):
            return dims
    return dict.fromkeys(plan.dims, 2)
