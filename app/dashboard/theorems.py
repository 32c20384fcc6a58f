"""Theorems: the search and filter list (`/theorems`), one theorem (`/theorems/{name}`),
one module (`/modules/{module}`) and its dependency graph (`/modules/{module}/graph`).

Lists are read a page at a time with `crud.list_theorems` (limit/offset). A theorem's
checker is shown as the API gives it: the live description when this process has already
loaded the checkers (a run it executed did), else as the newest result recorded it, so
that rendering a page never imports JAX.
"""

from __future__ import annotations

import logging
import sys
from pathlib import PurePath
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from app import crud, schemas
from app.api.deps import SessionDep
from app.crud.declarations import THEOREM_KINDS
from app.dashboard import data
from app.dashboard.errors import PageRoute
from app.dashboard.graph import MAX_NODES, draw_graph
from app.dashboard.paging import MAX_PAGE, PAGE_SIZE, Pager
from app.dashboard.render import isolate, page
from app.dashboard.svg import STATUS_ORDER, HistoryPoint, history_chart, status_bar, strip_chart
from app.services.ci import junit
from app.services.reading import queries, views
from theorem_index.model import PROOF_STATES

__all__ = ["checkers_loaded", "not_found", "repro_command", "router", "shown_source"]

router = APIRouter(include_in_schema=False, route_class=PageRoute)
log = logging.getLogger("proofbridge.dashboard")

StatusFilter = Literal["", "pass", "fail", "error", "unsupported", "unchecked"]
ProofFilter = Literal["", "proved", "unproved", "unknown"]
PageNumber = Annotated[int, Query(alias="page", ge=1, le=MAX_PAGE)]
Text = Annotated[str, Query(max_length=1024, pattern=r"^[^\x00]*$")]
HISTORY = 50


def not_found(request: Request, message: str | Markup) -> HTMLResponse:
    return page(
        request, "message.html", {"title": "Not found", "message": message}, status_code=404
    )


def _flaky_names(session: Any, rows: list[Any]) -> set[str]:
    """The names of the listed theorems that are flaky (one query for the page)."""
    flaky = crud.flaky_theorems(session, declaration_ids=[decl.id for decl, _, _ in rows])
    return {decl.name for decl, _, _ in rows if decl.id in flaky}


@router.get("/theorems", response_class=HTMLResponse)
def read_theorems(
    request: Request,
    session: SessionDep,
    q: Text = "",
    module: Text = "",
    status: StatusFilter = "",
    proof: ProofFilter = "",
    page_: PageNumber = 1,
) -> HTMLResponse:
    pager = Pager(page=page_)
    rows, count = crud.list_theorems(
        session,
        status=status or None,
        module=module or None,
        q=q or None,
        proof=proof or None,
        limit=pager.size,
        offset=pager.offset,
    )
    return page(
        request,
        "theorems.html",
        {
            "rows": [views.theorem_summary(d, r, res) for d, r, res in rows],
            "flaky": _flaky_names(session, rows),
            "pager": pager.counted(count),
            "q": q,
            "module": module,
            "status": status,
            "statuses": STATUS_ORDER,
            "proof": proof,
            "proofs": PROOF_STATES,
            "modules": data.module_names(session),
        },
    )


# before `/modules/{module:path}`, which would otherwise take `X/graph` for a module name
@router.get("/modules/{module:path}/graph", response_class=HTMLResponse)
def read_module_graph(request: Request, session: SessionDep, module: str) -> HTMLResponse:
    graph = data.module_graph(session, module=module)
    if not graph.theorems and not crud.list_module_docs(session, module=module):
        return not_found(request, Markup("There is no module {}.").format(isolate(module)))
    uses: dict[str, list[str]] = {}
    for edge in graph.edges:
        uses.setdefault(edge.source, []).append(edge.target)
    return page(
        request,
        "graph.html",
        {
            "module": module,
            "graph": graph,
            "uses": uses,
            "svg": draw_graph(graph.nodes, graph.edges),
            "max_nodes": MAX_NODES,
        },
    )


