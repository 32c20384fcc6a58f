"""What a declaration's `open` directives make visible, decided as Lean decides it.

`open X` issued inside namespace `A.B` opens the first of `A.B.X`, `A.X`, `X`
that is a namespace, and also `N.X` for every namespace `N` opened before it
by a plain `open` (so `open Proofs ResNet34LivePC` opens
`Proofs.ResNet34LivePC`); Lean's `ResolveName.resolveNamespace`. A namespace
exists when some known name lies inside it. A directive whose namespace
resolves nowhere (one from a library that was not ingested) opens the name as
written, at the root.

`open X (a b)` and `open X renaming a → b` make single names visible
(aliases); `open X hiding a` opens `X` except `a`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..opens import OpenDirective
from .known import KnownNames


@dataclass(frozen=True)
class OpenScope:
    """Namespaces to look names up in (with the names each hides) and aliases."""

    namespaces: tuple[tuple[str, frozenset[str]], ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)

    def candidates(self, name: str) -> list[str]:
        """The full names `name` may denote through these directives, in order."""
        out = []
        if name in self.aliases:
            out.append(self.aliases[name])
        head = name.split(".", 1)[0]
        for ns, hidden in self.namespaces:
            if head not in hidden:
                out.append(f"{ns}.{name}")
        return out


def _resolve_namespace(d: OpenDirective, plain: list[str], known: KnownNames) -> list[str]:
    found: list[str] = []
    ctx = d.context
    while True:
        candidate = f"{ctx}.{d.namespace}" if ctx else d.namespace
        if known.is_namespace(candidate):
            found.append(candidate)
            break
        if not ctx:
            break
        ctx = ctx.rpartition(".")[0]
    for ns in reversed(plain):  # the most recent `open` first, as Lean does
        candidate = f"{ns}.{d.namespace}"
        if candidate not in found and known.is_namespace(candidate):
            found.append(candidate)
    return found or [d.namespace]


def open_scope(directives: Iterable[str], known: KnownNames) -> OpenScope:
    """Resolve `directives` (the text of `Declaration.opens`, oldest first)."""
    plain: list[str] = []
    namespaces: list[tuple[str, frozenset[str]]] = []
    aliases: dict[str, str] = {}
    for text in directives:
        if not text:
            continue
        d = OpenDirective.parse(text)
        resolved = _resolve_namespace(d, plain, known)
        if d.only or d.renaming:
            pairs = [(a, a) for a in d.only] + list(d.renaming)
            for old, new in pairs:
                targets = [f"{ns}.{old}" for ns in resolved]
                aliases[new] = next((t for t in targets if t in known), targets[0])
            continue
        hidden = frozenset(d.hiding)
        for ns in resolved:
            if (ns, hidden) not in namespaces:
                namespaces.append((ns, hidden))
            if not hidden and ns not in plain:
                plain.append(ns)
    return OpenScope(tuple(namespaces), aliases)
