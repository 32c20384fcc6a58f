"""Lean scopes and `variable` binders, and which variables join a declaration.

A scope (`namespace`, `section`, the one-command scope of `… in`) starts
with its parent's variables, `include`s and `omit`s; what it adds or
changes (`variable {n}` making an explicit `n` implicit) is gone at its
`end`.

A variable joins a declaration the way Lean 4 decides it: its name is
mentioned in the declaration's binders or statement (for a definition, an
instance or a structure, in its body too), and not re-bound there; or in the
type of a variable that joins; or it is named by `include`. An instance
binder (`[NeZero n]`) joins when every variable it mentions has joined and
it was not omitted (`omit [NeZero n] in`). The joined binders keep their
order, before the declaration's own; a group such as `{N a c : ℕ}` keeps only
the names that joined (`{N c : ℕ}`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from theorem_index.lean import LeanParseError, free_names
from theorem_index.opens import OpenDirective
from theorem_index.readers.lean_decl import BinderGroup, ParsedDecl
from theorem_index.readers.signature import NAME, OPENERS, normalize

_HEAD = re.compile(r"(?<![\w'.!?])[^\W\d][\w'!?]*")
# A name before `:=` is a named argument or a `let`, never a mention.
_MENTION = re.compile(r"(?<![\w'.!?])([^\W\d][\w'!?]*)(?!\s*:=)(?![\w'!?])")
_NAME_TOKEN = re.compile(r"(?<![\w'.!?])[^\W\d][\w'!?]*(?:\.[^\W\d][\w'!?]*)*")
_OPEN_TOKEN = re.compile(rf"→|->|[(),]|{NAME}")


@dataclass
class Var:
    name: str | None  # None: an instance binder
    group: BinderGroup
    uses: frozenset[str]


@dataclass
class Scope:
    kind: str  # file | namespace | section | mutual | in
    name: str = ""
    namespace: str = ""  # the current namespace inside this scope, in full
    opens: list[str] = field(default_factory=list)  # directives issued in this scope
    variables: list[Var] = field(default_factory=list)  # every variable in force
    includes: set[str] = field(default_factory=set)
    omitted: set[str] = field(default_factory=set)  # instance binder types

    def child(self, kind: str, name: str = "") -> Scope:
        """The scope that `namespace name`, `section name`, … opens inside this one."""
        namespace = self.namespace
        if kind == "namespace" and name:
            namespace = f"{namespace}.{name}" if namespace else name
        return Scope(
            kind,
            name,
            namespace,
            variables=list(self.variables),
            includes=set(self.includes),
            omitted=set(self.omitted),
        )


def mentions(text: str) -> set[str]:
    """The plain names `text` refers to (not field names, not named arguments)."""
    return set(_MENTION.findall(text))


def open_directives(text: str, context: str) -> list[str]:
    """The directives (`OpenDirective` text) of one `open` command, `text` being what
    follows `open`, issued inside namespace `context`. `open scoped X` only turns
    on `X`'s notations and opens no names."""
    words = _OPEN_TOKEN.findall(text)
    if not words or words[0] == "scoped":
        return []
    cut = next((i for i, w in enumerate(words) if w in ("(", "hiding", "renaming")), None)
    if cut is None:
        return [OpenDirective(n, context).text() for n in words]
    names, word = words[:cut], words[cut]
    if not names:
        return []
    rest = [w for w in words[cut + 1 :] if w not in (")", ",")]
    plain = [OpenDirective(n, context).text() for n in names[:-1]]
    last = names[-1]
    if word == "(":
        return [*plain, OpenDirective(last, context, only=tuple(rest)).text()]
    if word == "hiding":
        return [*plain, OpenDirective(last, context, hiding=tuple(rest)).text()]
    pairs = []
    for k in range(0, len(rest) - 2, 3):
        if rest[k + 1] in ("→", "->"):
            pairs.append((rest[k], rest[k + 2]))
    return [*plain, OpenDirective(last, context, renaming=tuple(pairs)).text()]