@router.get("/modules/{module:path}", response_class=HTMLResponse)
def read_module(
    request: Request, session: SessionDep, module: str, page_: PageNumber = 1
) -> HTMLResponse:
    pager = Pager(page=page_)
    rows, count = crud.list_theorems(session, module=module, limit=pager.size, offset=pager.offset)
    docs = crud.list_module_docs(session, module=module)
    summary = next((m for m in crud.module_summaries(session) if m["module"] == module), None)
    if summary is None and not docs:
        return not_found(request, Markup("There is no module {}.").format(isolate(module)))
    statuses = summary["statuses"] if summary else {}
    formats = data.source_formats(session, ids={doc.source_id for doc in docs})
    return page(
        request,
        "module.html",
        {
            "module": module,
            "rows": [views.theorem_summary(d, r, res) for d, r, res in rows],
            "flaky": _flaky_names(session, rows),
            "pager": pager.counted(count),
            "docs": [(doc.text, formats.get(doc.source_id)) for doc in docs],
            "counts": statuses,
            "statuses": STATUS_ORDER,
            "bar": status_bar(statuses, width=480, height=20),
        },
    )


def checkers_loaded() -> bool:
    """Whether this process has imported the checkers (and JAX) already."""
    return "checkers" in sys.modules


def _live_checker(request: Request, session: Any, name: str) -> dict[str, Any] | None:
    """The checker's live description, only where the checkers are loaded already."""
    if not checkers_loaded():
        return None
    try:
        return dict(request.app.state.describer.describe(session, name=name))
    except Exception as exc:  # shown as recorded instead
        log.warning("describing the checker of %s failed: %s", name, exc)
        return None


def repro_command(result: schemas.ResultOut) -> str:
    return junit.repro_command(result.name, result.seed, result.dtype)


def shown_source(file: str | None, module: str) -> str | None:
    """Where a declaration was read from, without the server's own folders: a relative path
    as it was given (an upload's name, a path relative to where `ingest` ran); of an
    absolute one, the part from the module's own folders on (`Examples/Lean.lean` of
    `/srv/src/Examples/Lean.lean`, module `Examples.Lean`), else the file's name."""
    if not file:
        return None
    path = PurePath(file)
    if not path.is_absolute():
        return file
    names = module.split(".")
    tail = path.parts[-len(names) :]
    if len(path.parts) > len(names) and [*tail[:-1], PurePath(tail[-1]).stem] == names:
        return "/".join(tail)
    return path.name


def _by_dtype(results: list[schemas.ResultOut]) -> list[schemas.ResultOut]:
    """The newest result of each dtype (results come newest first)."""
    seen: dict[str, schemas.ResultOut] = {}
    for result in results:
        seen.setdefault(result.dtype, result)
    return list(seen.values())


@router.get("/theorems/{name:path}", response_class=HTMLResponse)
def read_theorem(request: Request, session: SessionDep, name: str) -> HTMLResponse:
    decl = crud.get_declaration(session, name=name)
    if decl is None:
        return not_found(request, Markup("There is no declaration named {}.").format(isolate(name)))
    checker = _live_checker(request, session, name) if decl.kind in THEOREM_KINDS else None
    detail = views.theorem_detail(session, name=name, checker=checker, results_limit=HISTORY)
    if detail is None:
        return not_found(request, Markup("There is no declaration named {}.").format(isolate(name)))
    known = queries.declaration_modules(session, names=detail.checker.dependencies)
    newest = detail.results[0] if detail.results else None
    failure = next((r for r in detail.results[:1] if r.status == "fail"), None)
    samples, results = data.error_samples(session, declaration_id=decl.id)
    history = [
        HistoryPoint(r.run_id, r.max_rel_err, r.rtol, r.status, r.dtype)
        for r in reversed(detail.results)
    ]
    return page(
        request,
        "theorem.html",
        {
            "t": detail,
            "source": shown_source(detail.location.file, detail.module),
            "doc_format": data.source_formats(session, ids={decl.source_id}).get(
                decl.source_id or 0
            ),
            "is_theorem": decl.kind in THEOREM_KINDS,
            "dependencies": [(dep, dep in known) for dep in detail.checker.dependencies],
            "by_dtype": _by_dtype(detail.results),
            "newest": newest,
            "flaky": crud.flaky_seeds(session, declaration_id=decl.id)
            if decl.kind in THEOREM_KINDS
            else None,
            "failure": failure,
            "repro": repro_command(failure) if failure is not None else "",
            "chart": history_chart(history),
            "distribution": strip_chart(samples),
            "samples": len(samples),
            "results": results,
            "page_size": PAGE_SIZE,
        },
    )
