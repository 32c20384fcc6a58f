"""Binding constructs and keywords of the term parser: binder groups, `fun`, `∀`/`∃`,
`∑`/`∏`, `∫`, `let`/`have`, `if`, `match`, `by`/`do`, universes and `show`."""

from __future__ import annotations

from .blocks import block_end
from .cursor import Cursor
from .precedence import (
    ARG,
    BIGOP_BODY,
    BIGOP_PREC,
    BY_PREC,
    DO_PREC,
    FUN_PREC,
    IF_PREC,
    INTEGRAL_BODY,
    INTEGRAL_MEASURE,
    INTEGRAL_PREC,
    LEAD,
    LET_PREC,
    MATCH_PREC,
    MAX,
    QUANT_PREC,
)
from .syntax import (
    App,
    BigOp,
    Binder,
    By,
    Do,
    Ident,
    If,
    Integral,
    Lam,
    LamMatch,
    Let,
    Match,
    MatchAlt,
    Quant,
    Sort,
    Term,
    Typed,
)

_QUANT_ALIASES = {"forall": "∀", "exists": "∃", "Π": "∀"}
_BINDER_PREDS = frozenset("> ≥ < ≤ ≠ ∈ ∉ ⊆ ⊂ ⊇ ⊃ ∣".split())
_BRACKET_KIND = {"(": ("explicit", ")"), "{": ("implicit", "}"), "⦃": ("strict", "⦄")}


