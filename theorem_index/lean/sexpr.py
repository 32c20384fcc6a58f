"""A compact S-expression view of term trees, for golden files and debugging.

`(app f x (proj y 1))` for `f x y.1`, `(+ (∑ ((plain (x))) (app f x)) (app g x))`
for `∑ x, f x + g x`. Names print bare, numbers bare, decimals as `(dec …)`; the
text of a `by`/`do` block is quoted, its line breaks written `\\n`.
"""

from __future__ import annotations

from collections.abc import Sequence

from .syntax import (
    Abs,
    Anon,
    App,
    ArrayLit,
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
    EventuallyRel,
    Hole,
    Ident,
    If,
    Index,
    Integral,
    Lam,
    LamMatch,
    Let,
    ListLit,
    Match,
    MatchAlt,
    ModEq,
    NamedArg,
    Norm,
    Num,
    Paren,
    Pi,
    Postfix,
    Prefix,
    Proj,
    Quant,
    SetBuilder,
    SetLit,
    Sort,
    Str,
    StructInst,
    Subtype,
    Term,
    Tuple,
    Typed,
    Var,
    VecLit,
)


def _name(name: str) -> str:
    if not name or any(c in name for c in ' ()"|'):
        return f"|{name}|"
    return name


def _block(text: str) -> str:
    """A `by`/`do` block's text on one line: backslashes doubled, line breaks as `\\n`."""
    return '"' + text.replace("\\", "\\\\").replace("\n", "\\n") + '"'


def _all(items: Sequence[Term]) -> str:
    return " ".join(to_sexpr(x) for x in items)


def _node(head: str, *parts: str) -> str:
    return "(" + " ".join((head, *(p for p in parts if p))) + ")"


def _binder(b: Binder) -> str:
    if b.pattern is not None:
        body = f"pattern {to_sexpr(b.pattern)}"
    else:
        body = "(" + " ".join(_name(n) for n in b.names) + ")"
    if b.type is not None:
        body += f" {to_sexpr(b.type)}"
    if b.default is not None:
        body += f" := {to_sexpr(b.default)}"
    return f"({b.kind} {body})"


def _binders(bs: Sequence[Binder]) -> str:
    return "(" + " ".join(_binder(b) for b in bs) + ")"


def _alt(a: MatchAlt) -> str:
    return _node("alt", "(" + _all(a.patterns) + ")", to_sexpr(a.rhs))


def to_sexpr(t: Term) -> str:
    """`t` as one line of S-expression."""
    if isinstance(t, Ident):
        return _name(t.name)
    if isinstance(t, Var):
        return _node("var", _name(t.name))
    if isinstance(t, Const):
        return _node("const", _name(t.name))
    if isinstance(t, Num):
        return t.text
    if isinstance(t, Decimal):
        return _node("dec", t.text)
    if isinstance(t, Str):
        return f'"{t.value}"'
    if isinstance(t, CharLit):
        return f"(char '{t.value}')"
    if isinstance(t, Hole):
        return _node("hole", _name(t.name)) if t.name else "_"
    if isinstance(t, CDot):
        return "·"
    if isinstance(t, DotIdent):
        return _node("dot", _name(t.name))
    if isinstance(t, Sort):
        return _node(t.kind, t.level) if t.level else t.kind
    if isinstance(t, By):
        return _node("by", _block(t.text))
    if isinstance(t, Do):
        return _node("do", _block(t.text))
    if isinstance(t, Index):
        return _node("index" + t.suffix, to_sexpr(t.term), to_sexpr(t.index))
    if isinstance(t, App):
        return _node("app", to_sexpr(t.fn), _all(t.args))
    if isinstance(t, NamedArg):
        return _node(":=", _name(t.name), to_sexpr(t.value))
    if isinstance(t, BinOp):
        return _node(t.op, to_sexpr(t.lhs), to_sexpr(t.rhs))
    if isinstance(t, EventuallyRel):
        return _node(t.op, to_sexpr(t.filter), to_sexpr(t.lhs), to_sexpr(t.rhs))
    if isinstance(t, ModEq):
        return _node("≡" + t.kind, to_sexpr(t.modulus), to_sexpr(t.lhs), to_sexpr(t.rhs))
    if isinstance(t, Prefix):
        return _node("prefix", t.op, to_sexpr(t.arg))
    if isinstance(t, Postfix):
        return _node("postfix", t.op, to_sexpr(t.arg))
    if isinstance(t, Proj):
        return _node("proj", to_sexpr(t.term), _name(t.field))
    if isinstance(t, Typed):
        return _node(":", to_sexpr(t.term), to_sexpr(t.type))
    if isinstance(t, Paren):
        return _node("paren", to_sexpr(t.term))
    if isinstance(t, (Tuple, Anon, VecLit, ListLit, ArrayLit, SetLit)):
        head = {
            Tuple: "tuple",
            Anon: "anon",
            VecLit: "vec",
            ListLit: "list",
            ArrayLit: "array",
            SetLit: "set",
        }[type(t)]
        return _node(head, _all(t.items))
    if isinstance(t, Abs):
        return _node("abs", to_sexpr(t.term))
    if isinstance(t, Norm):
        return _node("norm", to_sexpr(t.term))
    if isinstance(t, Binder):
        return _binder(t)
    if isinstance(t, Lam):
        return _node("fun", _binders(t.binders), to_sexpr(t.body))
    if isinstance(t, LamMatch):
        return _node("fun-match", *(_alt(a) for a in t.alts))
    if isinstance(t, MatchAlt):
        return _alt(t)
    if isinstance(t, Match):
        return _node("match", "(" + _all(t.scrutinees) + ")", *(_alt(a) for a in t.alts))
    if isinstance(t, BigOp):
        domain = _node("in", to_sexpr(t.domain)) if t.domain is not None else ""
        return _node(t.op, _binders(t.binders), domain, to_sexpr(t.body))
    if isinstance(t, Integral):
        domain = _node("in", to_sexpr(t.domain)) if t.domain is not None else ""
        measure = _node("∂", to_sexpr(t.measure)) if t.measure is not None else ""
        return _node("∫", _binders(t.binders), domain, to_sexpr(t.body), measure)
    if isinstance(t, Quant):
        bound = _node(t.bound[0], to_sexpr(t.bound[1])) if t.bound is not None else ""
        return _node(t.q, _binders(t.binders), bound, to_sexpr(t.body))
    if isinstance(t, Pi):
        return _node("pi", _binders(t.binders), to_sexpr(t.body))
    if isinstance(t, Let):
        head = to_sexpr(t.pattern) if t.pattern is not None else _name(t.name)
        binders = _binders(t.binders) if t.binders else ""
        ty = _node(":", to_sexpr(t.type)) if t.type is not None else ""
        return _node(t.keyword, head, binders, ty, to_sexpr(t.value), to_sexpr(t.body))
    if isinstance(t, If):
        hyp = f"{_name(t.hyp)} :" if t.hyp is not None else ""
        return _node("if", hyp, to_sexpr(t.cond), to_sexpr(t.then), to_sexpr(t.els))
    if isinstance(t, SetBuilder):
        return _node("setOf", _binder(t.binder), to_sexpr(t.body))
    if isinstance(t, Subtype):
        return _node("subtype", _binder(t.binder), to_sexpr(t.body))
    if isinstance(t, StructInst):
        base = _node("with", to_sexpr(t.base)) if t.base is not None else ""
        fields = " ".join(f"({_name(n)} {to_sexpr(v)})" for n, v in t.fields)
        return _node("struct", base, fields)
    raise TypeError(f"not a term: {t!r}")
