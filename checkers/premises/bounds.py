"""Hypotheses the sampler satisfies: bounds on a real input, from its hypotheses' terms.

A hypothesis of one of these shapes (after `∀ i j,` over indices and `∧`)
bounds one real input, its *target*:

- `e ≤ x`, `e < x`, `x ≤ e`, `x < e` (and `≥`, `>`): a lower or upper bound;
- `|x| ≤ e`, `|x - c| ≤ e`, `|c - x| ≤ e` (or `<`): both bounds, `±e` about `0` or `c`;
- `x ≠ e`, `e ≠ x`;
- `x ∈ Set.Icc a b` (and `Ioo`, `Ico`, `Ioc`, `Ici`, `Iic`, `Ioi`, `Iio`);

where `x` is a real input, or a real array applied to the quantified indices
(`W i j`, every axis once), and `e` does not mention `x`. A statement's
hypotheses are planned together (`plan_all`): those met in one way first, then
each of the others the way that cannot make an input's lower bound cross its
upper bound if there is one (`x ≤ y` with `y < 1` bounds x by y, not y by x),
then the later-declared target; never so that inputs bound each other.
`|x - c| ≤ r` with `r` an input also bounds `r ≥ 0`, which it implies. The
bound `e` is a term over constants, other real inputs (applied to indices or
not), dimensions and ℕ inputs cast to ℝ (`(d : ℝ)`, `↑m`), `+ - * /`, `^` by
a natural number (literals, dimensions, ℕ inputs), `|·|`, `Real.sqrt`,
`Real.exp` and `∑` over an index: bound_values.py evaluates it in numpy over
every trial at once, with Lean's total arithmetic (`x / 0 = 0`, `Real.sqrt` of
a negative is `0`). Indices of `e` that the target does not take are reduced:
`∀ i j, |W i j| ≤ w` bounds `w` below by `max |W i j|`.

The hypothesis stays evaluated in every trial as well (premises.py): a bound
that could not be met (`1 < x` with `x < -1`, a bound that is not finite)
leaves that trial vacuous, and counted, never silently wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from checkers.language.types import const_name, head_and_args
from checkers.premises.bound_plans import BoundPlan, crosses, is_zero, nonneg, reaches
from checkers.premises.bound_search import search
from checkers.premises.bound_values import NotNumeric, check_numeric
from theorem_index.lean import syntax as S

_FLIP = {"≥": "≤", ">": "<"}
_INTERVALS = {  # Set.I??: (lower strict or None, upper strict or None)
    "Set.Icc": (False, False),
    "Set.Ioo": (True, True),
    "Set.Ico": (False, True),
    "Set.Ioc": (True, False),
    "Set.Ici": (False, None),
    "Set.Ioi": (True, None),
    "Set.Iic": (None, False),
    "Set.Iio": (None, True),
}


# --- planning ----------------------------------------------------------------


def plan_bounds(
    prop: S.Term,
    hyp: str,
    text: str,
    reals: Sequence[str],
    dims: Sequence[str],
    existing: Sequence[BoundPlan] = (),
) -> list[BoundPlan] | None:
    """The bounds one hypothesis puts on the real inputs `reals` (in declaration order),
    or None when it is not of a shape above (`existing`: bounds planned already)."""
    return plan_all([(hyp, prop, text)], reals, dims, existing).get(hyp)


def plan_all(
    hyps: Sequence[tuple[str, S.Term, str]],
    reals: Sequence[str],
    dims: Sequence[str],
    existing: Sequence[BoundPlan] = (),
    nats: Sequence[str] = (),
) -> dict[str, list[BoundPlan]]:
    """The bounds of every hypothesis (name, proposition, text) that has a shape above.

    A hypothesis met in only one way is planned first; each of the others then takes
    the way least likely to conflict with the bounds planned so far (one that gives an
    input both a lower and an upper bound, which may cross, comes last), and among
    those the later-declared target. A way that would make inputs read each other is
    never taken; a hypothesis with a part that cannot be met stays a per-trial check.
    """
    found: list[tuple[str, list[list[list[BoundPlan]]]]] = []
    for hyp, prop, text in hyps:
        split = _split(prop)
        if split is None:
            continue
        labels, parts = split
        ways = [_ways(p, hyp, text, labels, reals, dims, nats) for p in parts]
        if all(ways):
            found.append((hyp, ways))
    order = sorted(range(len(found)), key=lambda k: (max(len(w) for w in found[k][1]), k))
    chosen = list(existing)
    out: dict[str, list[BoundPlan]] = {}
    taken: list[list[BoundPlan]] = []  # the way each part is met
    for k in order:
        hyp, ways = found[k]
        picked: list[list[BoundPlan]] = []
        for options in ways:
            best = _choose(options, chosen + [p for o in picked for p in o], reals)
            if best is None:
                break
            picked.append(best)
        else:
            out[hyp] = [p for o in picked for p in o]
            chosen.extend(out[hyp])
            taken.extend(picked)
    if len(out) == len(found) and crosses(taken, existing):
        better = search(found, existing)  # `l ≤ z → z ≤ u → u ≤ 0`: a chain, not a cross
        if better is not None:
            return better
    return out


def _split(prop: S.Term) -> tuple[tuple[str, ...], list[S.Term]] | None:
    """(the `∀`-bound indices, the conjuncts) of a hypothesis; None: a `∀` over non-indices."""
    labels: list[str] = []
    body = unfold_intervals(prop)
    while isinstance(body, S.Quant) and body.q == "∀" and body.bound is None:
        for binder in body.binders:
            ty = binder.type
            if ty is not None and const_name(head_and_args(ty)[0]) != "Fin":
                return None  # `∀ t : ℝ, ..`: not a bound over indices
            labels.extend(binder.names)
        body = body.body
    return tuple(labels), _conjuncts(body)


def _choose(
    options: Sequence[list[BoundPlan]], chosen: Sequence[BoundPlan], reals: Sequence[str]
) -> list[BoundPlan] | None:
    deps: dict[str, set[str]] = {}
    for b in chosen:
        deps.setdefault(b.target, set()).update(b.names)
    order = {n: i for i, n in enumerate(reals)}
    fine = [o for o in options if not _cyclic(o, deps)]
    if not fine:
        return None
    return min(fine, key=lambda o: (int(_may_cross(o, chosen)), -order[o[0].target]))


def _cyclic(option: Sequence[BoundPlan], deps: Mapping[str, set[str]]) -> bool:
    more = {k: set(v) for k, v in deps.items()}
    for p in option:
        more.setdefault(p.target, set()).update(p.names)
    return any(reaches(p.names, p.target, more) for p in option)


def _may_cross(option: Sequence[BoundPlan], chosen: Sequence[BoundPlan]) -> bool:
    """Whether the option may give an input a lower bound above its upper bound: it adds a
    side to an input bounded on the other side (unless one side is 0 and the other
    non-negative), or bounds an input both ways by a radius of unknown sign."""
    everything = [*chosen, *option]
    lows = {p.target for p in option if p.side == "lower"}
    for p in option:
        if p.side == "upper" and p.target in lows:  # both ways at once: |x - c| ≤ r
            r = p.expr.rhs if isinstance(p.expr, S.BinOp) and p.expr.op == "+" else p.expr
            implied = isinstance(r, S.Var | S.Ident) and any(q.target == r.name for q in option)
            if not (implied or nonneg(r, set())):
                return True
    for p in option:
        if p.side == "other":
            continue
        others = [
            b
            for b in everything
            if b.target == p.target and b.side not in (p.side, "other") and b.hyp != p.hyp
        ]
        for b in others:
            low, high = (p, b) if p.side == "lower" else (b, p)
            if not (is_zero(low.expr) and nonneg(high.expr, set())):
                return True
    return False


def unfold_intervals(t: S.Term) -> S.Term:
    """`x ∈ Set.Icc a b` (under `∀`) as `a ≤ x ∧ x ≤ b`, and so on: Mathlib's definitions
    of the intervals (`Set.mem_Icc` holds by `Iff.rfl`), which the evaluator knows."""
    if isinstance(t, S.Quant) and t.q == "∀" and t.bound is None:
        return S.Quant(t.q, t.binders, unfold_intervals(t.body), span=t.span)
    if not (isinstance(t, S.BinOp) and t.op == "∈"):
        return t
    head, args = head_and_args(t.rhs)
    kinds = _INTERVALS.get(_head_name(head) or "")
    if kinds is None or len(args) != sum(k is not None for k in kinds):
        return t
    it = iter(args)
    parts: list[S.Term] = []
    low, high = kinds
    if low is not None:
        parts.append(S.BinOp("<" if low else "≤", next(it), t.lhs, span=t.span))
    if high is not None:
        parts.append(S.BinOp("<" if high else "≤", t.lhs, next(it), span=t.span))
    return parts[0] if len(parts) == 1 else S.BinOp("∧", parts[0], parts[1], span=t.span)


def _head_name(t: S.Term) -> str | None:
    """`Set.Icc` written as a constant or as a projection `Set` `.Icc`."""
    if isinstance(t, S.Proj) and isinstance(t.field, str):
        inner = _head_name(t.term)
        return f"{inner}.{t.field}" if inner else None
    return const_name(t)


def _conjuncts(t: S.Term) -> list[S.Term]:
    if isinstance(t, S.BinOp) and t.op == "∧":
        return _conjuncts(t.lhs) + _conjuncts(t.rhs)
    return [t]


def _ways(
    t: S.Term,
    hyp: str,
    text: str,
    labels: tuple[str, ...],
    reals: Sequence[str],
    dims: Sequence[str],
    nats: Sequence[str] = (),
) -> list[list[BoundPlan]]:
    """Every way one comparison can be met by bounds (each a list of bounds); `nats` are
    the ℕ inputs, which a bound may use as an exponent."""

    def make(target: str, tl: tuple[str, ...], side: str, strict: bool, e: S.Term) -> BoundPlan:
        reads = frozenset(n for n in _free_inputs(e) if n in reals or n in nats)
        return BoundPlan(target, side, strict, e, tl, hyp, text, reads)

    if not (isinstance(t, S.BinOp) and t.op in ("<", "≤", ">", "≥", "≠")):
        return []
    op, small, big = t.op, t.lhs, t.rhs
    if op in _FLIP:
        op, small, big = _FLIP[op], big, small
    strict = op in ("<", "≠")
    options: list[list[BoundPlan]] = []
    for mine, other, side in ((small, big, "upper"), (big, small, "lower")):
        got = _target(mine, labels, reals)
        if got is not None:
            options.append([make(got[0], got[1], "other" if op == "≠" else side, strict, other)])
        if op != "≠" and side == "upper" and isinstance(mine, S.Abs):
            inner = _abs_target(mine.term, labels, reals)
            if inner is not None:
                (x, tl), centre = inner
                low = S.Prefix("-", other) if centre is None else S.BinOp("-", centre, other)
                high = other if centre is None else S.BinOp("+", centre, other)
                both = [make(x, tl, "lower", strict, low), make(x, tl, "upper", strict, high)]
                if isinstance(other, S.Var | S.Ident) and other.name in reals:
                    # |x| ≤ r implies 0 ≤ r: drawing r so loses no input where it holds
                    both.append(make(other.name, (), "lower", False, S.Num("0")))
                options.append(both)
    return [o for o in options if _acceptable(o, labels, reals, dims, nats)]


def _target(
    t: S.Term, labels: tuple[str, ...], reals: Sequence[str]
) -> tuple[str, tuple[str, ...]] | None:
    """(input, its index labels) when `t` is a real input, bare or applied to distinct labels
    (or a real field of a sampled structure, `M.u`, an input of that name)."""
    if isinstance(t, S.Var | S.Ident) and t.name in reals:
        return t.name, ()
    if isinstance(t, S.Proj) and isinstance(t.term, S.Var) and f"{t.term.name}.{t.field}" in reals:
        return f"{t.term.name}.{t.field}", ()
    head, args = head_and_args(t)
    if isinstance(head, S.Var | S.Ident) and head.name in reals and args:
        names = [a.name if isinstance(a, S.Var | S.Ident) else None for a in args]
        if all(n in labels for n in names) and len(set(names)) == len(names):
            return head.name, tuple(n for n in names if n is not None)
    return None


def _abs_target(
    t: S.Term, labels: tuple[str, ...], reals: Sequence[str]
) -> tuple[tuple[str, tuple[str, ...]], S.Term | None] | None:
    """`x`, `x - c` or `c - x` inside `|·|`: (the target, the centre c or None)."""
    got = _target(t, labels, reals)
    if got is not None:
        return got, None
    if isinstance(t, S.BinOp) and t.op == "-":
        for mine, centre in ((t.lhs, t.rhs), (t.rhs, t.lhs)):
            got = _target(mine, labels, reals)
            if got is not None:
                return got, centre
    return None


def _acceptable(
    plans: Sequence[BoundPlan],
    labels: tuple[str, ...],
    reals: Sequence[str],
    dims: Sequence[str],
    nats: Sequence[str],
) -> bool:
    for p in plans:
        try:
            check_numeric(p.expr, set(labels), set(reals), set(dims) | set(nats))
        except NotNumeric:
            return False
        if p.target in p.names:
            return False
        if p.side == "other" and set(_labels_in(p.expr, labels)) - set(p.labels):
            return False  # `∀ i, x ≠ v i`: no single value to avoid
    return True


def _free_inputs(t: S.Term) -> list[str]:
    out: list[str] = []

    def walk(u: S.Term, bound: frozenset[str]) -> None:
        if isinstance(u, S.Var | S.Ident):
            if u.name not in bound:
                out.append(u.name)
        elif isinstance(u, S.BigOp):
            inner = bound | {n for b in u.binders for n in b.names}
            walk(u.body, inner)
        else:
            for child in _children(u):
                walk(child, bound)

    walk(t, frozenset())
    return out


def _labels_in(t: S.Term, labels: Sequence[str]) -> list[str]:
    return [n for n in _free_inputs(t) if n in labels]


def _children(t: S.Term) -> list[S.Term]:
    if isinstance(t, S.App):
        return [t.fn, *t.args]
    if isinstance(t, S.BinOp):
        return [t.lhs, t.rhs]
    if isinstance(t, S.Prefix | S.Abs):
        return [t.arg if isinstance(t, S.Prefix) else t.term]
    if isinstance(t, S.Typed):
        return [t.term]
    return []
