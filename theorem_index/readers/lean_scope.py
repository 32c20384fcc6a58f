"""Lean scopes and `variable` binders, and which variables join a declaration.

A variable joins a declaration the way Lean decides it: its name is
mentioned in the declaration's binders or statement (and not re-bound
there), or in the type of a variable that joins, or named by `include`;
an instance binder joins when every variable it mentions has joined.
The joined binders keep their order; a group such as `{N a c : ℕ}` keeps
only the names that joined (`{N c : ℕ}`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from theorem_index.readers.lean_decl import BinderGroup, ParsedDecl
from theorem_index.readers.signature import OPENERS

_HEAD = re.compile(r"(?<![\w'.!?])[^\W\d][\w'!?]*")
_NAME_TOKEN = re.compile(r"(?<![\w'.!?])[^\W\d][\w'!?]*(?:\.[^\W\d][\w'!?]*)*")


@dataclass
class Var:
    name: str | None  # None: an instance binder
    group: BinderGroup
    uses: frozenset[str]


@dataclass
class Scope:
    kind: str  # file | namespace | section | mutual
    name: str = ""
    opens: list[str] = field(default_factory=list)
    variables: list[Var] = field(default_factory=list)
    includes: set[str] = field(default_factory=set)


def add_variables(scopes: list[Scope], groups: list[BinderGroup]) -> None:
    """Record the groups of one `variable` command in the innermost scope."""
    scope = scopes[-1]
    for group in groups:
        if not group.type and group.opener != "[":
            rebind(scopes, group)
            continue
        uses = frozenset(_HEAD.findall(group.type))
        if group.opener == "[":
            scope.variables.append(Var(None, group, uses))
            continue
        for name in group.names:
            scope.variables.append(Var(name, group, uses))


def rebind(scopes: list[Scope], group: BinderGroup) -> None:
    """`variable {x}`: change the binder kind of variables declared before."""
    for scope in scopes:
        for var in scope.variables:
            if var.name in group.names:
                g = var.group
                text = f"{group.opener}{var.name} : {g.type}{OPENERS[group.opener]}"
                var.group = BinderGroup(text, group.opener, (var.name,), g.type)


def variables_for(scopes: list[Scope], parsed: ParsedDecl) -> list[str]:
    """The variable binders (as text) that join the declaration `parsed`."""
    all_vars = [v for s in scopes for v in s.variables]
    if not all_vars:
        return []
    by_name = {v.name: v for v in all_vars if v.name is not None}
    own = {n for g in parsed.binders for n in g.names}
    header = " ".join([*(g.text for g in parsed.binders), parsed.statement])
    wanted = {h for h in _HEAD.findall(header) if h in by_name and h not in own}
    for s in scopes:
        wanted.update(n for n in s.includes if n in by_name)
    todo = list(wanted)
    while todo:
        for used in by_name[todo.pop()].uses:
            if used in by_name and used not in wanted and used not in own:
                wanted.add(used)
                todo.append(used)
    group_names: dict[int, list[str]] = {}
    order: list[Var] = []
    for var in all_vars:
        if var.name is None:
            deps = {u for u in var.uses if u in by_name}
            if deps and deps <= wanted:
                order.append(var)
        elif var.name in wanted and by_name[var.name] is var:
            key = id(var.group)
            if key not in group_names:
                group_names[key] = []
                order.append(var)
            group_names[key].append(var.name)
    return [
        var.group.text if var.name is None else var.group.rebuilt(tuple(group_names[id(var.group)]))
        for var in order
    ]


def instance_name(parsed: ParsedDecl, scopes: list[Scope]) -> str:
    """Lean's name for an anonymous instance, approximately: `inst` + the heads of
    the constants in its type (`Inhabited (Mat N a)` -> `instInhabitedMat`)."""
    own = {v.name for s in scopes for v in s.variables if v.name}
    own |= {n for g in parsed.binders for n in g.names}
    parts = []
    for token in _NAME_TOKEN.findall(parsed.statement):
        last = token.rsplit(".", 1)[-1]
        if token.split(".", 1)[0] in own or not last[:1].isalpha():
            continue
        parts.append(last[:1].upper() + last[1:])
    return "inst" + "".join(parts)
