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
tracing the checker once (no compilation), at the dims of the first draw of a
check at the default seed, whose program that check then runs untraced again.
Any other exception during that trace is the machinery breaking, not a lack of
semantics: a `DerivationError`, which a check reports as 'error' with the
exception.

A statement over type variables with classes (`{R : Type*} [CommRing R]`) is derived
at each modelled type that is an instance of them (instances.py), one checker each,
named by its assignment (`R := ℤ`) in a `Conjunction`; a class no modelled type is an
instance of makes it `Unsupported`, naming the class.

Hypotheses that are evaluated per trial (premises.py) make a trial where they
fail hold vacuously; `build_premise` tells the harness which trials those
are (it leaves them out of the comparison), and `derive` refuses a statement whose hypotheses
hold in none of the trials the harness would sample at seed 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from checkers.core import Unsupported
from checkers.evaluator.inductives import draw_leaves
from checkers.harness.interpreted import (
    has_kept_program,
    interpreting,
    keep_dry_run,
    trace_trial,
)
from checkers.inputs.dims import DimsError, draw_dims
from checkers.language.errors import EvalError, NotSupported
from checkers.language.instances import instantiate
from checkers.lazyjax import jax, jnp
from checkers.library.mathlib_analysis import READINGS
from checkers.library.semantics import Semantics
from checkers.premises.binders import plan_binders
from checkers.premises.holding import per_trial, probe_or_refuse
from checkers.premises.reparam import reparametrise
from checkers.registry.environment import DerivationError
from checkers.runtime.jaxsetup import device_kind
from checkers.statements.checker import (  # noqa: F401  (re-exported)
    VERSION,
    DerivedChecker,
    checker_version,
    trial_dims,
)
from checkers.statements.conjunction import Conjunction, at_instances
from checkers.statements.matrices import elaborate_matrices
from checkers.statements.matrix_hypotheses import draw_shaped_matrices
from checkers.statements.propositions import Clause, clauses
from checkers.statements.statement import split_statement
from checkers.statements.trial_inputs import NAT_INPUT_RANGE  # noqa: F401  (re-exported)
from theorem_index.lean import analyse_declaration
from theorem_index.lean import syntax as S


def dry_run(checker: DerivedChecker) -> None:
    """Trace the checker once, abstractly, to find what it cannot evaluate.

    Where the check's programs would be interpreted (on the CPU), the dry run traces the
    program of the check's first dims draw at the default seed, which the check then
    runs without tracing the statement again (`keep_dry_run`); otherwise, and where a
    hypothesis may be what refused, it traces the sides at small dimensions."""
    dims = _first_draw(checker) if interpreting() and device_kind() == "cpu" else None
    if dims is not None:
        specs = checker.input_specs(dims)
        if has_kept_program(checker, dims, specs):
            return  # checked in this process before: its program evaluates, and is kept
        try:
            closed = trace_trial(checker, dict(dims), specs)
        except (NotSupported, EvalError):
            if not per_trial(checker):
                raise  # the sides' own evaluation refused, as the dry run below would
            closed = None  # perhaps a hypothesis: the probe says so, as it always has
        except Exception:  # noqa: BLE001 (the dry run below says why, as it always has)
            closed = None
        if closed is not None:
            shapes = [tuple(v.aval.shape) for v in closed.jaxpr.outvars[:2]]
            if shapes[0] == shapes[1]:
                keep_dry_run(checker, dims, closed)
                return
    dims = trial_dims(checker.plan)
    fn = checker.build(dims, np.float64)
    abstract = {
        n: jax.ShapeDtypeStruct(s.shape, jnp.float64 if s.kind == "real" else jnp.int64)
        for n, s in checker.input_specs(dims).items()
    }
    with jax.disable_jit():
        out = jax.eval_shape(fn, abstract)
    if tuple(out[0].shape) != tuple(out[1].shape):
        raise EvalError(f"the two sides have different shapes: {out[0].shape} and {out[1].shape}")