def add_variables(scope: Scope, groups: list[BinderGroup]) -> None:
    """Record the groups of one `variable` command in `scope`."""
    for group in groups:
        if not group.type and group.opener != "[":
            rebind(scope, group)
            continue
        uses = frozenset(_HEAD.findall(group.type))
        if group.opener == "[":
            scope.variables.append(Var(None, group, uses))
            continue
        for name in group.names:
            scope.variables.append(Var(name, group, uses))


def rebind(scope: Scope, group: BinderGroup) -> None:
    """`variable {x}`: change the binder kind of variables declared before, in this
    scope and those inside it only."""
    for i, var in enumerate(scope.variables):
        if var.name in group.names:
            g = var.group
            text = f"{group.opener}{var.name} : {g.type}{OPENERS[group.opener]}"
            new = BinderGroup(text, group.opener, (var.name,), g.type)
            scope.variables[i] = Var(var.name, new, var.uses)


def omit(scope: Scope, groups: list[BinderGroup], names: list[str]) -> None:
    """`omit x [C x]`: `x` is no longer included, `[C x]` no longer joins by itself."""
    scope.includes.difference_update(names)
    for group in groups:
        if group.opener == "[":
            scope.omitted.add(group.type)
        else:
            scope.includes.difference_update(group.names)


def declaration_mentions(
    scope: Scope, parsed: ParsedDecl, equations: tuple[str, ...] = ()
) -> set[str]:
    """The variables of `scope` that the declaration refers to: in its header, and
    in `equations` (a definition's body; an empty tuple for a theorem, whose proof
    does not count). Free names come from the term parser; a header it cannot
    parse counts every name written in it, a body it cannot parse counts none."""
    names = {v.name for v in scope.variables if v.name is not None}
    header = " ".join([*(g.text for g in parsed.binders), parsed.statement])
    written = mentions(header) & names
    body_written = mentions(" ".join(equations)) & names if equations else set()
    if not written and not body_written:
        return set()
    binders = " ".join(g.text for g in parsed.binders if g.opener or g.names)
    try:
        found = free_names(binders, parsed.statement)
    except LeanParseError:
        found = written
    if body_written:
        try:
            found |= free_names(binders, "", equations)
        except LeanParseError:
            pass
    return found & names


def variables_for(scope: Scope, parsed: ParsedDecl, mentioned: set[str]) -> list[BinderGroup]:
    """The variable binders that join the declaration `parsed`, which refers to the
    variables `mentioned` (`declaration_mentions`)."""
    all_vars = scope.variables
    if not all_vars:
        return []
    by_name = {v.name: v for v in all_vars if v.name is not None}
    own = {n for g in parsed.binders for n in g.names}
    wanted = {h for h in mentioned if h in by_name and h not in own}
    wanted.update(n for n in scope.includes if n in by_name)
    todo = list(wanted)
    while todo:
        for used in by_name[todo.pop()].uses:
            if used in by_name and used not in wanted and used not in own:
                wanted.add(used)
                todo.append(used)
    omitted = {normalize(t) for t in scope.omitted}
    group_names: dict[int, list[str]] = {}
    order: list[Var] = []
    for var in all_vars:
        if var.name is None:
            deps = {u for u in var.uses if u in by_name}
            if deps and deps <= wanted and normalize(var.group.type) not in omitted:
                order.append(var)
        elif var.name in wanted and by_name[var.name] is var:
            key = id(var.group)
            if key not in group_names:
                group_names[key] = []
                order.append(var)
            group_names[key].append(var.name)
    return [
        var.group if var.name is None else var.group.only(tuple(group_names[id(var.group)]))
        for var in order
    ]


def instance_name(parsed: ParsedDecl, scope: Scope) -> str:
    """Lean's name for an anonymous instance, approximately: `inst` + the heads of
    the constants in its type (`Inhabited (Mat N a)` -> `instInhabitedMat`)."""
    own = {v.name for v in scope.variables if v.name}
    own |= {n for g in parsed.binders for n in g.names}
    parts = []
    for token in _NAME_TOKEN.findall(parsed.statement):
        last = token.rsplit(".", 1)[-1]
        if token.split(".", 1)[0] in own or not last[:1].isalpha():
            continue
        parts.append(last[:1].upper() + last[1:])
    return "inst" + "".join(parts)
