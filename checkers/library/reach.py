"""Which definitions a statement depends on: the closure of the constants it names through
the equations that are unfolded (semantics.py says which are), recorded with each result
so that a changed definition marks the theorems that use it stale.

Each definition's closure is computed once for an environment and shared by every theorem
that reaches it: the use graph's strongly connected components are closed at once
(Tarjan's algorithm, iteratively), so no set is stored before all it reaches is in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from checkers.language.notation import FieldName, constants_in
from theorem_index.model import Declaration


class Meanings(Protocol):
    """What the closure asks of the constants' semantics (semantics.Semantics)."""

    def candidates(self, name: str) -> tuple[str, ...]: ...

    def source(self, name: str) -> str | None: ...

    def equation_constants(self, name: str) -> frozenset[str]: ...

    def declaration(self, name: str) -> Declaration | None: ...


class Reach:
    """The dependencies of terms in one environment, each definition's closure kept."""

    def __init__(self, sem: Meanings, vocabulary: frozenset[str]) -> None:
        self.sem = sem
        # constants of the library recorded as dependencies when reached (packs' names)
        self.vocabulary = vocabulary
        self._resolved: dict[str, str | None] = {}
        self._closures: dict[str, frozenset[str]] = {}

    def dependencies(self, terms: Iterable[Any]) -> tuple[str, ...]:
        """Definitions used, transitively through the equations that are unfolded."""
        names: set[str] = set()
        for t in terms:
            names |= constants_in(t)
        seen: set[str] = set()
        for c in names:
            full = self._resolve(c)
            if full is not None:
                seen |= self._closure(full)
        return tuple(sorted(seen))

    def _resolve(self, name: str) -> str | None:
        """The first candidate for `name` that has semantics; for `X.f` written as a field
        of the constant X (`(Proofs.w).getD`) with no constant `X.f`, X itself: the
        evaluation reads the field of X's value, so X's definition is used."""
        if name not in self._resolved:
            self._resolved[name] = next(
                (x for x in self.sem.candidates(name) if self.sem.source(x) is not None), None
            )
        found = self._resolved[name]
        if found is None and isinstance(name, FieldName):
            return self._resolve(name.base)
        return found

    def _uses(self, full: str) -> list[str]:
        """What an unfolded equation uses, resolved; nothing for a library name."""
        if self.sem.source(full) != "equation":
            return []
        return [r for c in sorted(self.sem.equation_constants(full)) if (r := self._resolve(c))]

    def _recorded(self, full: str) -> bool:
        """Whether `full` counts as a dependency when it is reached."""
        return (
            self.sem.source(full) == "equation"
            or full in self.vocabulary
            or self.sem.declaration(full) is not None
        )

    def _closure(self, root: str) -> frozenset[str]:
        """The dependencies reached from `root` (itself included when it counts).

        Every definition of a strongly connected component of the use graph reaches the
        same set, so each component is closed at once (Tarjan's algorithm, iteratively)
        and no set is stored before everything it reaches is in it.
        """
        if root in self._closures:
            return self._closures[root]
        index: dict[str, int] = {root: 0}
        low: dict[str, int] = {root: 0}
        uses: dict[str, list[str]] = {root: self._uses(root)}
        stack: list[str] = [root]
        on_stack: set[str] = {root}
        work: list[tuple[str, Iterator[str]]] = [(root, iter(uses[root]))]
        while work:
            v, pending = work[-1]
            for w in pending:
                if w in self._closures:
                    continue
                if w not in index:
                    index[w] = low[w] = len(index)
                    uses[w] = self._uses(w)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(uses[w])))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == index[v]:
                    component: list[str] = []
                    while not component or component[-1] != v:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                    members = set(component)
                    reached = {w for w in component if self._recorded(w)}
                    for w in component:
                        for x in uses[w]:
                            if x not in members:
                                reached |= self._closures[x]
                    closed = frozenset(reached)
                    for w in component:
                        self._closures[w] = closed
        return self._closures[root]
