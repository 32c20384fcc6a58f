"""Name resolution: every `Ident` becomes a bound `Var` or a `Const` with its full name.

A name that is not bound is looked up as Lean does (lookup.py). A dotted name whose
head is a bound variable is generalised field notation (`n.succ` is
`Proj(Var('n'), 'succ')`); one whose longest resolvable prefix is a constant is field
notation on that constant (`finProdFinEquiv.symm`). A name that resolves nowhere is
kept as `Const(name)` and reported as unknown, never an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .known import KnownNames
from .lookup import NameLookup
from .precedence import MOD_EQ, NOTATION_CONSTANTS, PREFIX_CONSTANTS
from .syntax import (
    App,
    BigOp,
    Binder,
    BinOp,
    By,
    CDot,
    CharLit,
    Const,
    Decimal,
    Do,
    DotIdent,
    Hole,
    Ident,
    If,
    Integral,
    Lam,
    LamMatch,
    Let,
    Match,
    MatchAlt,
    ModEq,
    NamedArg,
    Num,
    Paren,
    Pi,
    Prefix,
    Proj,
    Quant,
    SetBuilder,
    Sort,
    Str,
    Subtype,
    Term,
    Var,
    node_fields,
)

_BIGOP_CONSTANTS = {"∑": "Finset.sum", "∏": "Finset.prod", "∑'": "tsum", "∏'": "tprod"}


@dataclass(frozen=True)
class ResolvedTerm:
    term: Term
    constants: tuple[str, ...]
    unknown: tuple[str, ...]


def _rebuild(t: Any, **changes: Any) -> Any:
    """`t` with some fields replaced (a faster `dataclasses.replace`)."""
    kw = {n: changes[n] if n in changes else getattr(t, n) for n in node_fields(type(t))}
    return type(t)(**kw, span=t.span)


def _split(name: str) -> list[str]:
    if "«" not in name:
        return name.split(".")
    parts: list[str] = []
    cur: list[str] = []
    quoted = False
    for ch in name:
        if ch == "«":
            quoted = True
        elif ch == "»":
            quoted = False
        if ch == "." and not quoted:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def type_head(t: Term | None) -> str | None:
    """The fully qualified constant at the head of a resolved type (`Mat N a` -> `Proofs.Mat`)."""
    while isinstance(t, App):
        t = t.fn
    return t.name if isinstance(t, Const) else None


class Resolver(NameLookup):
    """Resolves names for one declaration context; reusable across its terms."""

    # --- walking -------------------------------------------------------------

    def ident(self, t: Ident, scope: Mapping[str, str | None]) -> Term:
        name = t.name
        if name == "..":  # the ellipsis pattern `.conv ..`
            return t
        parts = _split(name)
        head = parts[0]
        if head in scope:
            out: Term = Var(head, span=t.span)
            ty = scope[head]
            for field in parts[1:]:
                self.field_constant(ty, field)
                out = Proj(out, field, span=t.span)
                ty = None
            return out
        if name in NOTATION_CONSTANTS and name not in self.links:
            full = NOTATION_CONSTANTS[name]
            self.constants.add(full)
            return Const(full, name, span=t.span)
        for n in range(len(parts), 0, -1):
            prefix = ".".join(parts[:n])
            found = self.lookup(prefix)
            if found is None:
                continue
            self.constants.add(found)
            out = Const(found, prefix, span=t.span)
            ty = self.known.type_head(found)
            for field in parts[n:]:
                self.field_constant(ty, field)
                out = Proj(out, field, span=t.span)
                ty = None
            return out
        self.unknown.add(name)
        return Const(name, name, span=t.span)

    def term(self, t: Term, scope: Mapping[str, str | None]) -> Term:
        handler = _HANDLERS.get(type(t))
        if handler is not None:
            return handler(self, t, scope)
        return self.generic(t, scope)

    def generic(self, t: Term, scope: Mapping[str, str | None]) -> Term:
        changed = False
        values = {}
        for name in node_fields(type(t)):
            value = getattr(t, name)
            if value is None or type(value) is str:
                values[name] = value
                continue
            new = self.value(value, scope)
            changed = changed or new is not value
            values[name] = new
        return type(t)(**values, span=t.span) if changed else t

    def value(self, v: Any, scope: Mapping[str, str | None]) -> Any:
        if isinstance(v, Term):
            return self.term(v, scope)
        if type(v) is tuple and v:
            out = tuple([self.value(x, scope) for x in v])
            return v if all(a is b for a, b in zip(out, v, strict=True)) else out
        return v

    def binders(
        self, bs: Iterable[Binder], scope: Mapping[str, str | None]
    ) -> tuple[tuple[Binder, ...], dict[str, str | None]]:
        """Resolve binder groups in sequence; each sees the names bound before it."""
        inner = dict(scope)
        out = []
        for b in bs:
            ty = self.term(b.type, inner) if b.type is not None else None
            default = self.term(b.default, inner) if b.default is not None else None
            pattern = None
            if b.pattern is not None:
                pvars = self.pattern_vars(b.pattern, inner)
                pattern = self.term(b.pattern, {**inner, **dict.fromkeys(pvars)})
                inner.update(dict.fromkeys(pvars))
            head = type_head(ty)
            for name in b.names:
                if name != "_":
                    inner[name] = head
            out.append(_rebuild(b, type=ty, default=default, pattern=pattern))
        return tuple(out), inner

    def pattern_vars(self, p: Term, scope: Mapping[str, str | None]) -> list[str]:
        """Names a pattern binds: simple identifiers that are not known constants and
        not in function position."""
        out: list[str] = []
        self._collect(p, scope, out)
        return out

    def _collect(self, p: Any, scope: Mapping[str, str | None], out: list[str]) -> None:
        if isinstance(p, Ident):
            if "." not in p.name and p.name not in NOTATION_CONSTANTS:
                if p.name in scope or self.lookup(p.name) is None:
                    out.append(p.name)
        elif isinstance(p, App):
            for a in p.args:
                self._collect(a, scope, out)
        elif isinstance(p, NamedArg):
            self._collect(p.value, scope, out)
        elif isinstance(p, Term):
            for name in node_fields(type(p)):
                self._collect(getattr(p, name), scope, out)
        elif isinstance(p, tuple):
            for x in p:
                self._collect(x, scope, out)


def _lam(r: Resolver, t: Lam, scope: Mapping[str, str | None]) -> Term:
    bs, inner = r.binders(t.binders, scope)
    return _rebuild(t, binders=bs, body=r.term(t.body, inner))


def _quant(r: Resolver, t: Quant, scope: Mapping[str, str | None]) -> Term:
    bound = t.bound
    if bound is not None:
        bound = (bound[0], r.term(bound[1], scope))
    bs, inner = r.binders(t.binders, scope)
    return _rebuild(t, binders=bs, body=r.term(t.body, inner), bound=bound)


def _bigop(r: Resolver, t: BigOp, scope: Mapping[str, str | None]) -> Term:
    if t.domain is None:
        r.constants.add("Finset.univ")
    domain = r.term(t.domain, scope) if t.domain is not None else None
    bs, inner = r.binders(t.binders, scope)
    body = r.term(t.body, inner)
    if t.op == "𝔼":
        # Mathlib's `𝔼 i ∈ s, f i` is `(#s : ℚ≥0)⁻¹ • ∑ i ∈ s, f i`: the sum over the
        # count, `∑ i ∈ s, 1`, with 0 for an empty s as Lean's `x / 0 = 0` gives
        r.constants.add("Finset.sum")
        total = _rebuild(t, op="∑", binders=bs, domain=domain, body=body)
        count = _rebuild(t, op="∑", binders=bs, domain=domain, body=Num("1", span=t.span))
        return BinOp("/", Paren(total, span=t.span), Paren(count, span=t.span), span=t.span)
    r.constants.add(_BIGOP_CONSTANTS[t.op])
    return _rebuild(t, binders=bs, domain=domain, body=body)


def _integral(r: Resolver, t: Integral, scope: Mapping[str, str | None]) -> Term:
    r.constants.add("MeasureTheory.integral")
    domain = r.term(t.domain, scope) if t.domain is not None else None
    measure = r.term(t.measure, scope) if t.measure is not None else None
    bs, inner = r.binders(t.binders, scope)
    body = r.term(t.body, inner)
    return _rebuild(t, binders=bs, domain=domain, body=body, measure=measure)


def _pi(r: Resolver, t: Pi, scope: Mapping[str, str | None]) -> Term:
    bs, inner = r.binders(t.binders, scope)
    return _rebuild(t, binders=bs, body=r.term(t.body, inner))


def _let(r: Resolver, t: Let, scope: Mapping[str, str | None]) -> Term:
    bs, inner = r.binders(t.binders, scope)
    ty = r.term(t.type, inner) if t.type is not None else None
    value = r.term(t.value, inner)
    body_scope = dict(scope)
    pattern = None
    if t.pattern is not None:
        pvars = r.pattern_vars(t.pattern, scope)
        body_scope.update(dict.fromkeys(pvars))
        pattern = r.term(t.pattern, body_scope)
    if t.name:
        body_scope[t.name] = type_head(ty) if not t.binders else None
    body = r.term(t.body, body_scope)
    return _rebuild(t, binders=bs, type=ty, value=value, body=body, pattern=pattern)


def _if(r: Resolver, t: If, scope: Mapping[str, str | None]) -> Term:
    cond = r.term(t.cond, scope)
    inner = {**scope, t.hyp: None} if t.hyp else scope
    return _rebuild(t, cond=cond, then=r.term(t.then, inner), els=r.term(t.els, inner))


def _alt(r: Resolver, t: MatchAlt, scope: Mapping[str, str | None]) -> MatchAlt:
    pvars: list[str] = []
    for p in t.patterns:
        pvars.extend(r.pattern_vars(p, scope))
    inner = {**scope, **dict.fromkeys(pvars)}
    patterns = tuple(r.term(p, inner) for p in t.patterns)
    return _rebuild(t, patterns=patterns, rhs=r.term(t.rhs, inner))


def _match(r: Resolver, t: Match, scope: Mapping[str, str | None]) -> Term:
    scrutinees = tuple(r.term(s, scope) for s in t.scrutinees)
    alts = tuple(_alt(r, a, scope) for a in t.alts)
    return _rebuild(t, scrutinees=scrutinees, alts=alts)


def _lammatch(r: Resolver, t: LamMatch, scope: Mapping[str, str | None]) -> Term:
    return _rebuild(t, alts=tuple(_alt(r, a, scope) for a in t.alts))


def _binder_body(r: Resolver, t: SetBuilder | Subtype, scope: Mapping[str, str | None]) -> Term:
    bs, inner = r.binders((t.binder,), scope)
    return _rebuild(t, binder=bs[0], body=r.term(t.body, inner))


def _proj(r: Resolver, t: Proj, scope: Mapping[str, str | None]) -> Term:
    inner = r.term(t.term, scope)
    if isinstance(inner, Const):
        r.field_constant(r.known.type_head(inner.name), t.field)
    elif isinstance(inner, Var):
        r.field_constant(scope.get(inner.name), t.field)
    return Proj(inner, t.field, span=t.span)


def _atom(r: Resolver, t: Term, scope: Mapping[str, str | None]) -> Term:
    return t


def _app(r: Resolver, t: App, scope: Mapping[str, str | None]) -> Term:
    term = r.term
    return App(term(t.fn, scope), tuple([term(a, scope) for a in t.args]), span=t.span)


def _binop(r: Resolver, t: BinOp, scope: Mapping[str, str | None]) -> Term:
    lhs, rhs = r.term(t.lhs, scope), r.term(t.rhs, scope)
    if t.op in _PIPES:  # `f <| x` and `x |> f` are `f x`: application, as Lean elaborates them
        fn, arg = (lhs, rhs) if t.op == "<|" else (rhs, lhs)
        if isinstance(fn, App):  # `f a <| x` is `f a x`
            return App(fn.fn, (*fn.args, arg), span=t.span)
        return App(fn, (arg,), span=t.span)
    return BinOp(t.op, lhs, rhs, span=t.span)


_PIPES = frozenset(("<|", "|>"))  # `$` is read as `<|` (parser.py)


def _mod_eq(r: Resolver, t: ModEq, scope: Mapping[str, str | None]) -> Term:
    """`a ≡ b [ZMOD n]` is `Int.ModEq n a b` (and its kin: precedence.MOD_EQ)."""
    full = MOD_EQ[t.kind]
    r.constants.add(full)
    args = (r.term(t.modulus, scope), r.term(t.lhs, scope), r.term(t.rhs, scope))
    return App(Const(full, full, span=t.span), args, span=t.span)


def _prefix(r: Resolver, t: Prefix, scope: Mapping[str, str | None]) -> Term:
    arg = r.term(t.arg, scope)
    full = PREFIX_CONSTANTS.get(t.op)
    if full is not None:  # `√x` is `Real.sqrt x`
        r.constants.add(full)
        return App(Const(full, full, span=t.span), (arg,), span=t.span)
    return Prefix(t.op, arg, span=t.span)


_HANDLERS: dict[type, Any] = {
    Ident: Resolver.ident,
    Lam: _lam,
    Quant: _quant,
    BigOp: _bigop,
    Integral: _integral,
    Pi: _pi,
    Let: _let,
    If: _if,
    Match: _match,
    LamMatch: _lammatch,
    SetBuilder: _binder_body,
    Subtype: _binder_body,
    Proj: _proj,
    App: _app,
    BinOp: _binop,
    Prefix: _prefix,
    ModEq: _mod_eq,
    **dict.fromkeys(
        (Hole, Num, Decimal, Str, CharLit, CDot, Sort, By, Do, DotIdent, Var, Const), _atom
    ),
}


def resolve(
    term: Term,
    *,
    bound: Iterable[str] = (),
    namespace: str = "",
    opens: Sequence[str] = (),
    known: KnownNames | None = None,
    links: Mapping[str, str] | None = None,
    types: Mapping[str, str | None] | None = None,
) -> ResolvedTerm:
    """Resolve every identifier of `term`.

    `bound` are the variables in scope (binders of the declaration); `types`
    optionally gives the fully qualified head of a bound variable's type, so
    that field notation on it (`W.flatten` with `W : Mat a c`) records the
    constant it denotes (`Proofs.Mat.flatten`).
    """
    r = Resolver(namespace=namespace, opens=opens, known=known or KnownNames(), links=links)
    scope: dict[str, str | None] = dict.fromkeys(bound)
    if types:
        scope.update({k: v for k, v in types.items() if k in scope})
    out = r.term(term, scope)
    return ResolvedTerm(out, tuple(sorted(r.constants)), tuple(sorted(r.unknown)))
