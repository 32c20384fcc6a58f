"""A real binder bounded by terms the sampler cannot compute, sampled inside its bounds.

`∀ z, l t ≤ z → z ≤ u t → P z` with `l t`, `u t` terms bounds.py cannot evaluate
before a trial (a definition applied to a sampled index, say) would leave most
trials vacuous if z were drawn on its own. Such a z is sampled as

    z := l + s · (u - l)   with s ∈ [0, 1]   (both bounds; `<` makes s's side strict)
    z := l + s, z := u - s with s ≥ 0          (one bound)

a point of every interval [l, u] that is not empty, so the statement is the same
(Lean's `∀ z`, over the z that satisfy the premises). The theorem's own binders
are drawn so as well as those of its statement (`(hscaleA : |sdpa_scale d| ≤
scaleA)` would otherwise hold in about a third of the trials). The premises stay evaluated
per trial, so a trial with `l > u` (no such z) or one rounded outside is vacuous
and counted; `0 ≤ s`, `s ≤ 1` are bounds the sampler meets. The checker's
assumptions say how each such z was drawn.

A real binder that a hypothesis defines, `(h : z = e)` or `(h : e = z)` with e free of z
(`HasDerivAt f f' x` read as `deriv f x = f'`), is not drawn at all: z := (e : ℝ) in
every later binder and in the relation, the hypothesis dropped (`_defined`), and the
assumptions say so. Drawn, z would meet the hypothesis in no trial.
"""

from __future__ import annotations

import dataclasses

from checkers.language.substitute import names_in, substitute
from checkers.language.types import COMPLEX_NAMES, REAL_NAMES
from checkers.premises.bound_values import NotNumeric, check_numeric
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

__all__ = ["reparametrise"]

_FLIP = {"≥": "≤", ">": "<"}


def reparametrise(
    every: tuple[S.Binder, ...], extra: tuple[S.Binder, ...], core: S.BinOp
) -> tuple[tuple[S.Binder, ...], tuple[S.Binder, ...], S.BinOp, tuple[str, ...]]:
    """(every binder, the statement's binders, the relation, notes) with each real binder
    of `extra` whose bounds are not numeric drawn inside them (see the module)."""
    notes: list[str] = []
    start = len(every) - len(extra)
    # one binder a name, each marked whether it is among the statement's binders
    items: list[S.Binder] = []
    inside: list[bool] = []
    for k, b in enumerate(every):
        group = _is_number(b.type) and len(b.names) > 1 and b.pattern is None
        parts = [dataclasses.replace(b, names=(n,)) for n in b.names] if group else [b]
        items.extend(parts)
        inside.extend([k >= start] * len(parts))
    items, inside, core = _defined(items, inside, core, notes)
    k = 0
    while k < len(items):
        got = _rewrite(items, k, core)
        if got is not None:
            new, core, note = got
            added = len(new) - len(items)
            inside[k + 1 : k + 1] = [inside[k]] * added
            items = new
            notes.append(note)
        k += 1
    if not notes:
        return every, extra, core, ()
    return (
        tuple(items),
        tuple(b for b, x in zip(items, inside, strict=True) if x),
        core,
        tuple(notes),
    )


def _defined(
    items: list[S.Binder], inside: list[bool], core: S.BinOp, notes: list[str]
) -> tuple[list[S.Binder], list[bool], S.BinOp]:
    """Each real or complex binder z that a hypothesis `z = e` (or `e = z`) defines, e
    without z, is not drawn: z := (e : ℝ) (or ℂ) everywhere, the hypothesis dropped. The
    statement is the same (Lean's `∀ z, z = e → P z` is `P e`); drawn, z would meet the
    hypothesis in no trial."""
    k = 0
    while k < len(items):
        b = items[k]
        if len(b.names) != 1 or b.pattern is not None or not _is_number(b.type):
            k += 1
            continue
        z = b.names[0]
        found = None
        for j in range(k + 1, len(items)):
            e = _definition_of(items[j].type, z)
            if e is None:
                continue
            free = names_in(e) - _bound_inside(e)
            # a binder e reads may not depend on z itself (no cycle)
            if any(
                x.type is not None and z in names_in(x.type) for x in items if set(x.names) & free
            ):
                continue
            found = j, e
            break
        if found is None:
            k += 1
            continue
        j, e = found
        assert isinstance(b.type, S.Const | S.Ident)
        value = S.Typed(e, b.type)  # e at z's type, ℝ or ℂ
        avoid = frozenset({n for x in items for n in x.names} | names_in(core))
        keep = [m for m in range(len(items)) if m not in (k, j)]
        new_items = [_substituted(items[m], z, value, avoid) for m in keep]
        hyp = items[j]
        assert hyp.type is not None
        notes.append(
            f"{z} is not drawn: the hypothesis {' '.join(hyp.names) or '_'} : "
            f"{print_term(hyp.type)} defines it"
        )
        out = substitute(core, {z: value}, avoid)
        assert isinstance(out, S.BinOp)
        items, inside, core = new_items, [inside[m] for m in keep], out
    return items, inside, core


