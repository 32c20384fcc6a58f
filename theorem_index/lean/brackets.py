"""Bracketed notation of the term parser: parentheses (groups, tuples, ascriptions,
binders before `→`), `⟨a, b⟩`, lists and vectors, braces (sets, set-builder, subtypes,
structure instances, implicit binders), `|x|`, `‖x‖`, floors and ceilings, `⟪x, y⟫`,
indexing `xs[i]` and the filter of `f =ᶠ[l] g`."""

from __future__ import annotations

from .binding import BindingRules
from .precedence import FILTER_LEVEL, LEAD, MAX, PI_PREC
from .syntax import (
    Abs,
    Anon,
    App,
    ArrayLit,
    Binder,
    EventuallyRel,
    Hole,
    Ident,
    Index,
    ListLit,
    Norm,
    Paren,
    Pi,
    SetBuilder,
    SetLit,
    Span,
    StructInst,
    Subtype,
    Term,
    Tuple,
    Typed,
    VecLit,
    node_fields,
)

_ARROWS = frozenset(("→", "->"))
_FLOOR = {"⌋": "Int.floor", "⌋₊": "Nat.floor", "⌉": "Int.ceil", "⌉₊": "Nat.ceil"}


def _respan(t: Term, span: Span) -> Term:
    """`t` with its span widened to the parentheses around it."""
    values = {name: getattr(t, name) for name in node_fields(type(t))}
    return type(t)(**values, span=span)


def _binder_names(e: Term) -> tuple[str, ...] | None:
    """The names of `x` / `x y z` / `_` read as a binder group, or None."""
    if isinstance(e, Ident) and "." not in e.name:
        return (e.name,)
    if isinstance(e, Hole) and not e.name:
        return ("_",)
    if isinstance(e, App):
        out: list[str] = []
        for part in (e.fn, *e.args):
            names = _binder_names(part)
            if names is None:
                return None
            out.extend(names)
        return tuple(out)
    return None


