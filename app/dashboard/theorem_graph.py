"""One theorem's dependency graph (`/theorems/{name}/graph?depth=N`), as a blueprint draws
one, and more: what the theorem uses (its proof's lemmas and definitions, the definitions
its checker used) to the right, what uses it to the left, each `depth` steps away.

Each theorem is filled by the status of its newest result, and a passing theorem all of
whose dependencies hold (every theorem its proof uses, through other proofs, passes too)
in a colour of its own, `holds`: the numeric counterpart of a blueprint's "fully proved".
A failing theorem says how many theorems it blocks (those whose proofs use it, through
other proofs). The legend counts the drawn nodes by status.

Edges come from what ingestion keeps (`Declaration.proof_deps`: the names a proof mentions,
resolved) and what checks record (`dependencies`: the definitions a checker used).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup
from sqlalchemy import select
from sqlalchemy.orm import Session

from app import models
from app.api.deps import SessionDep
from app.crud.declarations import THEOREM_KINDS
from app.dashboard.errors import PageRoute
from app.dashboard.graph import MAX_NODES, GraphEdge, GraphNode, draw_graph
from app.dashboard.render import isolate, page, theorem_url

__all__ = ["HOLDS", "TheoremGraph", "router", "theorem_graph"]

router = APIRouter(include_in_schema=False, route_class=PageRoute)

HOLDS = "holds"  # passes, and so does every theorem its proof rests on
MAX_DEPTH = 6
FAILING = ("fail", "error")


@dataclass
class TheoremGraph:
    centre: str
    depth: int
    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)
    layers: list[list[str]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    blocks: int = 0  # theorems whose proofs use the centre, through other proofs
    truncated: bool = False


@dataclass
class _Decl:
    name: str
    kind: str
    status: str | None
    deps: tuple[str, ...]


def _declarations(session: Session) -> dict[str, _Decl]:
    d = models.Declaration
    stmt = select(d.name, d.kind, d.latest_status, d.proof_deps).where(d.removed.is_(False))
    return {
        name: _Decl(name, kind, status, tuple(deps or ()))
        for name, kind, status, deps in session.execute(stmt)
    }


def _checker_uses(session: Session, names: set[str], *, reverse: bool) -> dict[str, set[str]]:
    """name -> the definitions its checker used (or, reversed, the declarations that used
    it), for `names`."""
    d, dep = models.Declaration, models.Dependency
    out: dict[str, set[str]] = {}
    if not names:
        return out
    stmt = select(d.name, dep.depends_on).join(d, d.id == dep.declaration_id)
    key = dep.depends_on if reverse else d.name
    for user, used in session.execute(stmt.where(key.in_(sorted(names)))):
        if user != used:
            out.setdefault(used if reverse else user, set()).add(user if reverse else used)
    return out


def _holds(decls: dict[str, _Decl]) -> set[str]:
    """The passing theorems every theorem of whose proof passes, through other proofs
    (iterative: proofs chain deep); a cycle is no evidence, so it does not hold."""
    memo: dict[str, bool] = {}
    for start in decls:
        if start in memo:
            continue
        stack, on_path = [(start, 0)], {start}
        while stack:
            name, i = stack[-1]
            decl = decls[name]
            deps = [u for u in decl.deps if u in decls and decls[u].kind in THEOREM_KINDS]
            if decl.kind not in THEOREM_KINDS or decl.status != "pass":
                memo[name] = decl.kind not in THEOREM_KINDS
                stack.pop()
                on_path.discard(name)
                continue
            if i < len(deps):
                stack[-1] = (name, i + 1)
                dep = deps[i]
                if dep in on_path:
                    memo[name] = False
                elif dep not in memo:
                    on_path.add(dep)
                    stack.append((dep, 0))
                continue
            stack.pop()
            on_path.discard(name)
            memo[name] = memo.get(name, True) and all(memo.get(u, False) for u in deps)
    return {n for n, ok in memo.items() if ok and decls[n].kind in THEOREM_KINDS}


def _blocked(decls: dict[str, _Decl], name: str) -> int:
    """How many theorems use `name` in their proofs, directly or through other proofs."""
    users: dict[str, list[str]] = {}
    for decl in decls.values():
        for u in decl.deps:
            users.setdefault(u, []).append(decl.name)
    seen: set[str] = set()
    todo = [name]
    while todo:
        for user in users.get(todo.pop(), ()):
            if user not in seen and user != name:
                seen.add(user)
                todo.append(user)
    return sum(decls[n].kind in THEOREM_KINDS for n in seen)


def theorem_graph(
    session: Session, *, name: str, depth: int, limit: int = MAX_NODES
) -> TheoremGraph | None:
    """The graph around `name`, `depth` steps each way, at most `limit` nodes; None when
    there is no such live declaration."""
    decls = _declarations(session)
    if name not in decls:
        return None
    graph = TheoremGraph(centre=name, depth=depth)
    users: dict[str, set[str]] = {}
    for decl in decls.values():
        for u in decl.deps:
            users.setdefault(u, set()).add(decl.name)
    at = {name: 0}
    edges: set[tuple[str, str]] = set()
    for direction in (1, -1):  # what it uses, then what uses it
        frontier = {name}
        for step in range(1, depth + 1):
            checker = _checker_uses(session, frontier, reverse=direction < 0)
            following: set[str] = set()
            for node in sorted(frontier):
                if direction > 0:
                    near = set(decls[node].deps if node in decls else ()) | checker.get(node, set())
                else:
                    near = users.get(node, set()) | checker.get(node, set())
                for other in sorted(near):
                    if other not in at and len(at) >= limit:
                        graph.truncated = True
                        continue
                    edges.add((node, other) if direction > 0 else (other, node))
                    if other not in at:
                        at[other] = direction * step
                        following.add(other)
            frontier = following
    holds = _holds(decls)
    for node in sorted(at):
        found = decls.get(node)
        href = theorem_url(node) if found is not None else None
        if found is not None and found.kind in THEOREM_KINDS:
            status = HOLDS if node in holds else found.status or "unchecked"
            graph.nodes.append(GraphNode(node, "theorem", status, href))
        else:
            graph.nodes.append(GraphNode(node, "definition", None, href))
    graph.edges = [GraphEdge(a, b) for a, b in sorted(edges)]
    low = min(at.values())
    graph.layers = [[] for _ in range(max(at.values()) - low + 1)]
    for node in sorted(at):
        graph.layers[at[node] - low].append(node)
    graph.counts = dict(Counter(n.status or "definition" for n in graph.nodes))
    centre = decls[name]
    if centre.kind in THEOREM_KINDS and centre.status in FAILING:
        graph.blocks = _blocked(decls, name)
    return graph


Depth = Annotated[int, Query(ge=1, le=MAX_DEPTH, description="steps each way")]


# before `/theorems/{name:path}`, which would otherwise take `X/graph` for a theorem's name
@router.get("/theorems/{name:path}/graph", response_class=HTMLResponse)
def read_theorem_graph(
    request: Request, session: SessionDep, name: str, depth: Depth = 2
) -> HTMLResponse:
    graph = theorem_graph(session, name=name, depth=depth)
    if graph is None:
        return page(
            request,
            "message.html",
            {"title": "Not found", "message": Markup("There is no {}.").format(isolate(name))},
            status_code=404,
        )
    return page(
        request,
        "theorem_graph.html",
        {
            "graph": graph,
            "svg": draw_graph(graph.nodes, graph.edges, layers=graph.layers),
            "max_nodes": MAX_NODES,
            "max_depth": MAX_DEPTH,
            "legend": [HOLDS, "pass", "fail", "error", "unsupported", "unchecked", "definition"],
        },
    )
