"""Binders and the binding constructs printed back to Lean text: binder groups, `fun`,
`∀`/`∃`, `∑`/`∏`, `∫`, `→`, `let`/`have`, `if` and `match`."""

from __future__ import annotations

from collections.abc import Sequence

from .parens import _MATCH_RIGHT, ALT, KEYWORD, _fmt, _Printed, fmt
from .precedence import (
    BIGOP_BODY,
    BIGOP_PREC,
    FUN_PREC,
    IF_PREC,
    INF,
    INTEGRAL_BODY,
    INTEGRAL_MEASURE,
    INTEGRAL_PREC,
    LEAD,
    LET_PREC,
    MATCH_PREC,
    MAX,
    PI_PREC,
    QUANT_PREC,
)
from .syntax import (
    App,
    BigOp,
    Binder,
    BinOp,
    If,
    Integral,
    Lam,
    LamMatch,
    Let,
    Match,
    MatchAlt,
    Pi,
    Prefix,
    Quant,
    Term,
)

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