class BindingRules(Cursor):
    # --- binders -------------------------------------------------------------

    def idents(self) -> tuple[str, ...]:
        names = []
        while self.k[self.i] == "id":
            names.append(self.t[self.i])
            self.i += 1
        return tuple(names)

    def bracketed(self) -> Binder:
        """`(x y : T)`, `(x : T := d)`, `{x : T}`, `⦃x : T⦄`, `[C M]`, `[inst : C M]`."""
        start = self.s[self.i]
        opener = self.t[self.i]
        self.i += 1
        saved = self.save()
        if opener == "[":
            names: tuple[str, ...] = ()
            if self.k[self.i] == "id" and self.t[self.i + 1] == ":":
                names = (self.t[self.i],)
                self.i += 2
            inst_type = self.expr(0)
            self.expect("]")
            self.restore(saved)
            return Binder("inst", names, inst_type, span=self.span(start))
        kind, close = _BRACKET_KIND[opener]
        names = self.idents()
        if not names:
            raise self.expected("binder name")
        ty: Term | None = None
        default: Term | None = None
        if self.at(":"):
            self.i += 1
            ty = self.expr(0)
        if opener == "(" and self.at(":="):
            self.i += 1
            default = self.expr(0)
        self.expect(close)
        self.restore(saved)
        return Binder(kind, names, ty, default, span=self.span(start))

    def binder_paren_ahead(self) -> bool:
        """At `(`: is this `(x y : T)` / `(x)` rather than a pattern like `(r, k)`?"""
        j = self.i + 1
        if self.k[j] != "id":
            return False
        while self.k[j] == "id":
            j += 1
        return self.t[j] in (":", ")") and self.k[j] == "sym"

    def binder_list(self) -> list[Binder]:
        out: list[Binder] = []
        while True:
            tx = self.t[self.i]
            kind = self.k[self.i]
            if kind == "sym" and tx in ("(", "{", "⦃", "["):
                out.append(self.bracketed())
            elif kind == "id":
                start = self.s[self.i]
                names = self.idents()
                out.append(Binder("plain", names, span=self.span(start)))
            else:
                return out

    def lam(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        self.i += 1
        if self.at("|"):
            alts = self.match_alts()
            return LamMatch(alts, span=self.span(start)), FUN_PREC
        binders: list[Binder] = []
        while True:
            kind = self.k[self.i]
            tx = self.t[self.i]
            bstart = self.s[self.i]
            if kind == "sym" and tx in ("=>", "↦"):
                break
            if kind == "id":
                binder, typed = self.plain_binder(bstart)
                binders.append(binder)
                if typed:
                    break
            elif kind == "sym" and tx == "(" and self.binder_paren_ahead():
                binders.append(self.bracketed())
            elif kind == "sym" and tx in ("{", "⦃", "["):
                binders.append(self.bracketed())
            elif kind == "sym" and tx in ("(", "⟨"):
                pattern, _ = self.paren(ARG) if tx == "(" else self.anon(ARG)
                binders.append(Binder("plain", (), pattern=pattern, span=self.span(bstart)))
            else:
                raise self.expected("binder or '=>'")
        if not binders:
            raise self.expected("binder")
        if not (self.at("=>") or self.at("↦")):
            raise self.expected("'=>'")
        self.i += 1
        body = self.expr(0)
        return Lam(tuple(binders), body, span=self.span(start)), FUN_PREC

    def plain_binder(self, bstart: int) -> tuple[Binder, bool]:
        """`x y` or `x y : T` without brackets; a type ends the binder list (True)."""
        names = self.idents()
        if self.at(":"):
            self.i += 1
            ty = self.expr(0)
            return Binder("plain", names, ty, span=self.span(bstart)), True
        return Binder("plain", names, span=self.span(bstart)), False

    def quant(self, rbp: int) -> tuple[Term, int]:
        if QUANT_PREC < rbp:
            raise self.expected("term")
        start = self.s[self.i]
        q = _QUANT_ALIASES.get(self.t[self.i], self.t[self.i])
        self.i += 1
        binders: list[Binder] = []
        bound = None
        while not self.at(","):
            kind = self.k[self.i]
            tx = self.t[self.i]
            bstart = self.s[self.i]
            if kind == "id":
                binder, typed = self.plain_binder(bstart)
                binders.append(binder)
                if typed:
                    break
                if q in ("∀ᶠ", "∃ᶠ") and self.at("in"):
                    self.i += 1
                    bound = ("in", self.expr(0))
                    break
                if self.k[self.i] == "sym" and self.t[self.i] in _BINDER_PREDS:
                    op = self.t[self.i]
                    self.i += 1
                    bound = (op, self.expr(0))
                    break
            elif kind == "sym" and tx in ("(", "{", "⦃", "["):
                binders.append(self.bracketed())
            elif kind == "sym" and tx == "⟨":
                pattern, _ = self.anon(ARG)
                binders.append(Binder("plain", (), pattern=pattern, span=self.span(bstart)))
            else:
                raise self.expected("binder or ','")
        if not binders:
            raise self.expected("binder")
        self.expect(",")
        body = self.expr(0)
        return Quant(q, tuple(binders), body, bound, span=self.span(start)), QUANT_PREC

    def bigop(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        op = self.t[self.i]
        self.i += 1
        binders: list[Binder] = []
        domain: Term | None = None
        bstart = self.s[self.i]
        if self.at("(") and self.binder_paren_ahead():
            while self.at("("):
                binders.append(self.bracketed())
        elif self.k[self.i] == "id":
            name = self.t[self.i]
            self.i += 1
            ty = None
            if self.at(":"):
                self.i += 1
                ty = self.expr(0)
            elif self.at("∈") or self.at("in"):
                self.i += 1
                domain = self.expr(0)
            elif self.k[self.i] == "sym" and self.t[self.i] in _BINDER_PREDS:
                raise self.error(f"unsupported binder predicate '{self.t[self.i]}' in '{op}'")
            binders.append(Binder("plain", (name,), ty, span=self.span(bstart)))
        elif self.at("⟨") or self.at("("):
            pattern, _ = self.anon(ARG) if self.at("⟨") else self.paren(ARG)
            binders.append(Binder("plain", (), pattern=pattern, span=self.span(bstart)))
            if self.at("∈") or self.at("in"):
                self.i += 1
                domain = self.expr(0)
        else:
            raise self.expected("binder")
        if self.at("with"):  # `∑ x ∈ s with p x, f x` sums over `Finset.filter (fun x => p x) s`
            names = [n for b in binders for n in b.names]
            if len(binders) != 1 or len(names) != 1:
                raise self.error(f"a 'with' filter in '{op}' over several binders")
            self.i += 1
            pred = self.expr(0)
            span = self.span(bstart)
            lam = Lam((Binder("plain", (names[0],), binders[0].type, span=span),), pred, span=span)
            base = domain if domain is not None else Ident("Finset.univ", span=span)
            keep = Ident("Finset.filter", span=span)
            domain = App(keep, (lam, base), span=span)
            binders = [Binder("plain", (names[0],), None, span=span)]
        self.expect(",")
        body = self.expr(BIGOP_BODY)
        return BigOp(op, tuple(binders), domain, body, span=self.span(start)), BIGOP_PREC

    def integral(self, rbp: int) -> tuple[Term, int]:
        """`∫ x, f x ∂μ`, `∫ x : T, f x`, `∫ x in s, f x ∂μ` (body at 60, measure at 70)."""
        start = self.s[self.i]
        self.i += 1
        bstart = self.s[self.i]
        binders: list[Binder] = []
        domain: Term | None = None
        if self.at("(") and self.binder_paren_ahead():
            while self.at("("):
                binders.append(self.bracketed())
        else:
            names = self.idents()
            if not names:
                raise self.expected("binder")
            ty = None
            if self.at(":"):
                self.i += 1
                ty = self.expr(0)
            binders.append(Binder("plain", names, ty, span=self.span(bstart)))
        if self.at("in"):
            self.i += 1
            domain = self.expr(0)
        self.expect(",")
        body = self.expr(INTEGRAL_BODY)
        measure = None
        prec = INTEGRAL_PREC
        if self.at("∂"):
            self.i += 1
            measure = self.expr(INTEGRAL_MEASURE)
        node = Integral(tuple(binders), domain, body, measure, span=self.span(start))
        return node, prec

    # --- keywords ------------------------------------------------------------

    def let(self, rbp: int) -> tuple[Term, int]:
        if LET_PREC < rbp:
            raise self.expected("term")
        start = self.s[self.i]
        keyword = self.t[self.i]
        col = self.column(self.i)
        self.i += 1
        name = ""
        pattern: Term | None = None
        if self.k[self.i] == "id":
            name = self.t[self.i]
            self.i += 1
        elif keyword == "let" and (self.at("⟨") or self.at("(")):
            pattern, _ = self.anon(ARG) if self.at("⟨") else self.paren(ARG)
        binders = self.binder_list() if pattern is None else []
        ty = None
        if self.at(":"):
            self.i += 1
            ty = self.expr(0)
        self.expect(":=")
        saved_col = self.col_limit
        self.col_limit = col
        value = self.expr(0)
        self.col_limit = saved_col
        if self.at(";"):
            self.i += 1
        elif not self.newline_before(self.i):
            raise self.expected("';' or line break")
        body = self.expr(0)
        node = Let(keyword, name, ty, value, body, tuple(binders), pattern, span=self.span(start))
        return node, LET_PREC

    def if_(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        self.i += 1
        hyp = None
        if self.k[self.i] == "id" and self.t[self.i + 1] == ":":
            hyp = self.t[self.i]
            self.i += 2
        elif self.at("let"):
            raise self.error("unsupported 'if let'")
        cond = self.expr(0)
        self.expect("then")
        then = self.expr(0)
        self.expect("else")
        els = self.expr(0)
        return If(cond, then, els, hyp, span=self.span(start)), IF_PREC

    def match(self, rbp: int) -> tuple[Term, int]:
        if MATCH_PREC < rbp:
            raise self.expected("term")
        start = self.s[self.i]
        self.i += 1
        if self.k[self.i] == "id" and self.t[self.i + 1] == ":":
            raise self.error("unsupported 'match h : e'")
        scrutinees = [self.expr(0)]
        while self.at(","):
            self.i += 1
            scrutinees.append(self.expr(0))
        self.expect("with")
        alts = self.match_alts()
        return Match(tuple(scrutinees), alts, span=self.span(start)), MATCH_PREC

    def match_alts(self) -> tuple[MatchAlt, ...]:
        alts: list[MatchAlt] = []
        if not self.at("|"):
            raise self.expected("'|'")
        while self.at("|"):
            start = self.s[self.i]
            groups: list[list[Term]] = []
            while self.at("|"):
                self.i += 1
                group = [self.expr(0)]
                while self.at(","):
                    self.i += 1
                    group.append(self.expr(0))
                groups.append(group)
            self.expect("=>")
            rhs = self.expr(0)
            for group in groups:
                alts.append(MatchAlt(tuple(group), rhs, span=self.span(start)))
        return tuple(alts)

    def by(self, rbp: int) -> tuple[Term, int]:
        """`by tac` and `do ...`, kept as text (`blocks.block_end` says where they stop)."""
        keyword = self.t[self.i]
        if (BY_PREC if keyword == "by" else DO_PREC) < rbp:
            raise self.expected("term")
        start = self.s[self.i]
        self.i += 1
        j = block_end(self, self.i, keyword == "do")
        if j == self.i:
            what = "tactic sequence after 'by'" if keyword == "by" else "'do' sequence"
            raise self.expected(what)
        text = self.src[self.s[self.i] : self.e[j - 1]]
        self.i = j
        if keyword == "do":
            return Do(text, span=self.span(start)), DO_PREC
        return By(text, span=self.span(start)), BY_PREC

    def sort(self, rbp: int) -> tuple[Term, int]:
        start = self.s[self.i]
        tx = self.t[self.i]
        self.i += 1
        if tx.endswith("*"):
            return Sort(tx[:-1], "*", span=self.span(start)), MAX
        if tx == "Prop" or rbp > LEAD:
            return Sort(tx, span=self.span(start)), MAX
        j = self.i
        if self.k[j] in ("id", "num") and self.ws[j]:
            self.i += 1
            return Sort(tx, self.t[j], span=self.span(start)), LEAD
        if self.t[j] == "(" and self.k[j] == "sym" and self.ws[j]:
            depth = 0
            while self.k[j] != "eof":
                if self.t[j] == "(":
                    depth += 1
                elif self.t[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if self.k[j] == "eof":
                raise self.expected("')'")
            level = self.src[self.s[self.i] : self.e[j]]
            self.i = j + 1
            return Sort(tx, level, span=self.span(start)), LEAD
        return Sort(tx, span=self.span(start)), MAX

    def show(self, rbp: int) -> tuple[Term, int]:
        if LEAD < rbp:
            raise self.expected("term")
        start = self.s[self.i]
        self.i += 1
        ty = self.expr(0)
        if self.at("from"):
            self.i += 1
            value = self.expr(0)
        elif self.at("by"):
            value, _ = self.by(rbp)
        else:
            raise self.expected("'from' or 'by'")
        return Typed(value, ty, span=self.span(start)), LEAD