def _substituted(b: S.Binder, z: str, value: S.Term, avoid: frozenset[str]) -> S.Binder:
    if b.type is None:
        return b
    return dataclasses.replace(b, type=substitute(b.type, {z: value}, avoid))


def _definition_of(t: S.Term | None, z: str) -> S.Term | None:
    """e where `t` is `z = e` or `e = z` with e not mentioning z."""
    while isinstance(t, S.Paren):
        t = t.term
    if not (isinstance(t, S.BinOp) and t.op == "="):
        return None
    for var, e in ((t.lhs, t.rhs), (t.rhs, t.lhs)):
        while isinstance(var, S.Paren):
            var = var.term
        if isinstance(var, S.Var) and var.name == z and z not in names_in(e):
            return e
    return None


def _rewrite(
    items: list[S.Binder], k: int, core: S.BinOp
) -> tuple[list[S.Binder], S.BinOp, str] | None:
    b = items[k]
    if len(b.names) != 1 or b.pattern is not None or not _is_real(b.type):
        return None
    z = b.names[0]
    before = {n for x in items[:k] for n in x.names}
    reals = {n for x in items[:k] if _is_real(x.type) for n in x.names}
    dims = {n for x in items[:k] for n in x.names if not _is_real(x.type)}
    low = high = None
    for h in items[k + 1 :]:
        side = _bound_of(h.type, z)
        if side is None:
            continue
        kind, strict, e = side
        if not (names_in(e) - _bound_inside(e)) <= before:
            continue  # it reads a binder declared after z
        if kind == "lower" and low is None:
            low = (strict, e)
        elif kind == "upper" and high is None:
            high = (strict, e)
    if low is None and high is None:
        return None
    if all(_numeric(e, reals, dims) for _, e in (x for x in (low, high) if x is not None)):
        return None  # bounds.py meets them
    taken = {n for x in items for n in x.names} | names_in(core)
    s = z + "ₛ"
    while s in taken:
        s += "'"
    sv = S.Var(s)
    real = S.Const("Real", written="ℝ")
    premises: list[S.Binder] = []

    def hyp(op: str, lhs: S.Term, rhs: S.Term) -> None:
        premises.append(S.Binder("explicit", (f"_{s}{len(premises)}",), S.BinOp(op, lhs, rhs)))

    zero, one = S.Num("0"), S.Num("1")
    if low is not None and high is not None:
        value: S.Term = S.BinOp("+", low[1], S.BinOp("*", sv, S.BinOp("-", high[1], low[1])))
        hyp("<" if low[0] else "≤", zero, sv)
        hyp("<" if high[0] else "≤", sv, one)
        how = f"{s} ∈ [0, 1] as {print_term(value)}"
    elif low is not None:
        value = S.BinOp("+", low[1], sv)
        hyp("<" if low[0] else "≤", zero, sv)
        how = f"{s} ≥ 0 as {print_term(value)}"
    else:
        assert high is not None
        value = S.BinOp("-", high[1], sv)
        hyp("<" if high[0] else "≤", zero, sv)
        how = f"{s} ≥ 0 as {print_term(value)}"
    avoid = frozenset(taken | {s})
    rest = [
        dataclasses.replace(x, type=substitute(x.type, {z: value}, avoid))
        if x.type is not None
        else x
        for x in items[k + 1 :]
    ]
    new = [*items[:k], S.Binder("explicit", (s,), real), *premises, *rest]
    note = (
        f"{z} is drawn from its bounds through {how}: the bounds are not numbers the "
        "sampler computes before a trial"
    )
    out = substitute(core, {z: value}, avoid)
    assert isinstance(out, S.BinOp)
    return new, out, note


def _is_number(t: S.Term | None) -> bool:
    """A binder type of ℝ or ℂ (what `_defined` replaces by the term defining it)."""
    return isinstance(t, S.Const | S.Ident) and t.name in REAL_NAMES | COMPLEX_NAMES


def _is_real(t: S.Term | None) -> bool:
    return isinstance(t, S.Const | S.Ident) and t.name in REAL_NAMES


def _bound_of(t: S.Term | None, z: str) -> tuple[str, bool, S.Term] | None:
    """('lower' | 'upper', strict, the bound) where `t` compares z alone with a term
    that does not mention it."""
    if not (isinstance(t, S.BinOp) and t.op in ("≤", "<", "≥", ">")):
        return None
    op, small, big = t.op, t.lhs, t.rhs
    if op in _FLIP:
        op, small, big = _FLIP[op], big, small
    strict = op == "<"
    if isinstance(big, S.Var) and big.name == z and z not in names_in(small):
        return "lower", strict, small
    if isinstance(small, S.Var) and small.name == z and z not in names_in(big):
        return "upper", strict, big
    return None


def _bound_inside(e: S.Term) -> set[str]:
    """The names `e` binds itself (`∑ j, ..`): not binders of the statement."""
    return {n for u in S.subterms(e) if isinstance(u, S.Binder) for n in u.names}


def _numeric(e: S.Term, reals: set[str], dims: set[str]) -> bool:
    try:
        check_numeric(e, set(), reals, dims)
    except NotNumeric:
        return False
    return True
