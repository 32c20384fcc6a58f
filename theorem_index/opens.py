"""One Lean `open` directive, as a declaration records it.

`Declaration.opens` lists the directives in force where the declaration
stands, oldest first, each as one line of text:

    X                         open X                  (issued at the root)
    Proofs::X                 open X                  (issued inside namespace Proofs)
    Proofs::X (a b)           open X (a b)
    Proofs::X hiding a b      open X hiding a b
    Proofs::X renaming a → b, c → d

The namespace the command was issued in is kept because Lean resolves `X`
against it (`Proofs.X` before `X`) and against the directives before it;
which of those namespaces exist is only known once every file is read, so
resolution happens later (`theorem_index.lean.open_scope`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CONTEXT = "::"
_HIDING = " hiding "
_RENAMING = " renaming "
_ONLY = re.compile(r"^(\S+) \(([^()]*)\)$")


@dataclass(frozen=True)
class OpenDirective:
    """`open X …` issued inside namespace `context` ("" at the root)."""

    namespace: str
    context: str = ""
    only: tuple[str, ...] = ()
    hiding: tuple[str, ...] = ()
    renaming: tuple[tuple[str, str], ...] = ()

    def text(self) -> str:
        head = f"{self.context}{_CONTEXT}{self.namespace}" if self.context else self.namespace
        if self.only:
            return f"{head} ({' '.join(self.only)})"
        if self.hiding:
            return head + _HIDING + " ".join(self.hiding)
        if self.renaming:
            return head + _RENAMING + ", ".join(f"{a} → {b}" for a, b in self.renaming)
        return head

    @classmethod
    def parse(cls, text: str) -> OpenDirective:
        """The directive `text()` wrote; a plain name is an `open` at the root."""
        context, sep, rest = text.partition(_CONTEXT)
        if not sep:
            context, rest = "", text
        m = _ONLY.match(rest)
        if m is not None:
            return cls(m.group(1), context, only=tuple(m.group(2).split()))
        if _HIDING in rest:
            name, _, names = rest.partition(_HIDING)
            return cls(name, context, hiding=tuple(names.split()))
        if _RENAMING in rest:
            name, _, pairs = rest.partition(_RENAMING)
            renaming = []
            for pair in pairs.split(","):
                old, arrow, new = pair.partition("→")
                if arrow and old.strip() and new.strip():
                    renaming.append((old.strip(), new.strip()))
            return cls(name, context, renaming=tuple(renaming))
        return cls(rest.strip(), context)
