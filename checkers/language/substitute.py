"""Capture-avoiding substitution of terms for variables in a Lean term tree.

`substitute(t, {"l": e, ...}, avoid)` replaces every free `Var` named in the
mapping by its term. A name bound inside `t` (by `∀`/`∃`, `fun`, `∑`, `let`,
a dependent arrow, an integral, `if h :`) that occurs in `avoid` or free in a
replacement is renamed first (`z` to `z'`, ...), so that no replacement's
variable is captured and no bound name of `t` collides with a name in scope.
A binding form whose bound names are patterns (`match`, `fun ⟨a, b⟩ =>`, a
set-builder) is entered only where none of its names needs renaming; otherwise
`Capture` is raised, and the caller refuses to unfold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from theorem_index.lean import syntax as S

__all__ = ["Capture", "names_in", "substitute"]


class Capture(Exception):
    """A substitution would capture a variable in a form whose names are patterns."""


def names_in(t: Any) -> set[str]:
    """Every variable name written in `t`, free or bound (an over-approximation of its
    free variables, which is all renaming needs)."""
    out: set[str] = set()
    for u in S.subterms(t):
        if isinstance(u, S.Var | S.Ident) and "." not in u.name:
            out.add(u.name)
        elif isinstance(u, S.Binder):
            out.update(u.names)
        elif isinstance(u, S.Let) and u.name:
            out.add(u.name)
    return out


def substitute(t: S.Term, mapping: Mapping[str, S.Term], avoid: set[str] | frozenset[str]) -> Any:
    """`t` with the free variables in `mapping` replaced (see the module)."""
    clash = set(avoid)
    for v in mapping.values():
        clash |= names_in(v)
    return _Subst(clash).term(t, dict(mapping))


class _Subst:
    def __init__(self, clash: set[str]) -> None:
        self.clash = clash

    def fresh(self, name: str, body: Any) -> str:
        taken = self.clash | names_in(body)
        new = name + "'"
        while new in taken:
            new += "'"
        self.clash.add(new)
        return new

    def term(self, t: Any, m: dict[str, S.Term]) -> Any:
        if isinstance(t, tuple):
            return tuple(self.term(x, m) for x in t)
        if not isinstance(t, S.Term):
            return t
        if isinstance(t, S.Var):
            return m.get(t.name, t)
        if not m:
            return t
        if isinstance(t, S.Quant | S.Lam | S.BigOp | S.Pi | S.Integral):
            return self.binding(t, m)
        if isinstance(t, S.Let):
            return self.let(t, m)
        if isinstance(t, S.If) and t.hyp is not None:
            inner = {k: v for k, v in m.items() if k != t.hyp}
            if t.hyp in self.clash:
                raise Capture(t.hyp)
            return dataclasses.replace(
                t,
                cond=self.term(t.cond, m),
                then=self.term(t.then, inner),
                els=self.term(t.els, inner),
            )
        if isinstance(t, S.MatchAlt | S.LamMatch | S.SetBuilder | S.Subtype):
            bound = _pattern_names(t)
            if bound & self.clash and _mentions(t, m):
                raise Capture(", ".join(sorted(bound & self.clash)))
            m = {k: v for k, v in m.items() if k not in bound}
        changes = {f: self.term(getattr(t, f), m) for f in S.node_fields(type(t))}
        return dataclasses.replace(t, **changes)

    def binding(self, t: Any, m: dict[str, S.Term]) -> Any:
        outer = m
        m = dict(m)
        binders: list[S.Binder] = []
        body = t.body
        later: list[S.Binder] = list(t.binders)
        while later:
            b = later.pop(0)
            if b.pattern is not None:
                if names_in(b.pattern) & self.clash and _mentions(body, m):
                    raise Capture("a pattern binder")
                binders.append(b)
                continue
            ty = self.term(b.type, m) if b.type is not None else None
            names: list[str] = []
            for n in b.names:
                if n in self.clash and n != "_":
                    new = self.fresh(n, (body, tuple(later)))
                    ren: dict[str, S.Term] = {n: S.Var(new)}
                    body = _Subst(set(self.clash)).term(body, ren)
                    later = [_Subst(set(self.clash)).term(x, ren) for x in later]
                    n = new
                m.pop(n, None)
                names.append(n)
            binders.append(dataclasses.replace(b, names=tuple(names), type=ty))
        changes: dict[str, Any] = {"binders": tuple(binders), "body": self.term(body, m)}
        if isinstance(t, S.Quant) and t.bound is not None:
            changes["bound"] = (t.bound[0], self.term(t.bound[1], outer))
        if isinstance(t, S.BigOp | S.Integral) and t.domain is not None:
            changes["domain"] = self.term(t.domain, outer)
        if isinstance(t, S.Integral) and t.measure is not None:
            changes["measure"] = self.term(t.measure, outer)
        return dataclasses.replace(t, **changes)

    def let(self, t: S.Let, m: dict[str, S.Term]) -> S.Let:
        if t.binders or t.pattern is not None:
            if _mentions(t, m) and (names_in((t.binders, t.pattern)) | {t.name}) & self.clash:
                raise Capture(t.name or "a let pattern")
        value = self.term(t.value, m)
        ty = self.term(t.type, m) if t.type is not None else None
        name, body = t.name, t.body
        if name and name in self.clash:
            new = self.fresh(name, body)
            body = _Subst(set(self.clash)).term(body, {name: S.Var(new)})
            name = new
        inner = {k: v for k, v in m.items() if k != name}
        return dataclasses.replace(t, name=name, value=value, type=ty, body=self.term(body, inner))


def _pattern_names(t: S.Term) -> set[str]:
    if isinstance(t, S.MatchAlt):
        return names_in(t.patterns)
    if isinstance(t, S.SetBuilder | S.Subtype):
        return set(t.binder.names) | names_in(t.binder.pattern)
    return set()


def _mentions(t: Any, m: Mapping[str, S.Term]) -> bool:
    return any(isinstance(u, S.Var) and u.name in m for u in S.subterms(t))
