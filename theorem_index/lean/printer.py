"""Print term trees back to Lean text with as few parentheses as re-parsing allows.

Here: the printers of atoms, operators, applications and brackets, and the table of
every node's printer. Each printer gives (text, precedence, right edge), from which
`parens.py` decides where parentheses go; binders and the constructs that bind are
printed in `binding_printer.py`.
"""

from __future__ import annotations

from collections.abc import Sequence

from .binding_printer import (
    _alt_node,
    _bigop,
    _binder_node,
    _if,
    _integral,
    _lam,
    _lammatch,
    _let,
    _match,
    _pi,
    _plain_binder,
    _quant,
)
from .blocks import takes_comma
from .parens import _BY_RIGHT, _NODE, KEYWORD, _fmt, _Printed, fmt
from .precedence import (
    ARG,
    BY_PREC,
    DO_PREC,
    FILTER_LEVEL,
    FILTER_RELS,
    INF,
    INFIX,
    LEAD,
    MAX,
    MOD_EQ_PREC,
    POSTFIX,
    PREFIX,
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


def _mod_eq(t: ModEq) -> _Printed:
    lhs, _ = _fmt(t.lhs, MOD_EQ_PREC + 1, MOD_EQ_PREC)
    rhs, _ = _fmt(t.rhs, MOD_EQ_PREC + 1)
    return f"{lhs} ≡ {rhs} [{t.kind} {fmt(t.modulus)}]", MOD_EQ_PREC, INF


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


_NODE.update(
    {
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
        ModEq: _mod_eq,
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
)


def print_term(t: Term) -> str:
    """Lean text for `t`; parsing it gives back a tree equal to `t`."""
    return fmt(t)
