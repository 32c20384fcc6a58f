"""`derive(name, env)`: a checker built from a theorem's statement alone.

The statement `A R B` under its binders becomes a pure JAX function of one
trial's inputs returning (A, B); the relation R (`=`, `≤`, `<`, `≥`, `>`) is
the checker's `relation`, which the harness compares by (checkers/tolerance.py).
`build_measured` also returns the trial's scale and underflow (measure.py),
which the comparison needs to decide at the magnitude of the values. Leading
`∀ x,` and `P →` are binders too, and an equation between functions
`f = fun (x : T) => e` is checked pointwise at a sampled x : T. Anything the
evaluator cannot give Lean's meaning to makes the theorem `Unsupported`, with
the reason and the constants that lack semantics; `derive` finds that out by
tracing the checker once, abstractly, at small dimensions (no compilation).
Any other exception during that trace is the machinery breaking, not a lack of
semantics: a `DerivationError`, which a check reports as 'error' with the
exception.

Hypotheses that are evaluated per trial (premises.py) make a trial where they
fail hold vacuously; `build_premise` tells the harness which trials those
are (it leaves them out of the comparison), and `derive` refuses a statement whose hypotheses
hold in none of the trials the harness would sample at seed 0.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from checkers.core import DimConstraint, InputSpec, ToleranceOverride, Unsupported
from checkers.derived.arith import select
from checkers.derived.binders import Input, Plan, plan_binders
from checkers.derived.bound_values import to_bound
from checkers.derived.coercion import Ctx, coerce, settle
from checkers.derived.conjunction import derive_conjunction
from checkers.derived.drawn_functions import COVERS as FUNCTIONS_COVERED
from checkers.derived.drawn_functions import function_specs, function_value
from checkers.derived.errors import EvalError, NotSupported
from checkers.derived.evaluate import Evaluator
from checkers.derived.exact import EXACT, exact_sides, list_sides
from checkers.derived.measure import Meter, paused
from checkers.derived.premises import per_trial, premise_fn, probe_or_refuse
from checkers.derived.propositions import clauses
from checkers.derived.readings import harness_relation, reading_note, truth_values
from checkers.derived.reparam import reparametrise
from checkers.derived.semantics import Semantics
from checkers.derived.statement import split_statement
from checkers.derived.structures import StructSampler, structure_sampler
from checkers.derived.types import TFin, const_name, fin_domains, head_and_args, kind_of, value_type
from checkers.derived.values import Arr, Lst, Proof, TypeValue, as_array, static_nat
from checkers.environment import DerivationError
from theorem_index.lean import analyse_declaration, print_term
from theorem_index.lean import syntax as S

VERSION = "derived-1"
NAT_INPUT_RANGE = (0, 10)


@dataclass
class DerivedChecker:
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
    def fixed_dims(self) -> Mapping[str, int]:
        return dict(self.plan.fixed_dims)

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
            f"{_sampler(i).covers if i.role == 'struct' else FUNCTIONS_COVERED}"
            for i in self.plan.inputs
            if i.role in ("struct", "function")
        )
        note = reading_note(self.statement.op)
        return tuple(self.plan.assumptions) + drawn + extra + ((note,) if note else ())

    @property
    def premises(self) -> tuple[str, ...]:
        """The hypotheses evaluated in every trial, as `name : proposition`."""
        return tuple(f"{h.name} : {h.text}" for h in per_trial(self))

    def dim_constraints(self) -> Sequence[DimConstraint]:
        return tuple(self.plan.dim_constraints)

    def _base_env(self, dims: Mapping[str, int]) -> dict[str, Any]:
        missing = [d for d in self.plan.dims if d not in dims]
        if missing:
            raise EvalError(f"no value for the dimension(s) {', '.join(missing)}")
        env: dict[str, Any] = {d: static_nat(int(dims[d])) for d in self.plan.dims}
        for t in self.plan.type_vars:
            env[t] = TypeValue("ℝ")
        for h in self.plan.hyps:
            env[h.name] = Proof(h.name)
        return env

    def _types(self, dims: Mapping[str, int]) -> dict[str, Any]:
        key = tuple(sorted((k, int(v)) for k, v in dims.items()))
        if key not in self._sizes:
            ev = Evaluator(self.semantics)
            env = self._base_env(dims)
            self._sizes[key] = {
                i.name: ev.type_of(i.type, env) for i in self.plan.inputs if i.role != "struct"
            }
        return self._sizes[key]

    def input_specs(self, dims: Mapping[str, int]) -> dict[str, InputSpec]:
        out: dict[str, InputSpec] = {}
        for inp in self.plan.inputs:
            if inp.role == "struct":
                for field_name, spec in _sampler(inp).specs(inp.name).items():
                    bounds = tuple(
                        b
                        for p in self.plan.bounds
                        if p.target == field_name and (b := to_bound(p, dims, 0)) is not None
                    )
                    out[field_name] = replace(spec, bounds=bounds) if bounds else spec
                continue
            ty = self._types(dims)[inp.name]
            if inp.role == "function":
                out.update(function_specs(inp.name, ty))
                continue
            doms, elem = fin_domains(ty)
            shape = tuple(d.n for d in doms)
            kind = kind_of(ty)
            if inp.role == "nat":
                out[inp.name] = InputSpec.nat(*NAT_INPUT_RANGE)
            elif kind == "fin" and not doms:
                assert isinstance(elem, TFin) and elem.sz is not None
                out[inp.name] = InputSpec.fin(elem.sz.n)
            elif kind == "fin" and len(doms) == 1:
                assert isinstance(elem, TFin) and elem.sz is not None
                out[inp.name] = InputSpec.index_map(shape[0], elem.sz.n)
            elif kind == "real":
                constraint = self.plan.constraints.get(inp.name)
                bounds = tuple(
                    b
                    for p in self.plan.bounds
                    if p.target == inp.name and (b := to_bound(p, dims, len(shape))) is not None
                )
                out[inp.name] = InputSpec.real(shape, constraint=constraint, bounds=bounds)
            else:
                raise NotSupported(
                    f"the binder {inp.name} : {print_term(inp.type)} is not a number, index "
                    "or array over Fin, so it cannot be sampled"
                )
        return out

    def _inputs_env(
        self, dims: Mapping[str, int], inputs: Mapping[str, Any], dtype: Any
    ) -> dict[str, Any]:
        env = self._base_env(dims)
        types = self._types(dims)
        for inp in self.plan.inputs:
            if inp.role == "struct":
                env[inp.name] = _sampler(inp).value(inp.name, inputs, dtype)
                continue
            if inp.role == "function":
                env[inp.name] = function_value(inp.name, types[inp.name], inputs, dtype)
                continue
            x = inputs[inp.name]
            ty = types[inp.name]
            doms, elem = fin_domains(ty)
            if inp.role == "nat":
                env[inp.name] = Arr(jnp.asarray(x), "nat")
            elif kind_of(ty) == "fin":
                assert isinstance(elem, TFin)
                env[inp.name] = Arr(jnp.asarray(x), "fin", dom=doms, bound=elem.sz)
            else:
                env[inp.name] = Arr(jnp.asarray(x, dtype), "real", dom=doms)
        return env

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
        if isinstance(lhs, Lst) or isinstance(rhs, Lst):
            lhs, rhs, decided = list_sides(rel.op, lhs, rhs, ev.ctx)
            if decided:
                self.tolerance = EXACT
                return lhs, rhs
        # a side that is still a function of indices takes the other side's domain
        if isinstance(lhs, Arr) and lhs.dom and not isinstance(rhs, Arr):
            rhs = ev.tabulate(rhs, lhs.dom)
        elif isinstance(rhs, Arr) and rhs.dom and not isinstance(lhs, Arr):
            lhs = ev.tabulate(lhs, rhs.dom)
        for side in (lhs, rhs):
            if not isinstance(side, Arr):
                raise NotSupported("an equation between values that are not numbers or arrays")
            if side.kind == "bool":
                raise NotSupported("an equation between propositions")
            if side.axes:
                raise EvalError("internal: a side still depends on a bound index")
        lhs, rhs = settle(lhs), settle(rhs)
        if not any(h.how in ("mask", "dims", "constraint") for h in self.plan.hyps):
            exact = exact_sides(rel.op, lhs, rhs, ev.ctx.dtype)
            if exact is not None:
                self.tolerance = EXACT  # exact.py: decided exactly, in every dtype
                return exact
        lhs = coerce(lhs, "real", ev.ctx)
        rhs = coerce(rhs, "real", ev.ctx)
        for h in self.plan.hyps:
            if h.how in ("mask", "dims", "constraint"):
                with paused(ev.ctx):  # the hypotheses are not part of the comparison
                    ok = ev.eval(h.prop, env)
                if not (isinstance(ok, Arr) and ok.kind == "bool"):
                    raise NotSupported(f"the hypothesis {h.text} is not decidable here")
                zero = Arr(jnp.zeros((), ev.ctx.dtype), "real")
                lhs = select(ok, lhs, zero, ev.ctx)
                rhs = select(ok, rhs, zero, ev.ctx)
        return lhs, rhs

    def build_measured(
        self, dims: Mapping[str, int], dtype: Any
    ) -> Callable[[dict[str, Any]], Any]:
        """One trial's (lhs, rhs, {"scale": .., "underflow": ..}) (measure.py)."""
        dims = {k: int(v) for k, v in dims.items()}
        dt = jnp.dtype(dtype)
        self._types(dims)

        def fn(inputs: dict[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
            meter = Meter(underflow=self.statement.op in ("<", ">", "≠"))
            ev = Evaluator(self.semantics, Ctx(dtype=dt, int_dtype=jnp.int64, meter=meter))
            lhs, rhs = self._sides(ev, self._inputs_env(dims, inputs, dt))
            shape = jnp.broadcast_shapes(lhs.shape, rhs.shape)
            a = jnp.broadcast_to(as_array(lhs, dt), shape)
            b = jnp.broadcast_to(as_array(rhs, dt), shape)
            return a, b, {"scale": meter.scale(), "underflow": meter.underflow()}

        return fn

    def build(self, dims: Mapping[str, int], dtype: Any) -> Callable[[dict[str, Any]], Any]:
        """One trial's (lhs, rhs): the two sides of the relation, without the measures
        (`build_measured`), which only the comparison needs."""
        dims = {k: int(v) for k, v in dims.items()}
        dt = jnp.dtype(dtype)
        self._types(dims)

        def fn(inputs: dict[str, Any]) -> tuple[Any, Any]:
            ev = Evaluator(self.semantics, Ctx(dtype=dt, int_dtype=jnp.int64))
            lhs, rhs = self._sides(ev, self._inputs_env(dims, inputs, dt))
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
        env = self._inputs_env({k: int(v) for k, v in dims.items()}, inputs, dt)
        with jax.disable_jit():
            self._sides(ev, env)
        return str(print_term(found[0])) if found else None


# --- derivation -------------------------------------------------------------------


def _sampler(inp: Input) -> StructSampler:
    h, _ = head_and_args(inp.type)
    sampler = structure_sampler(const_name(h))
    assert sampler is not None, inp
    return sampler


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


def dry_run(checker: DerivedChecker, dims: Mapping[str, int]) -> None:
    """Trace the checker once, abstractly, to find what it cannot evaluate."""
    specs = checker.input_specs(dims)
    fn = checker.build(dims, np.float64)
    abstract = {
        n: jax.ShapeDtypeStruct(s.shape, jnp.float64 if s.kind == "real" else jnp.int64)
        for n, s in specs.items()
    }
    out = jax.eval_shape(fn, abstract)
    if tuple(out[0].shape) != tuple(out[1].shape):
        raise EvalError(f"the two sides have different shapes: {out[0].shape} and {out[1].shape}")


def shared_semantics(env: Any) -> Semantics:
    """One Semantics per environment: parsed equations and the missing-vocabulary
    analysis are computed once for the whole corpus, not once per theorem."""
    shared = getattr(env, "shared", None)
    return shared("derived.semantics", Semantics) if callable(shared) else Semantics(env)


def derive(name: str, env: Any) -> DerivedChecker | Unsupported:
    decl = env.get(name) if hasattr(env, "get") else None
    if decl is None:
        return Unsupported(f"{name} is not declared")
    sem = shared_semantics(env)
    analysis = analyse_declaration(decl, sem.known)
    if analysis.errors or analysis.statement is None or analysis.binders is None:
        why = "; ".join(str(e) for e in analysis.errors) or "no statement"
        return Unsupported(f"the statement does not parse: {why}")
    parts = clauses(analysis.binders, analysis.statement, sem)
    if isinstance(parts, Unsupported):
        return parts
    if len(parts) == 1 and not parts[0].unfolded:
        return derive_clause(name, env, sem, parts[0].binders, parts[0].statement)
    return derive_conjunction(name, env, sem, parts)


def derive_clause(
    name: str, env: Any, sem: Semantics, binders: tuple[S.Binder, ...], statement: S.Term
) -> DerivedChecker | Unsupported:
    """The checker of one clause `∀ .., P → A R B` under the theorem's binders."""
    split = split_statement(binders, statement, sem)
    if isinstance(split, Unsupported):
        return split
    binders, extra, core, drawn = reparametrise(*split)
    got = _derive_plan(name, env, sem, core, extra, binders, sizes_from_arguments=False)
    if not isinstance(got, DerivedChecker) and got[1]:
        # some ℕ argument must size a type (a sampled value met where a size is needed,
        # which may break the tracing itself): sample those as dimensions instead, and
        # report how that second reading fails if it does
        got = _derive_plan(name, env, sem, core, extra, binders, sizes_from_arguments=True)
    if not isinstance(got, DerivedChecker):
        return got[0]
    got.plan.assumptions.extend(drawn)  # binders drawn inside their bounds (reparam.py)
    return got


def broken(e: Exception) -> DerivationError:
    """An exception that is not the evaluator's own refusal (EvalError, NotSupported) while
    evaluating a statement: a defect of the checker, so a check reports 'error', with it."""
    return DerivationError(f"the checker broke evaluating the statement: {type(e).__name__}: {e}")


def _missing_reason(sem: Semantics, missing: tuple[str, ...]) -> str:
    """ "no semantics for: …", with why an ingested equation could not serve where it could not."""
    why = []
    for name in missing:
        eq = sem.equation(name)
        decl = sem.declaration(name)
        if isinstance(eq, NotSupported) and decl is not None and decl.equations:
            why.append(eq.reason)
    return f"no semantics for: {', '.join(missing)}" + (f" ({'; '.join(why)})" if why else "")


def _derive_plan(
    name: str,
    env: Any,
    sem: Semantics,
    core: S.BinOp,
    extra: tuple[S.Binder, ...],
    binders: tuple[S.Binder, ...],
    *,
    sizes_from_arguments: bool,
) -> DerivedChecker | tuple[Unsupported, bool]:
    """A checker for one way of sampling the binders, or why not and whether to try
    again with ℕ arguments as dimensions (they were sampled as values and evaluating
    failed)."""
    try:
        plan = plan_binders(binders, core, sizes_from_arguments=sizes_from_arguments)
    except NotSupported as e:
        return Unsupported(e.reason, e.missing), False
    evaluated = [core, *(h.prop for h in plan.hyps if h.how in ("mask", "dims", "constraint"))]
    missing = sem.missing_in(evaluated)
    if missing:
        return Unsupported(_missing_reason(sem, missing), missing), False
    deps = sem.dependencies([core, *extra])
    checker = DerivedChecker(
        name=name,
        statement=core,
        plan=plan,
        semantics=sem,
        dependencies=deps,
        version=checker_version(name, env, deps),
    )
    retry = bool(plan.value_args)
    try:
        dry_run(checker, trial_dims(plan))
        refused = probe_or_refuse(checker)
    except NotSupported as e:
        return Unsupported(e.reason, e.missing), retry
    except EvalError as e:
        return Unsupported(f"cannot evaluate the statement: {e}"), retry
    except Exception as e:  # not a statement we lack semantics for: the machinery broke
        return broken(e), retry
    if refused is not None:
        return Unsupported(refused), False
    return checker