def _first_draw(checker: DerivedChecker) -> dict[str, int] | None:
    """The dims of the first draw of a check at the default seed with no pinned dims
    (checkers/harness/check.py draws them the same way), or None where none exist."""
    try:
        return draw_dims(
            checker.name,
            0,
            checker.dim_names,
            fixed=checker.fixed_dims,
            constraints=tuple(checker.dim_constraints()),
            draws=1,
            lows=checker.dim_lows,
        )[0]
    except DimsError:
        return None  # the check reports this itself


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
    try:
        variants = instantiate(analysis.binders, analysis.statement)
    except NotSupported as e:
        return Unsupported(e.reason, e.missing)
    if variants is None:
        return _derive_statement(name, env, sem, analysis.binders, analysis.statement)
    return at_instances(
        name,
        [(v.label, _derive_statement(name, env, sem, v.binders, v.statement)) for v in variants[0]],
        unchecked=variants[1],
    )


def _derive_statement(
    name: str, env: Any, sem: Semantics, binders: tuple[S.Binder, ...], statement: S.Term
) -> Any:
    """The checker of a statement (a `Conjunction` of its clauses where it has several)."""
    parts = clauses(binders, statement, sem)
    if isinstance(parts, Unsupported):
        return parts
    if len(parts) == 1 and not parts[0].unfolded:
        return derive_clause(name, env, sem, parts[0].binders, parts[0].statement)
    return derive_conjunction(name, env, sem, parts)


def derive_clause(
    name: str, env: Any, sem: Semantics, binders: tuple[S.Binder, ...], statement: S.Term
) -> DerivedChecker | Unsupported:
    """The checker of one clause `∀ .., P → A R B` under the theorem's binders."""
    binders, statement, shaped = draw_shaped_matrices(binders, statement)
    try:  # after the predicates are unfolded, so that their bodies are rewritten too
        binders, statement = elaborate_matrices(binders, statement)
    except NotSupported as e:
        return Unsupported(e.reason, e.missing)
    split = split_statement(binders, statement, sem)
    if isinstance(split, Unsupported):
        return split
    binders, extra, core, drawn = reparametrise(*split)
    binders, extra, core, leaves = draw_leaves(binders, extra, core, sem)
    drawn += leaves
    got = _derive_plan(name, env, sem, core, extra, binders, sizes_from_arguments=False)
    if not isinstance(got, DerivedChecker) and got[1]:
        # some ℕ argument must size a type (a sampled value met where a size is needed,
        # which may break the tracing itself): sample those as dimensions instead, and
        # report how that second reading fails if it does
        got = _derive_plan(name, env, sem, core, extra, binders, sizes_from_arguments=True)
    if not isinstance(got, DerivedChecker):
        return got[0]
    got.plan.assumptions.extend(shaped)  # matrices drawn as a hypothesis shapes them
    got.plan.assumptions.extend(drawn)  # binders drawn inside their bounds (reparam.py)
    return got


def derive_conjunction(name: str, env: Any, sem: Any, parts: Sequence[Clause]) -> Any:
    """A checker per clause (a `Conjunction` of them when there are several), or why the
    statement cannot be checked: the first clause that cannot, named."""
    found: list[DerivedChecker] = []
    for k, part in enumerate(parts):
        got = derive_clause(name, env, sem, part.binders, part.statement)
        if not isinstance(got, DerivedChecker):
            where = f" (in clause {k + 1} of {len(parts)}: {part.text})" if len(parts) > 1 else ""
            return type(got)(f"{got.reason}{where}", got.missing)
        if part.unfolded:  # a change to an unfolded definition changes the checker
            got.unfolded = part.unfolded
            read = (READINGS[n] for n in dict.fromkeys(part.unfolded) if n in READINGS)
            got.plan.assumptions.extend(f"{r.name}: {r.note}" for r in read if r.note)
            got.dependencies = tuple(dict.fromkeys((*part.unfolded, *got.dependencies)))
            got.version = checker_version(name, env, got.dependencies)
        found.append(got)
    unfolded = tuple(dict.fromkeys(n for p in parts for n in p.unfolded))
    if len(found) == 1:
        return found[0]
    return Conjunction(name, tuple(found), tuple(p.text for p in parts), unfolded=unfolded)


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
        dry_run(checker)
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
