"""A theorem's binders and hypotheses as inputs, dimensions and constraints.

- `{N a c : ℕ}` used in a type (or passed to a function) is a dimension the
  harness draws; any other ℕ binder is a sampled natural number.
- `ℝ`, `Vec n`, `Mat m n`, `Tensor3`, `Kernel4`, `Fin n → ℝ` are real arrays (a
  type variable with classes was replaced by each modelled type that is an instance
  of them before this plan: instances.py; `Fin n → ℤ` is then an integer array);
  `Fin n` an index;
  `Fin m → Fin D` an index map; `ℤ` a sampled integer and `List α` a list of a
  drawn length (drawn_lists.py: the length is a dimension, or what a hypothesis
  `xs.length = n` fixes).
- Hypotheses: bounds on a real input (`0 < ε`, `a ≤ x`, `x < b`, `x ≠ 0`,
  `∀ i j, |W i j| ≤ w`, `t ∈ Set.Icc 0 1`; bounds.py) become sampling bounds
  (`how` 'constraint'), which the sampler meets by construction; relations
  between dimensions (`0 < n`, `P ≤ W`, `[NeZero n]`) become dimension
  constraints; the bounds and every other decidable hypothesis are evaluated per
  trial, and where one fails the trial holds vacuously (Lean's implication; see
  premises.py); the rest (`Differentiable ℝ f`, ...) are recorded as assumptions.
- Class binders: `[NeZero n]` a dimension constraint, `[Fact P]` the hypothesis P, a
  class on modelled types holds by instances.py's table; any other is not modelled and
  the theorem is refused (a class is never assumed).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from checkers.core import DimConstraint
from checkers.language.complex import COMPLEX_PARTS
from checkers.language.errors import NotSupported
from checkers.language.instances import ANY_TYPE, class_name, holds, modelled_name
from checkers.language.types import (
    COMPLEX_NAMES,
    INT_NAMES,
    LIST_NAMES,
    NAT_NAMES,
    NNREAL_NAMES,
    REAL_NAMES,
    const_name,
    head_and_args,
)
from checkers.library.lean_core import CORE
from checkers.library.mathlib_algebra import DECIDED_PREDICATES
from checkers.library.structures import structure_sampler
from checkers.premises.binder_shapes import drawn_function, fin_type, indexed_by_fin
from checkers.premises.bound_plans import BoundPlan
from checkers.premises.bounds import plan_all, unfold_intervals
from checkers.premises.drawn_lists import Length, Lists
from theorem_index.lean import syntax as S

_CMP = {"<": "<", "≤": "<=", ">": ">", "≥": ">=", "=": "==", "≠": "!="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
# Core functions of numbers whose ℕ arguments need not be constants.
VALUE_FUNCTIONS = frozenset(b.name for b in CORE) - {"Fin.last", "Finset.range"}
# Finite sets whose bounds size an axis: what they read is a dimension.
FINSET_BOUNDS = frozenset({"Finset.range", "Finset.Icc", "Finset.Ico", "Finset.Ioc", "Finset.Ioo"})
NONFUNCTIONAL_HYPS = (
    "Differentiable",
    "DifferentiableAt",
    "HasFDerivAt",
    "HasDerivAt",
    "Continuous",
    "ContinuousAt",
    "Proofs.HasVJP",
    "Proofs.HasVJPAt",
)

# hypotheses that give a derivative's value, which no independent draw meets
_DERIVATIVE_IS = frozenset({"HasDerivAt", "HasFDerivAt"})


@dataclass(frozen=True)
class Input:
    name: str
    type: S.Term
    # 'real' | 'fin' | 'nat' | 'index_map' | 'struct' (structures.py) | 'function'
    # (drawn_functions.py) | 'int' | 'list' (drawn_lists.py) | 'finset' (a subset of Fin k)
    role: str


@dataclass(frozen=True)
class Hyp:
    name: str
    prop: S.Term
    how: str  # 'constraint' | 'dims' | 'mask' | 'assume'
    text: str


@dataclass
class Plan:
    dims: list[str] = field(default_factory=list)
    type_vars: list[str] = field(default_factory=list)
    inputs: list[Input] = field(default_factory=list)
    hyps: list[Hyp] = field(default_factory=list)
    dim_constraints: list[DimConstraint] = field(default_factory=list)
    fixed_dims: dict[str, int] = field(default_factory=dict)
    constraints: dict[str, str] = field(default_factory=dict)  # real input -> constraint
    bounds: list[BoundPlan] = field(default_factory=list)  # hypotheses the sampler meets
    assumptions: list[str] = field(default_factory=list)
    value_args: list[str] = field(default_factory=list)  # ℕ arguments sampled as values
    lists: Lists = field(default_factory=Lists)  # the list binders' shapes (drawn_lists.py)
    dim_lows: dict[str, int] = field(default_factory=dict)  # dimensions drawn from below 1


def _text(t: S.Term) -> str:
    from theorem_index.lean import print_term

    return str(print_term(t))


def _is_name(t: S.Term | None, names: frozenset[str]) -> bool:
    return isinstance(t, S.Const | S.Ident) and t.name in names


def _occurs_in_types(name: str, terms: list[Any], *, arguments: bool = True) -> bool:
    """Whether `name` is used in a type position (or, with `arguments`, as a function
    argument, where it may size the function's types)."""

    def var(u: Any) -> bool:
        return isinstance(u, S.Var | S.Ident) and u.name == name

    def anywhere(u: Any) -> bool:
        if var(u):
            return True
        if isinstance(u, S.Term):
            return any(
                anywhere(getattr(u, f.name)) for f in dataclasses.fields(u) if f.name != "span"
            )
        if isinstance(u, tuple):
            return any(anywhere(x) for x in u)
        return False

    def walk(u: Any) -> bool:
        if isinstance(u, S.Binder):
            return (u.type is not None and anywhere(u.type)) or walk(u.default)
        if isinstance(u, S.Typed):
            return anywhere(u.type) or walk(u.term)
        if isinstance(u, S.App) and const_name(u.fn) in FINSET_BOUNDS:
            return anywhere(u.args)  # a finite set's size is a constant (finsets.py)
        if isinstance(u, S.App):
            if (
                arguments
                and any(var(a) for a in u.args)
                and const_name(u.fn) not in VALUE_FUNCTIONS
            ):
                return True
            return walk(u.fn) or any(walk(a) for a in u.args)
        if isinstance(u, S.BigOp) and u.domain is not None and anywhere(u.domain):
            return True
        if isinstance(u, S.Term):
            return any(walk(getattr(u, f.name)) for f in dataclasses.fields(u) if f.name != "span")
        if isinstance(u, tuple):
            return any(walk(x) for x in u)
        return False

    return any(walk(t) for t in terms)


def _is_prop(t: S.Term) -> bool:
    if isinstance(t, S.BinOp) and t.op in (*_CMP, "∧", "∨", "↔", "∣", "∈", "∉"):
        return True
    if isinstance(t, S.Prefix) and t.op == "¬":
        return True
    if isinstance(t, S.Quant):
        return True
    h, _ = head_and_args(t)
    name = const_name(h)
    return name is not None and (
        name in NONFUNCTIONAL_HYPS or name in DECIDED_PREDICATES or name in ("True", "False")
    )


def _dim_side(t: S.Term, dims: list[str], lists: Lists | None = None) -> Length | None:
    """A dimension, a literal, or a list binder's length (drawn_lists.py)."""
    if isinstance(t, S.Num):
        return int(t.text, 0)
    if isinstance(t, S.Var | S.Ident) and t.name in dims:
        return t.name
    return lists.length_of(t) if lists is not None else None


def plan_binders(
    binders: tuple[S.Binder, ...], statement: S.Term, *, sizes_from_arguments: bool = True
) -> Plan:
    """How each binder is sampled. A ℕ binder used in a type is a dimension; one passed
    to a function only may size that function's types or be a plain value: with
    `sizes_from_arguments` it is a dimension, without it a sampled ℕ input (drawn
    from 0 up, so that Lean's truncating arithmetic at 0 is exercised), listed in
    `plan.value_args`."""
    plan = Plan()
    flat: list[tuple[str, S.Term | None, str]] = []
    for b in binders:
        if b.pattern is not None:
            raise NotSupported("a pattern binder in the theorem's signature")
        if b.kind == "inst":
            flat.append(("", b.type, "inst"))
            continue
        for n in b.names:
            flat.append((n, b.type, b.kind))
    later_types = [t for _, t, _ in flat if t is not None]
    for name, ty, kind in flat:
        if ty is None:
            raise NotSupported(f"the binder {name} has no type")
        if kind == "inst":
            _instance(plan, ty)
            continue
        if isinstance(ty, S.Sort):
            plan.type_vars.append(name)
        elif _is_name(ty, NAT_NAMES):
            where = [*later_types, statement, *binders]
            if _occurs_in_types(name, where, arguments=sizes_from_arguments):
                plan.dims.append(name)
            elif _occurs_in_types(name, where):
                plan.inputs.append(Input(name, ty, "nat"))
                plan.value_args.append(name)
            else:
                plan.inputs.append(Input(name, ty, "nat"))
        elif _is_name(ty, INT_NAMES):
            plan.inputs.append(Input(name, ty, "int"))
        elif const_name(head_and_args(ty)[0]) in LIST_NAMES:
            plan.lists.add(name, ty)
            plan.inputs.append(Input(name, ty, "list"))
        elif _is_prop(ty):
            _hypothesis(plan, name, ty)
        elif not indexed_by_fin(ty) and not drawn_function(ty):
            raise NotSupported(
                f"the binder {name} : {_text(ty)} is not a number, index or array over Fin, "
                "so it cannot be sampled"
            )
        else:
            plan.inputs.append(Input(name, ty, _role(ty, plan)))
    _list_dims(plan)
    _plan_bounds(plan)
    return plan


def _list_dims(plan: Plan) -> None:
    """The lists' own lengths become dimensions drawn from 0; relations that name a length
    a hypothesis fixed name what fixes it."""
    dims, bounds = plan.lists.finish()
    plan.dims.extend(d for d in dims if d not in plan.dims)
    plan.dim_lows.update(dict.fromkeys(dims, 0))
    resolve = plan.lists.resolve
    plan.dim_constraints = [
        DimConstraint(resolve(c.left), c.op, resolve(c.right)) for c in plan.dim_constraints
    ] + bounds


def _role(ty: S.Term, plan: Plan) -> str:
    h, args = head_and_args(ty)
    if const_name(h) == "Fin" and len(args) == 1:
        return "fin"
    if const_name(h) == "Finset" and len(args) == 1:
        return "finset"  # a subset drawn as booleans (trial_inputs.py)
    if not args and structure_sampler(const_name(h)) is not None:
        return "struct"
    if drawn_function(ty):
        return "function"
    if _is_name(ty, REAL_NAMES):
        return "real"
    if isinstance(ty, S.Var | S.Ident) and ty.name in plan.type_vars:
        return "real"
    # Fin m → Fin D (an index map); everything else is resolved when typed.
    t = ty
    while isinstance(t, S.BinOp) and t.op == "→":
        t = t.rhs
    h2, args2 = head_and_args(t)
    if t is not ty and const_name(h2) == "Fin" and len(args2) == 1:
        return "index_map"
    return "real"


def _instance(plan: Plan, ty: S.Term) -> None:
    """A class binder left after the type variables were instantiated (instances.py): on a
    dimension (`[NeZero n]`) a dimension constraint, `[Fact P]` the hypothesis P, on
    modelled types (`[DecidableEq (Fin n)]`) what the table says; anything else is not
    modelled, and never assumed."""
    _, args = head_and_args(ty)
    short = class_name(ty)
    if short == "NeZero" and len(args) == 1 and _dim_side(args[0], plan.dims) is not None:
        side = _dim_side(args[0], plan.dims)
        assert side is not None
        plan.dim_constraints.append(DimConstraint(side, "!=", 0))
        return
    if short == "Fact" and len(args) == 1:
        _hypothesis(plan, f"[Fact {len(plan.hyps) + 1}]", args[0])
        return
    body = ty
    while isinstance(body, S.Quant | S.Pi):  # `[∀ k, Decidable (P k)]`
        body = body.body
    if short in ANY_TYPE or class_name(body) in ANY_TYPE:
        return
    types = [modelled_name(a) or ("Fin" if fin_type(a) else "") for a in args]
    if types == ["Fin"] and short in ("Fintype", "Finite"):
        return
    if all(types) and holds(short, [str(t) for t in types]):
        return
    raise NotSupported(f"the instance [{_text(ty)}] is not modelled")


def _hypothesis(plan: Plan, name: str, prop: S.Term) -> None:
    text = _text(prop)
    prop = unfold_intervals(prop)
    if plan.lists.uniform(name, prop, lambda t: _dim_side(t, plan.dims, plan.lists)):
        plan.hyps.append(Hyp(name, prop, "dims", text))  # met by construction
        return
    if isinstance(prop, S.BinOp) and prop.op in _CMP:
        op = _CMP[prop.op]
        left = _dim_side(prop.lhs, plan.dims, plan.lists)
        right = _dim_side(prop.rhs, plan.dims, plan.lists)
        if (
            op == "=="
            and left is not None
            and right is not None
            and plan.lists.equate(name, left, right)
        ):
            plan.hyps.append(Hyp(name, prop, "dims", text))  # a list's length, met
            return
        if left is not None and right is not None:
            plan.dim_constraints.append(DimConstraint(left, op, right))
            if op == "==" and isinstance(left, str) and isinstance(right, int):
                plan.fixed_dims[left] = right
            if op == "==" and isinstance(right, str) and isinstance(left, int):
                plan.fixed_dims[right] = left
            plan.hyps.append(Hyp(name, prop, "dims", text))
            return
        c = _real_constraint(plan, prop.lhs, op, prop.rhs)
        if c is not None:
            var, kind = c
            plan.constraints[var] = kind
    if isinstance(prop, S.BinOp) and prop.op == "∣":
        left = _dim_side(prop.lhs, plan.dims, plan.lists)
        right = _dim_side(prop.rhs, plan.dims, plan.lists)
        if left is not None and right is not None:
            plan.dim_constraints.append(DimConstraint(left, "dvd", right))
            plan.hyps.append(Hyp(name, prop, "dims", text))
            return
    if _unsampled(prop):
        drawn = {i.name for i in plan.inputs}
        if any(
            isinstance(u, S.App)
            and const_name(head_and_args(u)[0]) in _DERIVATIVE_IS
            and any(isinstance(v, S.Var) and v.name in drawn for v in S.subterms(u))
            for u in S.subterms(prop)
        ):
            # `HasDerivAt f f' x` of drawn f, f': no draw makes f' the derivative
            raise NotSupported(f"the hypothesis {text} ({name}) fixes a derivative: not sampled")
        plan.hyps.append(Hyp(name, prop, "assume", text))
        plan.assumptions.append(f"{text} (hypothesis {name}, not sampled)")
        return
    plan.hyps.append(Hyp(name, prop, "mask", text))


def _unsampled(prop: S.Term) -> bool:
    """Whether a hypothesis states only what sampling cannot decide (differentiability,
    continuity, the derivative's existence): `Differentiable ℝ f`, and the same under
    `∀ x,` (`∀ s ∈ S, DifferentiableAt ℝ (f s) x`) or in a conjunction."""
    while isinstance(prop, S.Paren):
        prop = prop.term
    if isinstance(prop, S.Quant) and prop.q == "∀":
        return _unsampled(prop.body)
    if isinstance(prop, S.BinOp) and prop.op == "→":
        return _unsampled(prop.rhs)
    if isinstance(prop, S.BinOp) and prop.op == "∧":
        return _unsampled(prop.lhs) and _unsampled(prop.rhs)
    h, _ = head_and_args(prop)
    return const_name(h) in NONFUNCTIONAL_HYPS


def _plan_bounds(plan: Plan) -> None:
    """The hypotheses evaluated per trial that the sampler can meet become bounds
    (bounds.py); they are still evaluated per trial."""
    reals = [
        i.name for i in plan.inputs if i.role == "real" and not _is_name(i.type, COMPLEX_NAMES)
    ]
    for i in plan.inputs:  # a complex number is drawn as its parts: `z.re`, `z.im`
        if i.role == "real" and _is_name(i.type, COMPLEX_NAMES):
            reals.extend(f"{i.name}.{f}" for f in COMPLEX_PARTS)
    for i in plan.inputs:  # the real fields of a sampled structure: `M.u`
        if i.role == "struct":
            h, _ = head_and_args(i.type)
            sampler = structure_sampler(const_name(h))
            assert sampler is not None
            reals.extend(f"{i.name}.{f}" for f in sampler.fields)
    candidates = [(h.name, h.prop, h.text) for h in plan.hyps if h.how == "mask"]
    nats = [i.name for i in plan.inputs if i.role == "nat"]
    planned = plan_all(candidates, reals, plan.dims, nats=nats)
    plan.bounds = [b for h in plan.hyps for b in planned.get(h.name, ())]
    plan.hyps = [
        dataclasses.replace(h, how="constraint") if h.name in planned else h for h in plan.hyps
    ]


def _real_constraint(plan: Plan, lhs: S.Term, op: str, rhs: S.Term) -> tuple[str, str] | None:
    reals = {
        i.name
        for i in plan.inputs
        if i.role == "real" and (_is_name(i.type, REAL_NAMES) or _is_name(i.type, NNREAL_NAMES))
    }

    def zero(t: S.Term) -> bool:
        return isinstance(t, S.Num) and int(t.text, 0) == 0

    if isinstance(rhs, S.Var | S.Ident) and rhs.name in reals and zero(lhs):
        lhs, rhs, op = rhs, lhs, _FLIP[op]
    if not (isinstance(lhs, S.Var | S.Ident) and lhs.name in reals and zero(rhs)):
        return None
    kind = {">": "positive", ">=": "nonnegative", "!=": "nonzero"}.get(op)
    return (lhs.name, kind) if kind else None