class BracketRules(BindingRules):
    # --- brackets ------------------------------------------------------------

    def items(self, close: str) -> list[Term]:
        out: list[Term] = []
        if self.at(close):
            self.i += 1
            return out
        while True:
            out.append(self.expr(0))
            if self.at(","):
                self.i += 1
                continue
            self.expect(close)
            return out

    def paren(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        self.i += 1
        if self.at(")"):
            self.i += 1
            return Tuple((), span=self.span(start)), MAX
        saved = self.save()
        e = self.expr(0)
        node: Term
        if self.at(":"):
            self.i += 1
            ty = self.expr(0)
            self.expect(")")
            has_cdot = self.restore(saved)
            names = _binder_names(e)
            if rbp <= PI_PREC and names and not has_cdot and self.t[self.i] in _ARROWS:
                binder = Binder("explicit", names, ty, span=self.span(start))
                return self.pi(binder, start)
            node = Typed(e, ty, span=self.span(start))
            return (Paren(node, span=node.span) if has_cdot else node), MAX
        if self.at(","):
            self.i += 1
            rest = self.items(")")
            node = Tuple((e, *rest), span=self.span(start))
        else:
            self.expect(")")
            node = _respan(e, Span(start, self.e[self.i - 1]))
        if self.restore(saved):
            node = Paren(node, span=self.span(start))
        return node, MAX

    def pi(self, binder: Binder, start: int) -> tuple[Term, int]:
        """After a bracketed binder: `→ body` (a dependent arrow)."""
        self.i += 1
        body = self.expr(PI_PREC)
        return Pi((binder,), body, span=self.span(start)), PI_PREC

    def anon(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        self.i += 1
        saved = self.save()
        items = self.items("⟩")
        self.restore(saved)
        return Anon(tuple(items), span=self.span(start)), MAX

    def vec(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        cls = VecLit if self.t[self.i] == "![" else ArrayLit
        self.i += 1
        saved = self.save()
        items = self.items("]")
        self.restore(saved)
        return cls(tuple(items), span=self.span(start)), MAX

    def matrix(self, rbp: int) -> tuple[Term, int]:
        """`!![a, b; c, d]`: Mathlib's matrix literal, `Matrix.of ![![a, b], ![c, d]]`."""
        start = self.s[self.i]
        self.i += 1
        rows: list[Term] = []
        row: list[Term] = []
        while not self.at("]"):
            row.append(self.expr(0))
            if self.at(","):
                self.i += 1
            elif self.at(";"):
                self.i += 1
                rows.append(VecLit(tuple(row), span=self.span(start)))
                row = []
            elif not self.at("]"):
                raise self.expected("',', ';' or ']'")
        self.i += 1
        if row or not rows:
            rows.append(VecLit(tuple(row), span=self.span(start)))
        span = self.span(start)
        of = Ident("Matrix.of", span=span)
        return App(of, (VecLit(tuple(rows), span=span),), span=span), MAX

    def inner(self, rbp: int) -> tuple[Term, int]:
        """`⟪x, y⟫_𝕜` is `inner 𝕜 x y`."""
        start = self.s[self.i]
        self.i += 1
        saved = self.save()
        x = self.expr(0)
        self.expect(",")
        y = self.expr(0)
        self.expect("⟫")
        self.restore(saved)
        args = [x, y]
        if self.k[self.i] == "id" and self.t[self.i].startswith("_") and not self.ws[self.i]:
            field = self.t[self.i][1:]
            self.i += 1
            args.insert(0, Ident(field, span=Span(self.s[self.i - 1] + 1, self.e[self.i - 1])))
        fn = Ident("inner", span=Span(start, start + 1))
        return App(fn, tuple(args), span=self.span(start)), LEAD

    def bracket(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        if self.k[self.i + 1] == "id" and self.t[self.i + 2] == ":":
            binder = self.bracketed()
            if rbp <= PI_PREC and self.t[self.i] in _ARROWS:
                return self.pi(binder, start)
            raise self.expected("'→' after instance binder")
        self.i += 1
        saved = self.save()
        items = self.items("]")
        self.restore(saved)
        if len(items) == 1 and rbp <= PI_PREC and self.t[self.i] in _ARROWS:
            return self.pi(Binder("inst", (), items[0], span=self.span(start)), start)
        return ListLit(tuple(items), span=self.span(start)), MAX

    def strict(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        binder = self.bracketed()
        if rbp <= PI_PREC and self.t[self.i] in _ARROWS:
            return self.pi(binder, start)
        raise self.expected("'→' after binder")

    def brace(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        self.i += 1
        saved = self.save()
        try:
            if self.at("}"):
                self.i += 1
                return SetLit((), span=self.span(start)), MAX
            if self.k[self.i] == "id" and self.t[self.i + 1] == ":=":
                fields = self.struct_fields()
                self.expect("}")
                return StructInst(fields, span=self.span(start)), MAX
            e = self.expr(0)
            names = _binder_names(e)
            tx = self.t[self.i] if self.k[self.i] in ("sym", "kw") else ""
            if tx == "with":
                self.i += 1
                fields = self.struct_fields()
                self.expect("}")
                return StructInst(fields, e, span=self.span(start)), MAX
            ty: Term | None = None
            if tx == ":":
                if not names:
                    raise self.expected("'}'")
                self.i += 1
                ty = self.expr(0)
                tx = self.t[self.i] if self.k[self.i] == "sym" else ""
            if tx == "}" and names and rbp <= PI_PREC and self.t[self.i + 1] in _ARROWS:
                self.i += 1
                self.restore(saved)
                binder = Binder("implicit", names, ty, span=self.span(start))
                return self.pi(binder, start)
            if tx in ("//", "|"):
                self.i += 1
                if names is not None and len(names) == 1:
                    binder = Binder("plain", names, ty, span=e.span)
                elif ty is None:
                    binder = Binder("plain", (), pattern=e, span=e.span)
                else:
                    raise self.error("expected one name before ':'", self.i - 1)
                body = self.expr(0)
                self.expect("}")
                cls = Subtype if tx == "//" else SetBuilder
                return cls(binder, body, span=self.span(start)), MAX
            if ty is not None:
                if tx == "}":
                    self.i += 1
                    raise self.expected("'→' after implicit binder")
                raise self.expected("'//', '|' or '}'")
            if tx == ",":
                self.i += 1
                rest = self.items("}")
                return SetLit((e, *rest), span=self.span(start)), MAX
            self.expect("}")
            return SetLit((e,), span=self.span(start)), MAX
        finally:
            self.restore(saved)

    def struct_fields(self) -> tuple[tuple[str, Term], ...]:
        fields: list[tuple[str, Term]] = []
        while self.k[self.i] == "id" and self.t[self.i + 1] == ":=":
            name = self.t[self.i]
            self.i += 2
            fields.append((name, self.expr(0)))
            if self.at(","):
                self.i += 1
        return tuple(fields)

    def abs_(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        self.i += 1
        self.abs_depth += 1
        inner = self.expr(0)
        self.abs_depth -= 1
        self.expect("|")
        return Abs(inner, span=self.span(start)), MAX

    def norm(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        self.i += 1
        self.norm_depth += 1
        inner = self.expr(0)
        self.norm_depth -= 1
        self.expect("‖")
        return Norm(inner, span=self.span(start)), MAX

    def floor(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        opener = self.t[self.i]
        self.i += 1
        saved = self.save()
        inner = self.expr(0)
        self.restore(saved)
        closers = ("⌋", "⌋₊") if opener == "⌊" else ("⌉", "⌉₊")
        close = self.t[self.i]
        if close not in closers:
            raise self.expected(f"'{closers[0]}'")
        self.i += 1
        fn = Ident(_FLOOR[close], span=Span(start, start + 1))
        return App(fn, (inner,), span=self.span(start)), LEAD

    def index(self, left: Term, rbp: int) -> Term:
        self.i += 1
        saved = self.save()
        idx = self.expr(0)
        self.expect("]")
        self.restore(saved)
        suffix = ""
        if self.t[self.i] in ("!", "?") and self.k[self.i] == "sym" and not self.ws[self.i]:
            suffix = self.t[self.i]
            self.i += 1
        return Index(left, idx, suffix, span=Span(left.span.start, self.e[self.i - 1]))

    def eventually(self, left: Term, rhs_level: int) -> Term:
        """After `f`, at `=ᶠ[` or `≤ᶠ[`: the filter, `]` and the right operand."""
        op = self.t[self.i][:-1]
        self.i += 1
        saved = self.save()
        filt = self.expr(FILTER_LEVEL)
        self.expect("]")
        self.restore(saved)
        rhs = self.expr(rhs_level)
        return EventuallyRel(op, filt, left, rhs, span=Span(left.span.start, rhs.span.end))
