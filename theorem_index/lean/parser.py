"""A Pratt parser for Lean 4 / Mathlib terms and binder lists.

Binding powers come from `precedence.py` (Lean's own numbers). As in Lean,
a trailing parser (infix, postfix, projection, application) applies while
its precedence is at least the level being parsed *and* the term on its left
has at least the precedence it asks for; application takes every argument
that follows (`f x y` is one `App`), arguments are parsed at `ARG`.
"""

from __future__ import annotations

from collections.abc import Callable

from .brackets import BracketRules
from .cursor import MAX_DEPTH
from .errors import LeanParseError
from .precedence import (
    ARG,
    FILTER_RELS,
    INFIX,
    LEAD,
    MAX,
    MOD_EQ,
    MOD_EQ_PREC,
    POSTFIX,
    PREFIX,
)
from .syntax import (
    App,
    Binder,
    BinOp,
    CDot,
    CharLit,
    Decimal,
    DotIdent,
    Hole,
    Ident,
    ModEq,
    NamedArg,
    Num,
    Postfix,
    Prefix,
    Proj,
    Span,
    Str,
    Term,
)

_ARG_SYMS = frozenset(
    "( ⟨ [ ![ !![ #[ { @ @& ↑ ⇑ ↥ ¬ ! √ # · ∑ ∏ ∑' ∏' 𝔼 ∫ ‖ | ⌊ ⌈ ⟪ ? ∞ ⊤ ⊥ ∅ λ ..".split()
)
_ARG_KWS = frozenset(("fun", "Type", "Sort", "Prop", "Type*", "Sort*", "if", "do"))
_OP_ALIASES = {
    "->": "→",
    "<->": "↔",
    "<=": "≤",
    ">=": "≥",
    "/\\": "∧",
    "\\/": "∨",
    "$": "<|",
}


