"""The Lean term tree: frozen dataclasses with source spans.

Spans are excluded from equality, so a tree printed and re-parsed compares
equal to the original. Every node can be turned into plain JSON (`to_json`)
and back (`from_json`) for storage.

Names: the parser produces `Ident` for every identifier as written. Name
resolution (`resolve.py`) replaces each by `Var` (a bound variable) or
`Const` (a constant with its fully qualified name).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Span:
    """Character offsets [start, end) into the text the node was parsed from."""

    start: int
    end: int


NO_SPAN = Span(0, 0)


@dataclass(frozen=True)
class Term:
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


# --- atoms -----------------------------------------------------------------


@dataclass(frozen=True)
class Ident(Term):
    """An identifier as written (possibly dotted: `Mat.flatten`, `n.succ`)."""

    name: str


@dataclass(frozen=True)
class Var(Term):
    """A bound variable (binder, lambda, sum index, let, match pattern)."""

    name: str


@dataclass(frozen=True)
class Const(Term):
    """A constant, by fully qualified name; `written` keeps the source spelling."""

    name: str
    written: str = field(default="", compare=False)


@dataclass(frozen=True)
class Num(Term):
    """A natural-number literal (decimal, `0x`, `0b` or `0o`), its value as text."""

    text: str


@dataclass(frozen=True)
class Decimal(Term):
    """A decimal or scientific literal (`0.044715`, `1e-5`): an exact rational in Lean."""

    text: str


@dataclass(frozen=True)
class Str(Term):
    """A string literal; `value` is the text between the quotes, escapes as written."""

    value: str


@dataclass(frozen=True)
class Hole(Term):
    """`_`, or `?x` (a named hole)."""

    name: str = ""


@dataclass(frozen=True)
class CDot(Term):
    """`·` inside a section `(· + 1)`."""


@dataclass(frozen=True)
class Sort(Term):
    """`Type u`, `Sort u`, `Prop`; `level` is the universe as text ('' when absent)."""

    kind: str
    level: str = ""


# --- compound --------------------------------------------------------------


@dataclass(frozen=True)
class App(Term):
    fn: Term
    args: tuple[Term, ...]


@dataclass(frozen=True)
class NamedArg(Term):
    """`(x := e)` in an application."""

    name: str
    value: Term


@dataclass(frozen=True)
class BinOp(Term):
    """An infix operator (`+ - * / % ^ • ∘ ∣ = ≠ ≤ < ≥ > ∈ ∉ ∧ ∨ → ↔ ×` ...)."""

    op: str
    lhs: Term
    rhs: Term


@dataclass(frozen=True)
class EventuallyRel(Term):
    """Mathlib's `f =ᶠ[l] g` / `f ≤ᶠ[l] g`: `lhs op rhs` holds eventually along the filter
    `filter` (`Filter.EventuallyEq l f g` / `Filter.EventuallyLE l f g`); `op` is `=ᶠ` or `≤ᶠ`."""

    op: str
    filter: Term
    lhs: Term
    rhs: Term


@dataclass(frozen=True)
class Prefix(Term):
    """A prefix operator: `-`, `¬`, `↑`, `⇑`, `↥`, `!`."""

    op: str
    arg: Term


@dataclass(frozen=True)
class Postfix(Term):
    """A postfix operator: `⁻¹`, `!` (factorial)."""

    op: str
    arg: Term


@dataclass(frozen=True)
class Typed(Term):
    """A type ascription `(e : T)`."""

    term: Term
    type: Term


@dataclass(frozen=True)
class Paren(Term):
    """Kept only where the parentheses change the meaning Lean gives (none so far);
    the parser does not produce it for ordinary grouping."""

    term: Term


@dataclass(frozen=True)
class Tuple(Term):
    """`(a, b, c)`."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class Anon(Term):
    """The anonymous constructor `⟨a, b⟩`."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class VecLit(Term):
    """`![a, b, c]`."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class ListLit(Term):
    """`[a, b, c]`."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class SetBuilder(Term):
    """`{x | p x}` or `{x : T | p x}`; `binder` is the bound pattern."""

    binder: Binder
    body: Term


@dataclass(frozen=True)
class Abs(Term):
    """`|x|`."""

    term: Term


@dataclass(frozen=True)
class Norm(Term):
    """`‖x‖`."""

    term: Term


@dataclass(frozen=True)
class Proj(Term):
    """Projection / generalised field notation: `(p).1`, `W.flatten` after a
    non-identifier, `e.symm`. `field` is the name or the number as text."""

    term: Term
    field: str


@dataclass(frozen=True)
class DotIdent(Term):
    """A leading-dot name `.symm`, resolved against the expected type."""

    name: str


@dataclass(frozen=True)
class Binder(Term):
    """One binder group.

    kind: "explicit" `(x : T)`, "implicit" `{x : T}`, "strict" `⦃x : T⦄`,
    "inst" `[C M]` / `[inst : C M]`, "plain" (no brackets, as in `fun x => ..`
    or `∑ x : T, ..`). `names` may be empty for an anonymous instance binder.
    `pattern` is set instead of `names` for `fun (r, k) => ..` / `fun ⟨a, b⟩ ↦ ..`.
    """

    kind: str
    names: tuple[str, ...]
    type: Term | None = None
    default: Term | None = None
    pattern: Term | None = None


@dataclass(frozen=True)
class Lam(Term):
    """`fun binders => body` (also `λ`, `↦`)."""

    binders: tuple[Binder, ...]
    body: Term


@dataclass(frozen=True)
class MatchAlt(Term):
    patterns: tuple[Term, ...]
    rhs: Term


@dataclass(frozen=True)
class LamMatch(Term):
    """`fun | pat => e | ...`."""

    alts: tuple[MatchAlt, ...]


@dataclass(frozen=True)
class Match(Term):
    """`match e1, e2 with | p1, p2 => rhs ...`."""

    scrutinees: tuple[Term, ...]
    alts: tuple[MatchAlt, ...]


@dataclass(frozen=True)
class BigOp(Term):
    """`∑ x : T, body`, `∑ x ∈ s, body`, `∏ ...`; op is "∑" or "∏".

    `domain` is the `∈ s` finset when present; the body is parsed at
    precedence 67 (Mathlib's `bigOpBinders`)."""

    op: str
    binders: tuple[Binder, ...]
    domain: Term | None
    body: Term


@dataclass(frozen=True)
class Quant(Term):
    """`∀ binders, body` / `∃ binders, body` / `∃! ...`; `bound` holds a binder
    predicate such as `∀ ε > 0, ..` as (op, rhs)."""

    q: str
    binders: tuple[Binder, ...]
    body: Term
    bound: tuple[str, Term] | None = None


@dataclass(frozen=True)
class Pi(Term):
    """A dependent arrow `(x : A) → B` or `{x : A} → B`."""

    binders: tuple[Binder, ...]
    body: Term


@dataclass(frozen=True)
class Let(Term):
    """`let x : T := v; body` (also `have`); `keyword` is "let" or "have"."""

    keyword: str
    name: str
    type: Term | None
    value: Term
    body: Term
    binders: tuple[Binder, ...] = ()
    pattern: Term | None = None  # `let ⟨a, b⟩ := v; body` (then `name` is "")


@dataclass(frozen=True)
class If(Term):
    """`if c then a else b`; `hyp` is the name in `if h : c then ..`."""

    cond: Term
    then: Term
    els: Term
    hyp: str | None = None


@dataclass(frozen=True)
class By(Term):
    """A tactic block; kept as text, never interpreted."""

    text: str


@dataclass(frozen=True)
class CharLit(Term):
    """A character literal `'a'`; `value` is the text between the quotes, as written."""

    value: str


@dataclass(frozen=True)
class SetLit(Term):
    """`{a, b, c}` (and `{}`)."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class Subtype(Term):
    """`{x : T // p x}`; the binder holds the name and the optional type."""

    binder: Binder
    body: Term


@dataclass(frozen=True)
class StructInst(Term):
    """`{ x := 1, y := 2 }` or `{ s with x := 1 }`."""

    fields: tuple[tuple[str, Term], ...]
    base: Term | None = None


@dataclass(frozen=True)
class ArrayLit(Term):
    """`#[a, b, c]`."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class Integral(Term):
    """Mathlib's `∫ x, f x ∂μ` and `∫ x in s, f x`: body at precedence 60, measure at 70."""

    binders: tuple[Binder, ...]
    domain: Term | None
    body: Term
    measure: Term | None = None


@dataclass(frozen=True)
class Index(Term):
    """`xs[i]`, `xs[i]!`, `xs[i]?` (Lean's `getElem` notation); `suffix` is "", "!" or "?"."""

    term: Term
    index: Term
    suffix: str = ""


@dataclass(frozen=True)
class Do(Term):
    """A `do` block; kept as text, never interpreted."""

    text: str


# --- JSON ------------------------------------------------------------------

_NODE_TYPES: dict[str, type[Term]] = {}
# Per node class: its name and its field names without `span`, computed once.
_NODE_FIELDS: dict[type, tuple[str, tuple[str, ...]]] = {}


def _register_all() -> None:
    for obj in list(globals().values()):
        if isinstance(obj, type) and issubclass(obj, Term) and obj is not Term:
            _NODE_TYPES[obj.__name__] = obj
            names = tuple(f.name for f in dataclasses.fields(obj) if f.name != "span")
            _NODE_FIELDS[obj] = (obj.__name__, names)


def node_fields(cls: type) -> tuple[str, ...]:
    """The field names of a node class, without `span`."""
    spec = _NODE_FIELDS.get(cls)
    if spec is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if f.name != "span")
        spec = _NODE_FIELDS[cls] = (cls.__name__, names)
    return spec[1]


