"""Print term trees back to Lean text with as few parentheses as re-parsing allows.

Each node is printed with its children, giving (text, precedence, right)
where `right` is the lowest level at which the term's right edge was parsed
(a trailing `fun` body is open at level 0, a `∑` body at 67, an atom is
closed). A node is parenthesised when its precedence is below what the
context asks for, or when whatever follows it in the context could attach to
its open right edge.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .blocks import takes_comma
from .precedence import (
    ARG,
    BIGOP_BODY,
    BIGOP_PREC,
    BY_PREC,
    DO_PREC,
    FILTER_LEVEL,
    FILTER_RELS,
    FUN_PREC,
    IF_PREC,
    INF,
    INFIX,
    INTEGRAL_BODY,
    INTEGRAL_MEASURE,
    INTEGRAL_PREC,
    LEAD,
    LET_PREC,
    MATCH_PREC,
    MAX,
    PI_PREC,
    POSTFIX,
    PREFIX,
    QUANT_PREC,
)
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

# `follow` values: what comes after a term in its context.
#   None -> a closing bracket, a comma, or the end
#   KEYWORD -> a keyword such as `then`, `else`, `with`, `:` or `;` (only `by` blocks run on)
#   ALT -> the next `| alternative` (a nested `match` would take it)
KEYWORD = -1
ALT = -2
_BY_RIGHT = -3  # a one-line `by`/`do` block runs to the next closing bracket or comma
_MATCH_RIGHT = -2

_Printed = tuple[str, int, int]


def _fmt(t: Term, min_prec: int, follow: int | None = None) -> tuple[str, int]:
    """`t` printed for a context that parses at `min_prec`; returns (text, right edge)."""
    text, prec, right = _NODE[type(t)](t)
    if prec < min_prec or (follow is not None and follow >= right):
        return f"({text})", INF
    return text, right


def fmt(t: Term, min_prec: int = 0, follow: int | None = None) -> str:
    return _fmt(t, min_prec, follow)[0]


# --- atoms -------------------------------------------------------------------


def _ident(t: Ident) -> _Printed:
    return t.name, MAX, INF


def _var(t: Var) -> _Printed:
    return t.name, MAX, INF


def _const(t: Const) -> _Printed:
    return t.written or t.name, MAX, INF


def _num(t: Num | Decimal) -> _Printed:
    return t.text, MAX, INF


def _str(t: Str) -> _Printed:
    return f'"{t.value}"', MAX, INF


def _char(t: CharLit) -> _Printed:
    return f"'{t.value}'", MAX, INF


def _hole(t: Hole) -> _Printed:
    return (f"?{t.name}" if t.name else "_"), MAX, INF


def _cdot(t: CDot) -> _Printed:
    return "·", MAX, INF


def _dot(t: DotIdent) -> _Printed:
    return f".{t.name}", MAX, INF


def _sort(t: Sort) -> _Printed:
    if not t.level:
        return t.kind, MAX, INF
    if t.level == "*":
        return f"{t.kind}*", MAX, INF
    return f"{t.kind} {t.level}", LEAD, INF


def _block(keyword: str, text: str, prec: int) -> _Printed:
    """A `by`/`do` block. One written over several lines keeps its lines; it
    is printed in parentheses with its first line on a line of its own,
    indented no deeper than any later line, so that Lean's layout rule ends it
    where it ended before, whatever column the printed block starts at."""
    if "\n" not in text:
        if takes_comma(text, keyword == "do"):  # `∃ x` left open: `(by exact ∃ x), y`
            return f"({keyword} {text})", MAX, INF
        return f"{keyword} {text}", prec, _BY_RIGHT
    lines = text.split("\n")
    indent = min((len(x) - len(x.lstrip(" ")) for x in lines[1:] if x.strip()), default=0)
    return f"({keyword}\n{' ' * indent}{text})", MAX, INF


def _by(t: By) -> _Printed:
    return _block("by", t.text, BY_PREC)


def _do(t: Do) -> _Printed:
    return _block("do", t.text, DO_PREC)


def _index(t: Index) -> _Printed:
    inner, _ = _fmt(t.term, MAX, MAX)
    if isinstance(t.term, Index) and t.term.suffix == "!":  # `]![` would lex as `] ![`
        inner = f"({inner})"
    return f"{inner}[{fmt(t.index)}]{t.suffix}", MAX, INF


# --- operators ---------------------------------------------------------------


def _binop(t: BinOp) -> _Printed:
    inf = INFIX[t.op]
    lhs, _ = _fmt(t.lhs, inf.lhs, inf.prec)
    rhs, right = _fmt(t.rhs, inf.rhs)
    return f"{lhs} {t.op} {rhs}", inf.prec, min(inf.rhs, right)


def _eventually(t: EventuallyRel) -> _Printed:
    rel = FILTER_RELS[f"{t.op}["]
    lhs, _ = _fmt(t.lhs, rel.lhs, rel.prec)
    rhs, right = _fmt(t.rhs, rel.rhs)
    filt = fmt(t.filter, FILTER_LEVEL)
    return f"{lhs} {t.op}[{filt}] {rhs}", rel.prec, min(rel.rhs, right)


def _prefix(t: Prefix) -> _Printed:
    prec, arg_prec = PREFIX[t.op]
    arg, right = _fmt(t.arg, arg_prec)
    sep = " " if t.op == "-" and arg.startswith("-") else ""
    return f"{t.op}{sep}{arg}", prec, min(arg_prec, right)


def _postfix(t: Postfix) -> _Printed:
    arg, _ = _fmt(t.arg, MAX, POSTFIX[t.op])
    return f"{arg}{t.op}", MAX, INF


def _proj(t: Proj) -> _Printed:
    """`.field` must follow a name, a projection or a closing bracket without a space."""
    inner, _ = _fmt(t.term, MAX, MAX)
    term = t.term
    if isinstance(term, (Var, Const)):
        keep = True  # resolved: `n.succ` resolves back to `Proj(Var('n'), 'succ')`
    elif isinstance(term, (Ident, Hole)) and not inner.startswith("("):
        keep = t.field.isdigit()  # `x.succ` would lex as one name
    else:
        keep = isinstance(term, Proj) or inner[-1:] in ")]}⟩·"
    if not keep:
        inner = f"({inner})"
    return f"{inner}.{t.field}", MAX, INF


def _app(t: App) -> _Printed:
    parts = [_fmt(t.fn, MAX, LEAD)[0]]
    right = INF
    last = len(t.args) - 1
    for n, a in enumerate(t.args):
        text, right = _fmt(a, ARG, LEAD if n < last else None)
        parts.append(text)
    return " ".join(parts), LEAD, min(ARG, right)


def _named(t: NamedArg) -> _Printed:
    return f"({t.name} := {fmt(t.value)})", MAX, INF


# --- brackets ----------------------------------------------------------------


def _items(items: Sequence[Term]) -> str:
    return ", ".join(fmt(x) for x in items)


def _typed(t: Typed) -> _Printed:
    return f"({fmt(t.term, 0, KEYWORD)} : {fmt(t.type)})", MAX, INF


def _paren(t: Paren) -> _Printed:
    if isinstance(t.term, (Tuple, Typed)):
        return _NODE[type(t.term)](t.term)
    return f"({fmt(t.term)})", MAX, INF


def _tuple(t: Tuple) -> _Printed:
    return f"({_items(t.items)})", MAX, INF


def _anon(t: Anon) -> _Printed:
    return f"⟨{_items(t.items)}⟩", MAX, INF


def _veclit(t: VecLit) -> _Printed:
    return f"![{_items(t.items)}]", MAX, INF


def _arraylit(t: ArrayLit) -> _Printed:
    return f"#[{_items(t.items)}]", MAX, INF


def _listlit(t: ListLit) -> _Printed:
    return f"[{_items(t.items)}]", MAX, INF


def _setlit(t: SetLit) -> _Printed:
    return "{" + _items(t.items) + "}", MAX, INF


def _delimited(inner: str, bar: str) -> str:
    if inner[:1] in "|‖" or inner[-1:] in "|‖":
        inner = f"({inner})"
    return f"{bar}{inner}{bar}"


def _abs(t: Abs) -> _Printed:
    return _delimited(fmt(t.term, 0, KEYWORD), "|"), MAX, INF


def _norm(t: Norm) -> _Printed:
    return _delimited(fmt(t.term, 0, KEYWORD), "‖"), MAX, INF


def _setbuilder(t: SetBuilder) -> _Printed:
    return "{" + f"{_plain_binder(t.binder, KEYWORD)} | {fmt(t.body)}" + "}", MAX, INF


def _subtype(t: Subtype) -> _Printed:
    return "{ " + f"{_plain_binder(t.binder, KEYWORD)} // {fmt(t.body)}" + " }", MAX, INF


def _structinst(t: StructInst) -> _Printed:
    fields = ", ".join(f"{name} := {fmt(value)}" for name, value in t.fields)
    base = f"{fmt(t.base, 0, KEYWORD)} with " if t.base is not None else ""
    return "{ " + base + fields + " }", MAX, INF


# --- binders -----------------------------------------------------------------

_BRACKETS = {"explicit": ("(", ")"), "implicit": ("{", "}"), "strict": ("⦃", "⦄")}


def print_binder(b: Binder) -> str:
    """One binder group as written in a binder list."""
    if b.kind == "inst":
        head = f"{b.names[0]} : " if b.names else ""
        return f"[{head}{fmt(b.type) if b.type is not None else '_'}]"
    if b.kind == "plain":
        return _plain_binder(b, KEYWORD)
    opener, closer = _BRACKETS[b.kind]
    text = " ".join(b.names)
    if b.type is not None:
        text += f" : {fmt(b.type, 0, KEYWORD if b.default is not None else None)}"
    if b.default is not None:
        text += f" := {fmt(b.default)}"
    return f"{opener}{text}{closer}"


def _plain_binder(b: Binder, follow: int | None) -> str:
    if b.pattern is not None:
        return fmt(b.pattern, MAX, LEAD)
    text = " ".join(b.names)
    if b.type is not None:
        text += f" : {fmt(b.type, 0, follow)}"
    return text


def print_binders(bs: Sequence[Binder]) -> str:
    return " ".join(print_binder(b) for b in bs)


def _binder_group(bs: Sequence[Binder]) -> str:
    """Binders of `fun`/`∀`/`∃`: a typed plain group only comes last."""
    out = []
    for n, b in enumerate(bs):
        if b.kind == "plain" and b.type is not None and n < len(bs) - 1:
            out.append(print_binder(Binder("explicit", b.names, b.type)))
        else:
            out.append(print_binder(b))
    return " ".join(out)


def _lam(t: Lam) -> _Printed:
    body, right = _fmt(t.body, 0)
    return f"fun {_binder_group(t.binders)} => {body}", FUN_PREC, min(0, right)


def _quant(t: Quant) -> _Printed:
    binders = _binder_group(t.binders)
    if t.bound is not None:
        op, rhs = t.bound
        binders += f" {op} {fmt(rhs)}"
    body, right = _fmt(t.body, 0)
    return f"{t.q} {binders}, {body}", QUANT_PREC, min(0, right)


def _bigop(t: BigOp) -> _Printed:
    bs = t.binders
    if len(bs) == 1 and bs[0].kind == "plain":
        binders = _plain_binder(bs[0], None)
        if t.domain is not None:
            binders += f" ∈ {fmt(t.domain)}"
    else:
        binders = print_binders(bs)
    body, right = _fmt(t.body, BIGOP_BODY)
    return f"{t.op} {binders}, {body}", BIGOP_PREC, min(BIGOP_BODY, right)


def _measureless_at_right(t: Term) -> bool:
    """Whether an integral without `∂μ` ends `t` (it would take a following `∂`)."""
    while True:
        if isinstance(t, Integral):
            if t.measure is None:
                return True
            t = t.measure
        elif isinstance(t, BinOp):
            t = t.rhs
        elif isinstance(t, Prefix):
            t = t.arg
        elif isinstance(t, App):
            t = t.args[-1]
        else:
            return False


def _integral(t: Integral) -> _Printed:
    bs = t.binders
    if len(bs) == 1 and bs[0].kind == "plain":
        binders = _plain_binder(bs[0], KEYWORD)
    else:
        binders = print_binders(bs)
    if t.domain is not None:
        binders += f" in {fmt(t.domain)}"
    if t.measure is None:
        body, right = _fmt(t.body, INTEGRAL_BODY)
        return f"∫ {binders}, {body}", INTEGRAL_PREC, min(INTEGRAL_BODY, right)
    body, body_right = _fmt(t.body, INTEGRAL_BODY, KEYWORD)
    if body_right != INF and _measureless_at_right(t.body):
        body = f"({body})"
    measure, right = _fmt(t.measure, INTEGRAL_MEASURE)
    return f"∫ {binders}, {body} ∂{measure}", INTEGRAL_PREC, min(INTEGRAL_MEASURE, right)


def _pi(t: Pi) -> _Printed:
    body, right = _fmt(t.body, PI_PREC)
    head = " → ".join(print_binder(b) for b in t.binders)
    return f"{head} → {body}", PI_PREC, min(PI_PREC, right)


def _let(t: Let) -> _Printed:
    head = t.keyword
    if t.pattern is not None:
        head += " " + fmt(t.pattern, MAX, LEAD)
    elif t.name:
        head += " " + t.name
    if t.binders:
        head += " " + print_binders(t.binders)
    if t.type is not None:
        head += f" : {fmt(t.type, 0, KEYWORD)}"
    value = fmt(t.value, 0, KEYWORD)
    if "\n" in value:  # a value over several lines: no column limit inside parentheses
        value = f"({value})"
    body, right = _fmt(t.body, 0)
    return f"{head} := {value}; {body}", LET_PREC, min(0, right)


def _if(t: If) -> _Printed:
    hyp = f"{t.hyp} : " if t.hyp is not None else ""
    cond = fmt(t.cond, 0, KEYWORD)
    if isinstance(t.cond, Let) and not cond.startswith("("):  # `if let` is other syntax
        cond = f"({cond})"
    then = fmt(t.then, 0, KEYWORD)
    els, right = _fmt(t.els, 0)
    return f"if {hyp}{cond} then {then} else {els}", IF_PREC, min(0, right)


def _alts(alts: Sequence[MatchAlt]) -> tuple[str, int]:
    parts = []
    right = INF
    for n, alt in enumerate(alts):
        pats = ", ".join(fmt(p, 0, KEYWORD) for p in alt.patterns)
        rhs, right = _fmt(alt.rhs, 0, ALT if n < len(alts) - 1 else None)
        parts.append(f"| {pats} => {rhs}")
    return " ".join(parts), right


def _match(t: Match) -> _Printed:
    scrut = ", ".join(fmt(s, 0, KEYWORD) for s in t.scrutinees)
    alts, _ = _alts(t.alts)
    return f"match {scrut} with {alts}", MATCH_PREC, _MATCH_RIGHT


def _lammatch(t: LamMatch) -> _Printed:
    alts, _ = _alts(t.alts)
    return f"fun {alts}", FUN_PREC, _MATCH_RIGHT


def _binder_node(t: Binder) -> _Printed:
    return print_binder(t), MAX, INF


def _alt_node(t: MatchAlt) -> _Printed:
    alts, right = _alts((t,))
    return alts, MATCH_PREC, _MATCH_RIGHT


_NODE: dict[type, Callable[[Any], _Printed]] = {
    Ident: _ident,
    Var: _var,
    Const: _const,
    Num: _num,
    Decimal: _num,
    Str: _str,
    CharLit: _char,
    Hole: _hole,
    CDot: _cdot,
    DotIdent: _dot,
    Sort: _sort,
    By: _by,
    Do: _do,
    Index: _index,
    BinOp: _binop,
    EventuallyRel: _eventually,
    Prefix: _prefix,
    Postfix: _postfix,
    Proj: _proj,
    App: _app,
    NamedArg: _named,
    Typed: _typed,
    Paren: _paren,
    Tuple: _tuple,
    Anon: _anon,
    VecLit: _veclit,
    ListLit: _listlit,
    ArrayLit: _arraylit,
    Integral: _integral,
    SetLit: _setlit,
    Abs: _abs,
    Norm: _norm,
    SetBuilder: _setbuilder,
    Subtype: _subtype,
    StructInst: _structinst,
    Lam: _lam,
    Quant: _quant,
    BigOp: _bigop,
    Pi: _pi,
    Let: _let,
    If: _if,
    Match: _match,
    LamMatch: _lammatch,
    Binder: _binder_node,
    MatchAlt: _alt_node,
}


def print_term(t: Term) -> str:
    """Lean text for `t`; parsing it gives back a tree equal to `t`."""
    return fmt(t)
