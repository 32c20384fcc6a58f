"""A canonical form of resolved statements, and where two statements first differ.

Two renderings of one Lean statement (a doc-gen4 page and the Lean source,
say) differ in layout that carries no meaning. `canonical` removes it from a
resolved tree:

- binder groups are split, one name per binder (`{N a c : ℕ}` is `{N : ℕ} {a
  : ℕ} {c : ℕ}`); the binders of `fun`/`∑`/`∀` are all `explicit`
  (`fun v : T =>` is `fun (v : T) =>`); an instance binder loses its name;
- curried forms are merged: `f a b` is `(f a) b`, `fun x => fun y => e` is
  `fun x y => e`, `∀ x, ∀ y, p` is `∀ x y, p`;
- generalised field notation on a variable or constant whose type is known
  becomes the application it abbreviates (`W.flatten` with `W : Mat a c` is
  `Mat.flatten W`) when that constant is known;
- universe variables are erased (`Type u_1` is `Type*`).

Parentheses that only group, whitespace and spans are never part of a tree.
`first_difference` then compares two canonical statements: the bound
variables of `fun`/`∑`/`∀`/... compare up to renaming, a binder written
without a type matches any type (Lean infers it from the same context), and
everything else must be equal. It returns the first place where they differ,
as a path (`rhs › argument 1`) and the two subterms there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .binding_printer import print_binder
from .errors import LeanParseError
from .known import KnownNames
from .parser import _Parser, _run
from .printer import print_term
from .resolve import type_head
from .syntax import (
    App,
    BigOp,
    Binder,
    BinOp,
    Const,
    Integral,
    Lam,
    Pi,
    Proj,
    Quant,
    Sort,
    Term,
    Var,
    node_fields,
)

__all__ = ["Difference", "canonical", "first_difference", "parse_definition", "parse_signature"]

_BINDING = (Lam, BigOp, Integral, Quant, Pi)
_OPENERS = ("(", "{", "⦃", "[")
Scope = Mapping[str, str | None]


def _signature(p: _Parser) -> tuple[tuple[Binder, ...], Term]:
    binders = []
    while any(p.at(o) for o in _OPENERS):
        binders.append(p.bracketed())
    p.expect(":")
    return tuple(binders), p.expr(0)


def parse_signature(text: str) -> tuple[tuple[Binder, ...], Term]:
    """`{N : ℕ} (x : Vec N) : lhs = rhs` as (binders, statement); raises LeanParseError."""
    if not text.strip():
        raise LeanParseError("expected binders and ': statement', found end of input", text, 0)
    result = _run(text, _signature)
    assert isinstance(result, tuple)
    return result


def parse_definition(text: str) -> tuple[tuple[Binder, ...], Term | None, Term]:
    """`{n : ℕ} (x : Vec n) : ℝ := ∑ i, x i` (a definition after its name) as (binders,
    type, body), the type None when it is left out (`(n : ℕ) := Fin n → ℝ`); raises
    LeanParseError."""

    def definition(p: _Parser) -> tuple[tuple[Binder, ...], Term | None, Term]:
        binders: list[Binder] = []
        while any(p.at(o) for o in _OPENERS):
            binders.append(p.bracketed())
        type_ = None
        if not p.at(":="):
            p.expect(":")
            type_ = p.expr(0)
        p.expect(":=")
        return tuple(binders), type_, p.expr(0)

    if not text.strip():
        raise LeanParseError("expected binders and ':= body', found end of input", text, 0)
    result = _run(text, definition)
    assert isinstance(result, tuple)
    return result


# --- the canonical form ----------------------------------------------------------


def _rebuild(t: Any, **changes: Any) -> Any:
    kw = {n: changes[n] if n in changes else getattr(t, n) for n in node_fields(type(t))}
    return type(t)(**kw, span=t.span)


class _Canon:
    def __init__(self, known: KnownNames) -> None:
        self.known = known

    def binders(self, bs: Sequence[Binder], scope: Scope) -> tuple[tuple[Binder, ...], Scope]:
        inner = dict(scope)
        out: list[Binder] = []
        for b in bs:
            ty = self.term(b.type, inner) if b.type is not None else None
            default = self.term(b.default, inner) if b.default is not None else None
            pattern = self.term(b.pattern, inner) if b.pattern is not None else None
            kind = "explicit" if b.kind == "plain" else b.kind
            if b.kind == "inst" or pattern is not None or not b.names:
                names: tuple[tuple[str, ...], ...] = ((),) if b.kind == "inst" else (b.names,)
            else:
                names = tuple((n,) for n in b.names)
            for group in names:
                out.append(Binder(kind, group, ty, default, pattern, span=b.span))
            head = type_head(ty)
            for n in b.names:
                inner[n] = head
        return tuple(out), inner

    def term(self, t: Term, scope: Scope) -> Term:
        if isinstance(t, _BINDING):
            return self._binding(t, scope)
        if isinstance(t, App):
            fn = self.term(t.fn, scope)
            args = tuple(self.term(a, scope) for a in t.args)
            if isinstance(fn, App):
                return App(fn.fn, fn.args + args, span=t.span)
            return App(fn, args, span=t.span)
        if isinstance(t, Proj):
            return self._proj(t, scope)
        if isinstance(t, Sort):
            return t if t.level.isdigit() or not t.level else Sort(t.kind, "", span=t.span)
        if isinstance(t, Binder):
            ty = self.term(t.type, scope) if t.type is not None else None
            kind = "explicit" if t.kind == "plain" else t.kind
            return _rebuild(t, kind=kind, type=ty)
        changes = {}
        for name in node_fields(type(t)):
            value = getattr(t, name)
            changes[name] = self._value(value, scope)
        return _rebuild(t, **changes)

    def _value(self, v: Any, scope: Scope) -> Any:
        if isinstance(v, Term):
            return self.term(v, scope)
        if isinstance(v, tuple) and v and all(isinstance(x, Binder) for x in v):
            return self.binders(v, scope)[0]
        if isinstance(v, tuple):
            return tuple(self._value(x, scope) for x in v)
        return v

    def _binding(self, t: Any, scope: Scope) -> Term:
        binders, inner = self.binders(t.binders, scope)
        changes: dict[str, Any] = {"binders": binders}
        for name in node_fields(type(t)):
            if name == "binders":
                continue
            # a big operator's domain and a quantifier's bound lie outside the binders' scope
            outer = name in ("domain", "bound")
            changes[name] = self._value(getattr(t, name), scope if outer else inner)
        body: Any = changes["body"]
        merge = isinstance(t, Lam | Pi | Quant) and type(body) is type(t)
        if merge and isinstance(t, Quant):
            merge = t.q == body.q and t.bound is None and body.bound is None
        if merge:
            changes["binders"] = binders + body.binders
            changes["body"] = body.body
        return _rebuild(t, **changes)

    def _proj(self, t: Proj, scope: Scope) -> Term:
        inner = self.term(t.term, scope)
        if not t.field.isdigit():
            head: str | None = None
            if isinstance(inner, Var):
                head = scope.get(inner.name)
            elif isinstance(inner, Const):
                head = self.known.type_head(inner.name)
            full = f"{head}.{t.field}" if head else None
            if full is not None and full in self.known:
                written = f"{head.rsplit('.', 1)[-1]}.{t.field}" if head else full
                return App(Const(full, written, span=t.span), (inner,), span=t.span)
        return Proj(inner, t.field, span=t.span)


def canonical(
    binders: Sequence[Binder], statement: Term, known: KnownNames | None = None
) -> tuple[tuple[Binder, ...], Term]:
    """The canonical form of a resolved signature (see the module docstring)."""
    canon = _Canon(known if known is not None else KnownNames())
    bs, scope = canon.binders(binders, {})
    return bs, canon.term(statement, scope)


# --- comparing -----------------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    """Where two statements first differ: a path, and the subterm each has there."""

    path: tuple[str, ...]
    left: str
    right: str

    def __str__(self) -> str:
        where = " › ".join(self.path) or "statement"
        return f"{where}: `{self.left}` vs `{self.right}`"


_ELIDE = 72
_HEADS = {Lam: "fun", Pi: "∀", Integral: "∫"}


def _show(x: Any) -> str:
    if x is None:
        return "(nothing)"
    if isinstance(x, Binder):
        text = print_binder(x)
    elif isinstance(x, Term):
        text = print_term(x)
    elif isinstance(x, tuple):
        text = " ".join(_show(v) for v in x) or "(nothing)"
    else:
        text = str(x)
    return text if len(text) <= _ELIDE else text[: _ELIDE - 1] + "…"


_Found = tuple[tuple[str, ...], Any, Any] | None
_Ren = tuple[Mapping[str, str], Mapping[str, str]]


def _label(node: Term, field: str, index: int | None) -> str:
    if isinstance(node, BinOp) and field in ("lhs", "rhs"):
        return field
    if isinstance(node, App):
        if field == "fn":
            return "function"
        head = print_term(node.fn)
        head = head if len(head) <= 30 else head[:29] + "…"
        return f"argument {(index or 0) + 1} of `{head}`"
    if isinstance(node, _BINDING) and field == "body":
        what = _HEADS.get(type(node)) or getattr(node, "op", "") or getattr(node, "q", "")
        return f"body of `{what}`"
    if index is not None:
        return f"{'component' if field == 'items' else field} {index + 1}"
    return field


def _compare_fields(node_a: Any, node_b: Any, path: tuple[str, ...], ren: _Ren) -> _Found:
    for f in dataclasses.fields(node_a):
        if f.name == "span" or not f.compare:
            continue
        a, b = getattr(node_a, f.name), getattr(node_b, f.name)
        if isinstance(a, tuple) and isinstance(b, tuple) and f.name != "bound":
            if len(a) != len(b):
                return (*path, _label(node_a, f.name, None)), a, b
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                found = _diff(x, y, (*path, _label(node_a, f.name, i)), ren)
                if found is not None:
                    return found
            continue
        if not isinstance(a, Term | tuple) or not isinstance(b, Term | tuple):
            if a != b:  # a name, an operator or a literal: the node itself differs
                return path, node_a, node_b
            continue
        found = _diff(a, b, (*path, _label(node_a, f.name, None)), ren)
        if found is not None:
            return found
    return None


def _binder_diff(a: Binder, b: Binder, path: tuple[str, ...], ren: _Ren) -> _Found:
    if a.kind != b.kind:
        return path, a, b
    for field in ("type", "default", "pattern"):
        x, y = getattr(a, field), getattr(b, field)
        if x is None or y is None:
            if (x is None) != (y is None) and field != "type":  # only a type may be left out
                return path, a, b
            continue
        found = _diff(x, y, path, ren)
        if found is not None:
            return found
    return None


def _bind(bs_a: Sequence[Binder], bs_b: Sequence[Binder], path: tuple[str, ...], ren: _Ren):
    """Compare binder lists in sequence; the renaming that holds after them, or a difference."""
    fwd, back = dict(ren[0]), dict(ren[1])
    if len(bs_a) != len(bs_b):
        return ((*path, "binders"), tuple(bs_a), tuple(bs_b)), ren
    for a, b in zip(bs_a, bs_b, strict=True):
        found = _binder_diff(a, b, (*path, f"binder `{_show(a)}`"), (fwd, back))
        if found is not None:
            return found, ren
        if a.pattern is not None:
            continue  # pattern variables are compared by name
        for x, y in zip(a.names, b.names, strict=True):
            fwd[x], back[y] = y, x
    return None, (fwd, back)


def _diff(a: Any, b: Any, path: tuple[str, ...], ren: _Ren) -> _Found:
    if type(a) is not type(b):
        return path, a, b
    if isinstance(a, Var):
        fwd, back = ren
        expected = fwd.get(a.name, a.name)
        return None if expected == b.name and back.get(b.name, b.name) == a.name else (path, a, b)
    if isinstance(a, _BINDING):
        found, inner = _bind(a.binders, b.binders, path, ren)
        if found is not None:
            return found
        for name in node_fields(type(a)):
            if name == "binders":
                continue
            outer = name in ("domain", "bound")
            label = _label(a, name, None)
            found = _diff(
                getattr(a, name), getattr(b, name), (*path, label), ren if outer else inner
            )
            if found is not None:
                return found
        return None
    if isinstance(a, Binder):
        return _binder_diff(a, b, path, ren)
    if isinstance(a, Term):
        return _compare_fields(a, b, path, ren)
    if isinstance(a, tuple):
        if len(a) != len(b):
            return path, a, b
        for x, y in zip(a, b, strict=True):
            found = _diff(x, y, path, ren)
            if found is not None:
                return found
        return None
    return None if a == b else (path, a, b)


def first_difference(
    left: tuple[Sequence[Binder], Term], right: tuple[Sequence[Binder], Term]
) -> Difference | None:
    """Where two canonical signatures first differ, or None when they state the same.

    The signatures' own binders must agree name for name (a checker's inputs
    are named after them); variables bound inside the statement compare up to
    renaming.
    """
    (bs_a, st_a), (bs_b, st_b) = left, right
    for k in range(max(len(bs_a), len(bs_b))):
        a = bs_a[k] if k < len(bs_a) else None
        b = bs_b[k] if k < len(bs_b) else None
        if a is None or b is None or a.names != b.names or a.kind != b.kind:
            return Difference((f"binder {k + 1}",), _show(a), _show(b))
    ren: _Ren = ({}, {})
    found, ren = _bind(bs_a, bs_b, (), ren)
    if found is None:
        found = _diff(st_a, st_b, (), ren)
    if found is None:
        return None
    path, x, y = found
    shown_x, shown_y = _show(x), _show(y)
    if shown_x == shown_y and isinstance(x, Var):
        shown_y += " (another binding)"
    return Difference(tuple(path), shown_x, shown_y)
