"""A module's dependency graph (`/modules/{module}/graph`) and its layered layout."""

from __future__ import annotations

import functools
import re

import pytest
from dashboard_support import add_run, ingest
from db_support import declaration, definition, theorem
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app import models
from app.dashboard import data
from app.dashboard.graph import GraphEdge, GraphNode, layers_of, order_layers
from app.dashboard.svg import STATUS_COLOURS

EVIL = "G.<script>window.__xss=1</script>"


def _seed_graph(db: Session) -> None:
    """G.one passes and G.two fails, both using G.sq; EVIL (never run) uses Ext.missing."""
    ingest(
        db,
        [
            theorem("G.one", "sq x = x * x", binders="(x : ℝ)", module="G"),
            theorem("G.two", "sq 2 = 4", binders="", module="G"),
            theorem(EVIL, "x = x", binders="(x : ℝ)", module="G"),
            definition("G.sq", "x * x", module="G"),
        ],
        module="G",
        file="G.lean",
    )
    add_run(db, {"G.one": {"status": "pass"}, "G.two": {"status": "fail"}}, status="failed")
    sq = declaration(db, "G.sq")
    for name, uses in (("G.one", "G.sq"), ("G.two", "G.sq"), (EVIL, "Ext.<b>missing")):
        db.add(
            models.Dependency(
                declaration_id=declaration(db, name).id,
                depends_on=uses,
                revision_hash=sq.content_hash if uses == "G.sq" else None,
            )
        )
    db.commit()


def _nodes(svg: str) -> dict[str, str]:
    """data-name -> the node's class ('t' theorem, 'd' definition)."""
    return {
        name: kind for kind, name in re.findall(r'<g class="node (\w)" data-name="([^"]*)"', svg)
    }


def test_read_module_graph_draws_theorems_definitions_and_edges(
    client: TestClient, db: Session
) -> None:
    _seed_graph(db)
    response = client.get("/modules/G/graph")
    assert response.status_code == 200
    html = response.text
    svg = html[html.index('<svg class="graph"') : html.index("</svg>", html.index('class="graph"'))]
    evil = "G.&lt;script&gt;window.__xss=1&lt;/script&gt;"
    assert _nodes(svg) == {
        "G.one": "t",
        "G.two": "t",
        evil: "t",
        "G.sq": "d",
        "Ext.&lt;b&gt;missing": "d",
    }
    edges = re.findall(r'<path class="edge"[^>]*><title>(.*?) uses (.*?)</title>', svg)
    assert set(edges) == {("G.one", "G.sq"), ("G.two", "G.sq"), (evil, "Ext.&lt;b&gt;missing")}
    assert len(edges) == 3

    # theorems by status: pass green, fail red, never run white
    def fill(name: str) -> str:
        node = svg[svg.index(f'data-name="{name}"') :]
        return re.search(r'fill="(#[0-9a-f]+)"', node).group(1)  # type: ignore[union-attr]

    assert fill("G.one") == STATUS_COLOURS["pass"]
    assert fill("G.two") == STATUS_COLOURS["fail"]
    assert fill(evil) == "#ffffff"
    # links: theorems and ingested definitions to their pages; a missing one not linked
    assert '<a href="/theorems/G.one">' in svg and '<a href="/theorems/G.sq">' in svg
    assert "missing (not ingested)</title><rect" in svg
    assert "/theorems/G.%3Cscript%3Ewindow.__xss%3D1%3C%2Fscript%3E" in svg
    # every name escaped: no markup of a name survives, in the drawing or the list
    assert "<script>" not in html and "<b>" not in html
    assert "truncated" not in html
    # the module page links here
    assert 'id="graph-link" href="/modules/G/graph"' in client.get("/modules/G").text


def test_read_module_graph_caps_the_drawing_and_says_so(
    client: TestClient, db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    _seed_graph(db)
    graph = data.module_graph(db, module="G", limit=3)
    # by name EVIL comes first ('<' before 'o'); G.one and its G.sq would make four
    assert (graph.truncated, graph.theorems, graph.shown) == (True, 3, 1)
    assert [n.name for n in graph.nodes] == [EVIL, "Ext.<b>missing"]
    monkeypatch.setattr(data, "module_graph", functools.partial(data.module_graph, limit=3))
    text = client.get("/modules/G/graph").text
    assert "it shows 1 of the module's 3 theorems" in text


def test_read_module_graph_of_an_unknown_module_is_404(client: TestClient) -> None:
    response = client.get("/modules/Nope/graph")
    assert response.status_code == 404
    assert "There is no module <bdi>Nope</bdi>." in response.text


def test_order_layers_by_barycentre_removes_a_crossing() -> None:
    nodes = [GraphNode(n, "theorem", "pass", None) for n in ("A", "B")] + [
        GraphNode(n, "definition", None, None) for n in ("X", "Y", "Z")
    ]
    edges = [GraphEdge("A", "Y"), GraphEdge("B", "X"), GraphEdge("Y", "Z")]
    layers = layers_of(nodes, edges)
    assert layers == [["A", "B"], ["X", "Y"], ["Z"]]
    assert order_layers(layers, edges)[:2] == [["A", "B"], ["Y", "X"]]


def test_module_graph_follows_definitions_used_by_definitions(db: Session) -> None:
    _seed_graph(db)
    db.add(models.Dependency(declaration_id=declaration(db, "G.sq").id, depends_on="Ext.mul"))
    db.commit()
    graph = data.module_graph(db, module="G")
    assert GraphEdge("G.sq", "Ext.mul") in graph.edges
    assert layers_of(graph.nodes, graph.edges)[2] == ["Ext.mul"]
    assert {n.name: n.href for n in graph.nodes if n.kind == "definition"} == {
        "Ext.<b>missing": None,
        "Ext.mul": None,
        "G.sq": "/theorems/G.sq",
    }