class _Parser(BracketRules):
    """The Pratt loop and atoms; brackets come from `BracketRules`, binding constructs from
    `BindingRules`."""

    # --- the Pratt loop ------------------------------------------------------

    def expr(self, rbp: int) -> Term:
        depth = self.depth = self.depth + 1
        if depth > MAX_DEPTH:
            raise self.error(f"term nested too deeply (more than {MAX_DEPTH} levels)")
        left, lprec = self.leading(rbp)
        left = self.trailing(left, lprec, rbp)
        self.depth = depth - 1
        return left

    def trailing(self, left: Term, lprec: int, rbp: int) -> Term:
        k, t = self.k, self.t
        while True:
            i = self.i
            kind = k[i]
            if kind == "sym":
                tx = t[i]
                inf = INFIX.get(tx)
                if inf is not None:
                    if inf.prec < rbp or lprec < inf.lhs:
                        break
                    self.i = i + 1
                    self.deeper()
                    rhs = self.expr(inf.rhs)
                    op = _OP_ALIASES.get(tx, tx)
                    left = BinOp(op, left, rhs, span=Span(left.span.start, rhs.span.end))
                    lprec = inf.prec
                    continue
                post = POSTFIX.get(tx)
                if post is not None:
                    if post < rbp or lprec < MAX:
                        break
                    self.i = i + 1
                    self.deeper()
                    left = Postfix(tx, left, span=Span(left.span.start, self.e[i]))
                    lprec = MAX
                    continue
                if tx == "[" and not self.ws[i] and lprec >= MAX:  # `xs[i]`, `xs[i]!`
                    self.deeper()
                    left = self.index(left, rbp)
                    lprec = MAX
                    continue
                if tx == "≡":  # `a ≡ b [ZMOD n]`
                    if MOD_EQ_PREC < rbp or lprec <= MOD_EQ_PREC:
                        break
                    self.deeper()
                    left = self.mod_eq(left)
                    lprec = MOD_EQ_PREC
                    continue
                rel = FILTER_RELS.get(tx)
                if rel is not None:  # `f =ᶠ[l] g`
                    if rel.prec < rbp or lprec < rel.lhs:
                        break
                    self.deeper()
                    left = self.eventually(left, rel.rhs)
                    lprec = rel.prec
                    continue
            elif kind == "field":
                self.i = i + 1
                self.deeper()
                left = Proj(left, t[i], span=Span(left.span.start, self.e[i]))
                lprec = MAX
                continue
            if lprec >= MAX and rbp <= LEAD and self.starts_arg(i):
                self.deeper()
                args: list[Term] = []
                while self.starts_arg(self.i):
                    args.append(self.arg())
                fn = left
                if isinstance(fn, App):  # `(f x) y` is `f x y`
                    args[:0] = fn.args
                    fn = fn.fn
                left = App(fn, tuple(args), span=Span(left.span.start, args[-1].span.end))
                lprec = LEAD
                continue
            break
        return left

    def mod_eq(self, left: Term) -> Term:
        """After `a`, at `≡`: `b [ZMOD n]` (or `MOD`, `PMOD`, `SMOD`)."""
        self.i += 1
        rhs = self.expr(MOD_EQ_PREC + 1)
        self.expect("[")
        if self.k[self.i] != "id" or self.t[self.i] not in MOD_EQ:
            raise self.expected("ZMOD, MOD, PMOD or SMOD")
        kind = self.t[self.i]
        self.i += 1
        modulus = self.expr(0)
        self.expect("]")
        return ModEq(kind, modulus, left, rhs, span=Span(left.span.start, self.e[self.i - 1]))

    def starts_arg(self, i: int) -> bool:
        kind = self.k[i]
        if kind in ("id", "num", "dec", "str", "char", "dot"):
            pass
        elif kind == "sym":
            tx = self.t[i]
            if tx not in _ARG_SYMS:
                return False
            if tx == "[" and self.k[i + 1] == "id" and self.t[i + 1] in MOD_EQ:
                return False  # the modulus of `a ≡ b [ZMOD n]`, not a list argument
            if tx == "|" and (self.ws[i + 1] or (self.abs_depth and not self.ws[i])):
                return False
            if tx == "‖" and self.norm_depth:
                return False
        elif kind == "kw":
            if self.t[i] not in _ARG_KWS:
                return False
        else:
            return False
        return self.col_limit < 0 or self.column(i) > self.col_limit

    def arg(self) -> Term:
        i = self.i
        if self.t[i] == "(" and self.k[i + 1] == "id" and self.t[i + 2] == ":=":
            self.i = i + 3
            value = self.expr(0)
            self.expect(")")
            return NamedArg(self.t[i + 1], value, span=self.span(self.s[i]))
        return self.expr(ARG)

    def leading(self, rbp: int) -> tuple[Term, int]:
        i = self.i
        kind = self.k[i]
        tx = self.t[i]
        start = self.s[i]
        if kind == "id":
            self.i = i + 1
            if tx == "_":
                return Hole(span=Span(start, self.e[i])), MAX
            return Ident(tx, span=Span(start, self.e[i])), MAX
        if kind == "num":
            self.i = i + 1
            return Num(tx, span=self.span(start)), MAX
        if kind == "dec":
            self.i = i + 1
            return Decimal(tx, span=self.span(start)), MAX
        if kind == "str":
            self.i = i + 1
            return Str(tx[tx.index('"') + 1 : -1], span=self.span(start)), MAX
        if kind == "char":
            self.i = i + 1
            return CharLit(tx[1:-1], span=self.span(start)), MAX
        if kind == "dot":
            self.i = i + 1
            return DotIdent(tx, span=self.span(start)), MAX
        if kind == "sym":
            handler = _LEADING_SYM.get(tx)
            if handler is not None:
                return handler(self, rbp)
            pre = PREFIX.get(tx)
            if pre is not None:
                node_prec, arg_prec = pre
                if node_prec < rbp:
                    raise self.expected("term")
                self.i = i + 1
                operand = self.expr(arg_prec)
                return Prefix(tx, operand, span=self.span(start)), node_prec
        elif kind == "kw":
            kw_handler = _LEADING_KW.get(tx)
            if kw_handler is not None:
                return kw_handler(self, rbp)
        raise self.expected("term")

    # --- atoms ---------------------------------------------------------------

    def cdot(self, rbp: int) -> tuple[Term, int]:
        self.i += 1
        self.saw_cdot = True
        return CDot(span=Span(self.s[self.i - 1], self.e[self.i - 1])), MAX

    def question(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        if self.k[self.i + 1] == "id" and not self.ws[self.i + 1]:
            self.i += 2
            return Hole(self.t[self.i - 1], span=self.span(start)), MAX
        raise self.expected("term")

    def atom(self, rbp: int) -> tuple[Term, int]:
        self.i += 1
        return Ident(self.t[self.i - 1], span=self.span(self.s[self.i - 1])), MAX

    def unsupported(self, rbp: int) -> tuple[Term, int]:
        raise self.error(f"unsupported notation '{self.t[self.i]}'")


_Handler = Callable[[_Parser, int], tuple[Term, int]]

_LEADING_SYM: dict[str, _Handler] = {
    "(": _Parser.paren,
    "⟨": _Parser.anon,
    "[": _Parser.bracket,
    "![": _Parser.vec,
    "{": _Parser.brace,
    "⦃": _Parser.strict,
    "|": _Parser.abs_,
    "‖": _Parser.norm,
    "⌊": _Parser.floor,
    "⌈": _Parser.floor,
    "·": _Parser.cdot,
    "?": _Parser.question,
    "∞": _Parser.atom,
    "..": _Parser.atom,
    "⊤": _Parser.atom,
    "⊥": _Parser.atom,
    "∅": _Parser.atom,
    "∑": _Parser.bigop,
    "∏": _Parser.bigop,
    "∑'": _Parser.bigop,
    "∏'": _Parser.bigop,
    "𝔼": _Parser.bigop,  # Mathlib's `Finset.expect`, the average over a finite set
    "!![": _Parser.matrix,
    "∀": _Parser.quant,
    "∃": _Parser.quant,
    "∃!": _Parser.quant,
    "λ": _Parser.lam,
    "#[": _Parser.vec,
    "⟪": _Parser.inner,
    "Σ": _Parser.quant,
    "Σ'": _Parser.quant,
    "Π": _Parser.quant,
    "∀ᶠ": _Parser.quant,
    "∃ᶠ": _Parser.quant,
    "∫": _Parser.integral,
    "⋃": _Parser.unsupported,
    "⋂": _Parser.unsupported,
    "⨆": _Parser.unsupported,
    "⨅": _Parser.unsupported,
}

_LEADING_KW: dict[str, _Handler] = {
    "fun": _Parser.lam,
    "let": _Parser.let,
    "have": _Parser.let,
    "if": _Parser.if_,
    "match": _Parser.match,
    "by": _Parser.by,
    "do": _Parser.by,
    "Type": _Parser.sort,
    "Sort": _Parser.sort,
    "Prop": _Parser.sort,
    "Type*": _Parser.sort,
    "Sort*": _Parser.sort,
    "show": _Parser.show,
    "forall": _Parser.quant,
    "exists": _Parser.quant,
}


def _run(text: str, body: Callable[[_Parser], object]) -> object:
    parser = _Parser(text)
    try:
        result = body(parser)
    except RecursionError:
        raise LeanParseError(
            f"term nested too deeply (more than {MAX_DEPTH} levels)", text, parser.s[parser.i]
        ) from None
    if parser.k[parser.i] != "eof":
        raise parser.expected("end of input")
    return result


def parse_term(text: str) -> Term:
    """Parse one Lean term; raise `LeanParseError` with a position if it does not parse."""
    if not text.strip():
        raise LeanParseError("expected term, found end of input", text, len(text))
    result = _run(text, lambda p: p.expr(0))
    assert isinstance(result, Term)
    return result


def parse_binders(text: str) -> tuple[Binder, ...]:
    """Parse a binder list such as `{N a c : ℕ} (bb : Vec c) [inst : C M] (h : 0 < ε)`."""
    result = _run(text, lambda p: tuple(p.binder_list()))
    assert isinstance(result, tuple)
    return result
