"""A module's dependency graph, laid out and drawn on the server as inline SVG, the way
leanblueprint draws a blueprint: theorems (filled by the status of their newest result) in
the first column, the definitions they use in the next, definitions used by definitions
further right; an arrow from each user to what it uses; every node a link to its page.

Why not Graphviz or pygal: the `dot` binary is not something the web process may assume
(it is not installed where the dashboard runs, and calling out to a binary per page view
adds a process and a failure mode), pygal draws charts, not graphs, and ships scripts and
style sheets that the dashboard's Content-Security-Policy refuses. The graphs here are
small, two or three layers wide, so a layered (Sugiyama-style) layout of a few dozen lines
does: layers by the longest path from the theorems, then a few sweeps that order each
layer by the barycentre of its neighbours' positions, which removes most crossings.
Colours are presentation attributes (no `style=`), and every text is escaped with
markupsafe, like the other charts of `app.dashboard.svg`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from app.dashboard.svg import STATUS_COLOURS

__all__ = ["MAX_NODES", "GraphEdge", "GraphNode", "draw_graph", "layers_of", "order_layers"]

MAX_NODES = 300
MAX_LAYERS = 8
SWEEPS = 4
LABEL_CHARS = 34
COLUMN_W, GAP_W, ROW_H, NODE_H, MARGIN = 250, 90, 30, 22, 10
NEVER_RUN_FILL = "#ffffff"
DEFINITION_FILL = "#e3f2fd"
DARK_TEXT = ("unchecked", None)


@dataclass(frozen=True)
class GraphNode:
    """A theorem (`status` its newest result's, `unchecked` when never run) or a definition
    (`status` None); `href` None when it has no page (a definition never ingested)."""

    name: str
    kind: str  # 'theorem' | 'definition'
    status: str | None
    href: str | None


@dataclass(frozen=True)
class GraphEdge:
    """`source` uses `target`."""

    source: str
    target: str


def layers_of(nodes: Sequence[GraphNode], edges: Sequence[GraphEdge]) -> list[list[str]]:
    """Theorems in layer 0; a definition one layer right of its rightmost user (the
    longest path from the theorems), at most MAX_LAYERS - 1, so a cycle cannot loop."""
    layer = {n.name: 0 for n in nodes}
    definitions = {n.name for n in nodes if n.kind != "theorem"}
    for name in definitions:
        layer[name] = 1
    for _ in range(MAX_LAYERS):
        changed = False
        for e in edges:
            if e.target in definitions and e.source in layer:
                want = min(layer[e.source] + 1, MAX_LAYERS - 1)
                if want > layer[e.target]:
                    layer[e.target] = want
                    changed = True
        if not changed:
            break
    out: list[list[str]] = [[] for _ in range(max(layer.values(), default=-1) + 1)]
    for n in sorted(nodes, key=lambda n: n.name):
        out[layer[n.name]].append(n.name)
    return [names for names in out if names]


def order_layers(layers: list[list[str]], edges: Sequence[GraphEdge]) -> list[list[str]]:
    """Each layer ordered by the barycentre of its neighbours' positions (as a fraction of
    their layer's height), sweeping right then left SWEEPS times; a node without a
    neighbour on the side swept from keeps its place."""
    neighbours: dict[str, set[str]] = {}
    for e in edges:
        neighbours.setdefault(e.source, set()).add(e.target)
        neighbours.setdefault(e.target, set()).add(e.source)
    layers = [list(names) for names in layers]
    where = {name: i for i, names in enumerate(layers) for name in names}

    def position() -> dict[str, float]:
        return {n: (j + 0.5) / len(names) for names in layers for j, n in enumerate(names)}

    for sweep in range(2 * SWEEPS):
        rightward = sweep % 2 == 0
        indices = range(1, len(layers)) if rightward else range(len(layers) - 2, -1, -1)
        for i in indices:
            pos = position()

            def centre(
                name: str, i: int = i, pos: dict[str, float] = pos, right: bool = rightward
            ) -> float:
                side = [
                    pos[m]
                    for m in neighbours.get(name, ())
                    if m in where and (where[m] < i if right else where[m] > i)
                ]
                return sum(side) / len(side) if side else pos[name]

            layers[i].sort(key=centre)  # stable: ties keep their order
    return layers


def _label(name: str) -> str:
    return name if len(name) <= LABEL_CHARS else "…" + name[-(LABEL_CHARS - 1) :]


def _node_svg(node: GraphNode, x: float, y: float) -> str:
    if node.kind == "theorem":
        status = node.status or "unchecked"
        fill = NEVER_RUN_FILL if status == "unchecked" else STATUS_COLOURS.get(status, "#000")
        text = "#212121" if status == "unchecked" else "#ffffff"
        rx, stroke, dash = NODE_H / 2, "#455a64", ""
        tip = f"theorem {node.name}: {'never run' if status == 'unchecked' else status}"
    else:
        fill, text, rx, stroke = DEFINITION_FILL, "#0d47a1", 0.0, "#1565c0"
        dash = "" if node.href else ' stroke-dasharray="3 2"'
        tip = f"definition {node.name}" + ("" if node.href else " (not ingested)")
    shape = (
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{COLUMN_W}" height="{NODE_H}" rx="{rx:.1f}" '
        f'fill="{fill}" stroke="{stroke}"{dash}/>'
        f'<text x="{x + COLUMN_W / 2:.1f}" y="{y + NODE_H / 2 + 4:.1f}" text-anchor="middle" '
        f'font-size="11" font-family="monospace" fill="{text}">{escape(_label(node.name))}</text>'
    )
    kind = "t" if node.kind == "theorem" else "d"
    body = f'<g class="node {kind}" data-name="{escape(node.name)}"><title>{escape(tip)}</title>'
    if node.href:
        return f'{body}<a href="{escape(node.href)}">{shape}</a></g>'
    return f"{body}{shape}</g>"


def draw_graph(
    nodes: Sequence[GraphNode],
    edges: Sequence[GraphEdge],
    layers: Sequence[Sequence[str]] | None = None,
) -> Markup:
    """The laid-out graph as an `<svg class="graph">`; nodes and edges named in titles.
    `layers`: the nodes' columns, left to right, when the caller decides them (else
    `layers_of`); each is ordered to remove crossings."""
    if not nodes:
        return Markup('<p class="muted">No theorems to draw.</p>')
    by_name = {n.name: n for n in nodes}
    edges = [e for e in edges if e.source in by_name and e.target in by_name]
    given = [list(names) for names in layers] if layers is not None else None
    layers = order_layers(given if given else layers_of(nodes, edges), edges)
    rows = max(len(names) for names in layers)
    width = 2 * MARGIN + len(layers) * COLUMN_W + (len(layers) - 1) * GAP_W
    height = 2 * MARGIN + rows * ROW_H
    at: dict[str, tuple[float, float]] = {}
    for i, names in enumerate(layers):
        top = MARGIN + (rows - len(names)) * ROW_H / 2
        for j, name in enumerate(names):
            at[name] = (MARGIN + i * (COLUMN_W + GAP_W), top + j * ROW_H + (ROW_H - NODE_H) / 2)
    out = [
        f'<svg class="graph" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="dependency graph: {len(nodes)} nodes, {len(edges)} edges">',
        '<defs><marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#78909c"/>'
        "</marker></defs>",
    ]
    for e in sorted(edges, key=lambda e: (e.source, e.target)):
        (sx, sy), (tx, ty) = at[e.source], at[e.target]
        x1, y1, x2, y2 = sx + COLUMN_W, sy + NODE_H / 2, tx, ty + NODE_H / 2
        bend = max(GAP_W / 2, abs(x2 - x1) / 3)
        out.append(
            f'<path class="edge" d="M{x1:.1f},{y1:.1f} C{x1 + bend:.1f},{y1:.1f} '
            f'{x2 - bend:.1f},{y2:.1f} {x2:.1f},{y2:.1f}" fill="none" stroke="#78909c" '
            f'marker-end="url(#arrow)"><title>{escape(e.source)} uses {escape(e.target)}'
            "</title></path>"
        )
    for n in nodes:
        out.append(_node_svg(n, *at[n.name]))
    out.append("</svg>")
    return Markup("".join(out))
