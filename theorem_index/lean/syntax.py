"""The Lean term tree: frozen dataclasses with source spans.

Spans are excluded from equality, so a tree printed and re-parsed compares
equal to the original. Every node can be turned into plain JSON (`to_json`)
and back (`from_json`) for storage.

Names: the parser produces `Ident` for every identifier as written. Name
resolution (`resolve.py`) replaces each by `Var` (a bound variable) or
`Const` (a constant with its fully qualified name).

Every node class is in this one namespace (`S.BinOp`): the base and the atoms are
defined in `atoms.py`, the compound nodes in `compound.py`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from .atoms import (
    NO_SPAN,
    By,
    CDot,
    CharLit,
    Const,
    Decimal,
    Do,
    DotIdent,
    Hole,
    Ident,
    Num,
    Sort,
    Span,
    Str,
    Term,
    Var,
)
from .compound import (
    Abs,
    Anon,
    App,
    ArrayLit,
    BigOp,
    Binder,
    BinOp,
    EventuallyRel,
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
    Paren,
    Pi,
    Postfix,
    Prefix,
    Proj,
    Quant,
    SetBuilder,
    SetLit,
    StructInst,
    Subtype,
    Tuple,
    Typed,
    VecLit,
)

__all__ = [
    "Abs",
    "Anon",
    "App",
    "ArrayLit",
    "BigOp",
    "BinOp",
    "Binder",
    "By",
    "CDot",
    "CharLit",
    "Const",
    "Decimal",
    "Do",
    "DotIdent",
    "EventuallyRel",
    "Hole",
    "Ident",
    "If",
    "Index",
    "Integral",
    "Lam",
    "LamMatch",
    "Let",
    "ListLit",
    "Match",
    "MatchAlt",
    "ModEq",
    "NO_SPAN",
    "NamedArg",
    "Norm",
    "Num",
    "Paren",
    "Pi",
    "Postfix",
    "Prefix",
    "Proj",
    "Quant",
    "SetBuilder",
    "SetLit",
    "Sort",
    "Span",
    "Str",
    "StructInst",
    "Subtype",
    "Term",
    "Tuple",
    "Typed",
    "Var",
    "VecLit",
    "from_json",
    "node_fields",
    "subterms",
    "to_json",
]

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
