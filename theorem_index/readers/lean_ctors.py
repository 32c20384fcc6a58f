"""The constructors of an `inductive` command, as doc-gen4 lists them (kind `ctor`).

    inductive Back (inp : Nat) : Nat → Type where
      | cotangent : Back inp inp
      | dotGeneral {m n : Nat} (A : Mat m n) : Back inp n → Back inp m

gives `Back.cotangent {inp : Nat} : Back inp inp` and `Back.dotGeneral {inp : Nat}
{m n : Nat} (A : Mat m n) : Back inp n → Back inp m`: the type's parameters are
implicit arguments of every constructor, as Lean makes them; a constructor written
without a type has the type applied to its parameters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from theorem_index.readers.lean_decl import BinderGroup, DeclParser, ParsedDecl, parse_group
from theorem_index.readers.signature import CLOSERS, OPENERS

_STOP = re.compile(r"(?<![\w'.!?])deriving(?![\w'!?])")


@dataclass(frozen=True)
class Constructor:
    short: str  # the constructor's own name (`dotGeneral`)
    binders: tuple[BinderGroup, ...]  # the type's parameters (implicit), then its own
    statement: str  # its type after the binders
    start: int  # offset of its `|`
    statement_start: int


def _bars(scan: str, pos: int, end: int) -> list[int]:
    """The `|` that start a constructor: at bracket depth 0, first on their line or
    right after `where`."""
    out: list[int] = []
    depth = 0
    for i in range(pos, end):
        c = scan[i]
        if c in OPENERS:
            depth += 1
        elif c in CLOSERS:
            depth -= 1
        elif c == "|" and depth == 0:
            before = scan[scan.rfind("\n", pos, i) + 1 : i].strip()
            if not before or before.endswith("where") or not out and before.endswith(":="):
                out.append(i)
    return out


def _implicit(group: BinderGroup) -> BinderGroup:
    if group.opener != "(" or not group.type:
        return group
    return parse_group("{" + f"{' '.join(group.names)} : {group.type}" + "}")


def constructors(parser: DeclParser, parsed: ParsedDecl) -> list[Constructor]:
    """The constructors of the inductive type `parsed` (its header already read)."""
    scan = parser.scan
    start, end = parsed.body_start, parsed.end
    stop = _STOP.search(scan, start, end)
    if stop is not None:
        end = stop.start()
    params = tuple(_implicit(g) for g in parsed.binders if g.opener in ("(", "{", "") and g.type)
    applied = " ".join(
        [parsed.name or "", *(n for g in parsed.binders if g.opener in ("(", "") for n in g.names)]
    )
    bars = _bars(scan, start, end)
    out: list[Constructor] = []
    for k, bar in enumerate(bars):
        stop_at = bars[k + 1] if k + 1 < len(bars) else end
        one = parser.parse("ctor", bar + 1, stop_at)
        if one.name is None:
            continue
        statement = one.statement or applied
        out.append(Constructor(one.name, params + one.binders, statement, bar, one.statement_start))
    return out


@dataclass(frozen=True)
class Field:
    short: str
    binders: tuple[BinderGroup, ...]  # the structure's parameters (implicit), then `self`
    statement: str  # the field's type
    start: int


_FIELD_LINE = re.compile(
    r"(?m)^([ \t]+)(?:\(([^():]+):(.+)\)|([^\W\d][\w'!?₀-₉ ]*?)[ \t]*:(?!=)(.*))$"
)


def _without_default(text: str) -> str:
    """A field's type without its default value (` := v` outside brackets; a named
    argument `(h := h)` inside the type stays)."""
    depth = 0
    for k, ch in enumerate(text):
        if ch in "([{⟨":
            depth += 1
        elif ch in ")]}⟩":
            depth -= 1
        elif depth == 0 and text.startswith(" := ", k):
            return text[:k]
    return text


def fields(parser: DeclParser, parsed: ParsedDecl) -> list[Field]:
    """The fields of the structure `parsed` (its `where` block), each as its projection:
    `HasVJP.backward {m n : Nat} {f : Vec m → Vec n} (self : HasVJP f) : Vec m → Vec n →
    Vec m`. A field's type may go on over more lines, indented further."""
    scan, code = parser.scan, parser.code
    start, end = parsed.body_start, parsed.end
    if not scan.startswith("where", start):
        return []
    stop = _STOP.search(scan, start, end)
    if stop is not None:
        end = stop.start()
    params = tuple(_implicit(g) for g in parsed.binders if g.opener in ("(", "{", "") and g.type)
    applied = " ".join(
        [parsed.name or "", *(n for g in parsed.binders if g.opener in ("(", "") for n in g.names)]
    )
    self_group = parse_group(f"(self : {applied})")
    lines = list(_FIELD_LINE.finditer(scan, start + len("where"), end))
    if not lines:
        return []
    column = min(len(m.group(1)) for m in lines)
    heads = [m for m in lines if len(m.group(1)) == column]
    out: list[Field] = []
    for k, m in enumerate(heads):
        names = (m.group(2) or m.group(4) or "").split()
        stop_at = heads[k + 1].start() if k + 1 < len(heads) else end
        type_start = m.start(3) if m.group(2) else m.start(5)
        type_end = stop_at if not m.group(2) else m.end(3)
        text = " ".join(code[type_start:type_end].split())
        text = _without_default(text)
        if not names or not text or any(not n.replace("_", "a").isidentifier() for n in names):
            continue
        for n in names:
            out.append(Field(n, (*params, self_group), text, m.start()))
    return out