def subterms(node: Any) -> Iterator[Term]:
    """Every term in `node` (a term, or tuples of terms), the node itself first, in pre-order."""
    stack = [node]
    while stack:
        u = stack.pop()
        if isinstance(u, Term):
            yield u
            stack.extend(reversed([getattr(u, n) for n in node_fields(type(u))]))
        elif isinstance(u, tuple):
            stack.extend(reversed(u))


def to_json(node: Any) -> Any:
    """A term (or tuple of terms) as plain JSON: {"t": kind, field: value, ...}."""
    spec = _NODE_FIELDS.get(type(node))
    if spec is None:
        if isinstance(node, tuple):
            return [to_json(x) for x in node]
        if not isinstance(node, Term):
            return node
        node_fields(type(node))
        spec = _NODE_FIELDS[type(node)]
    kind, names = spec
    out: dict[str, Any] = {"t": kind}
    for name in names:
        value = getattr(node, name)
        if value is None or type(value) is str:
            out[name] = value
        elif type(value) is tuple:
            out[name] = [x if type(x) is str else to_json(x) for x in value]
        else:
            out[name] = to_json(value)
    span = node.span
    out["span"] = [span.start, span.end]
    return out


def from_json(data: Any) -> Any:
    """The inverse of `to_json`."""
    if isinstance(data, dict) and "t" in data:
        cls = _NODE_TYPES[data["t"]]
        kwargs: dict[str, Any] = {}
        for name in _NODE_FIELDS[cls][1]:
            if name in data:
                kwargs[name] = from_json(data[name])
        span = data.get("span", [0, 0])
        return cls(**kwargs, span=Span(span[0], span[1]))
    if isinstance(data, list):
        return tuple(from_json(x) for x in data)
    return data


_register_all()
