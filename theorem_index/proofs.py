"""Proof status: whether a declaration's own proof is complete, and what it rests on.

A reader records each declaration's own status (`Declaration.proof`): Lean source from
the words of its proof (`sorry`, `admit`), doc-gen4 HTML from its "sorried" mark, a text
page not at all (`unknown`). A project may declare macros that expand to `sorry`
(`sorry_proof`): `with_markers` applies them to the names a proof mentions.

A proved theorem whose proof uses an unproved declaration, directly or through other
proofs, *rests on* it (a blueprint's "proved" as against "fully proved"): `resting`
follows the names each proof mentions, resolved as Lean would in its namespace and
`open`s against the declarations ingested, so only as far as the ingested sources show.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from theorem_index.lean.known import KnownNames
from theorem_index.lean.lookup import NameLookup
from theorem_index.model import PROVED, UNPROVED, Declaration

__all__ = ["ProofRecord", "direct_uses", "resting", "with_markers"]


def with_markers(decl: Declaration, markers: Collection[str]) -> Declaration:
    """`decl` unproved where its proof mentions one of `markers` (a project's own
    stand-ins for `sorry`, by name as written or fully qualified)."""
    if decl.proof != PROVED or not markers:
        return decl
    if any(u in markers or u.rsplit(".", 1)[-1] in markers for u in decl.proof_uses):
        return dataclasses.replace(decl, proof=UNPROVED)
    return decl


@dataclass(frozen=True)
class ProofRecord:
    """What `resting` reads of one stored declaration."""

    name: str
    proof: str
    namespace: str = ""
    opens: Sequence[str] = ()
    uses: Sequence[str] = ()


def direct_uses(records: Iterable[ProofRecord]) -> dict[str, tuple[str, ...]]:
    """name -> the declarations among `records` its proof mentions (sorted, never itself),
    each name resolved as Lean would in the proof's namespace and `open`s; only for
    declarations whose proof mentions one."""
    by_name = {r.name: r for r in records}
    known = KnownNames(by_name, builtins=False)
    direct: dict[str, tuple[str, ...]] = {}
    for r in by_name.values():
        if not r.uses:
            continue
        lookup = NameLookup(namespace=r.namespace, opens=r.opens, known=known)
        found = {lookup.lookup(u) for u in r.uses}
        names = tuple(sorted(n for n in found if n is not None and n != r.name))
        if names:
            direct[r.name] = names
    return direct


def resting(
    records: Iterable[ProofRecord], direct: dict[str, tuple[str, ...]] | None = None
) -> dict[str, tuple[str, ...]]:
    """name -> the unproved declarations its proof rests on (sorted), for every
    declaration that rests on at least one; an unproved declaration rests on those its
    own proof uses besides itself. `direct`: `direct_uses(records)`, when known."""
    by_name = {r.name: r for r in records}
    if direct is None:
        direct = direct_uses(by_name.values())
    reach = _unproved_reach(by_name, direct)
    out: dict[str, tuple[str, ...]] = {}
    for name in direct:
        reached = reach[name] - {name}
        if reached:
            out[name] = tuple(sorted(reached))
    return out


def _unproved_reach(
    by_name: dict[str, ProofRecord], direct: dict[str, tuple[str, ...]]
) -> dict[str, frozenset[str]]:
    """name -> the unproved declarations reachable from its proof (its own name included
    when it is reached through a cycle). The declarations that use each other (a
    `mutual` block) reach the same set: the graph's strongly connected components are
    closed at once (Tarjan's algorithm, iteratively: proofs chain deeper than Python's
    recursion limit), each after every component it reaches."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    reach: dict[str, frozenset[str]] = {}
    counter = 0
    for root in direct:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, i = work[-1]
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            deps = direct.get(node, ())
            if i < len(deps):
                work[-1] = (node, i + 1)
                dep = deps[i]
                if dep not in index:
                    work.append((dep, 0))
                elif dep in on_stack:
                    low[node] = min(low[node], index[dep])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] != index[node]:
                continue
            members: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.append(member)
                if member == node:
                    break
            found: set[str] = set()
            for member in members:
                for dep in direct.get(member, ()):
                    if by_name[dep].proof == UNPROVED:
                        found.add(dep)
                    if dep in reach:  # a component closed before this one
                        found |= reach[dep]
            closed = frozenset(found)
            for member in members:
                reach[member] = closed
    return reach
