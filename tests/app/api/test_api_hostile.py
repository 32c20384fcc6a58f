"""The hostile-input corpus (`hostile_corpus.py`) through the HTTP API and the dashboard,
on SQLite and PostgreSQL: no 500, the good declaration kept and reachable, every error
naming the file, every JSON answer and HTML page well-formed. Then the other uploads that
answered 500 or stored what they should not: a kind or a source line beyond the database's
columns, and the same page under two names."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest
from api_support import API, AUTH, TOKEN, multipart
from fastapi.testclient import TestClient
from hostile_corpus import CASES, Case
from lxml import etree

# the dashboard's pages must parse as HTML without the parser's error recovery
STRICT_HTML = etree.HTMLParser(recover=False)
LENIENT_HTML = etree.HTMLParser()


def _json(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text[:500]
    assert response.headers["content-type"].startswith("application/json")
    return json.loads(response.text)


def _page(response: Any, parser: etree.HTMLParser = STRICT_HTML) -> etree._Element:
    assert response.status_code == 200, response.text[:500]
    assert response.headers["content-type"].startswith("text/html")
    return etree.fromstring(response.content, parser)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_ingest_hostile_input_keeps_the_good_declaration_and_answers_well_formed(
    client: TestClient, case: Case
) -> None:
    report = _json(
        client.post(f"{API}/ingest", files=multipart([(case.file, case.data)]), headers=AUTH)
    )
    assert report["files"] == 1
    assert report["theorems"] == len(case.kept)
    for problem in [*report["errors"], *report["warnings"]]:
        assert problem["file"] == case.file, problem
    if len(case.kept) == 1:
        assert report["errors"], "the refused declaration is not reported"
    listed = _json(client.get(f"{API}/theorems", params={"limit": 1000}))
    names = [t["name"] for t in listed["data"]]
    assert sorted(names) == sorted(case.kept)
    assert listed["count"] == len(names)

    login = client.get(f"/login?token={TOKEN}", follow_redirects=False)
    assert login.status_code == 303, login.text
    page = _page(client.get("/theorems"))
    shown = "".join(page.itertext())
    assert case.good in shown
    for name in names:
        detail = _json(client.get(f"{API}/theorems/{quote(name, safe='')}"))
        assert detail["name"] == name
        results = _json(client.get(f"{API}/theorems/{quote(name, safe='')}/results"))
        assert results == {"data": [], "count": 0}
        theorem_page = _page(client.get(f"/theorems/{quote(name, safe='')}"), LENIENT_HTML)
        assert name in "".join(theorem_page.itertext())


def test_theorem_pages_of_the_hostile_corpus_parse_without_error_recovery(
    client: TestClient,
) -> None:
    files = [(case.file, case.data) for case in CASES]
    _json(client.post(f"{API}/ingest", files=multipart(files), headers=AUTH))
    login = client.get(f"/login?token={TOKEN}", follow_redirects=False)
    assert login.status_code == 303, login.text
    listed = _json(client.get(f"{API}/theorems", params={"limit": 1000}))
    assert listed["count"] == sum(len(case.kept) for case in CASES)
    for theorem in listed["data"]:
        _page(client.get(f"/theorems/{quote(theorem['name'], safe='')}"))


def test_ingest_kind_longer_than_the_database_column_is_an_error_not_a_500(
    client: TestClient,
) -> None:
    header = (
        '<div class="decl_header"><span class="decl_kind">theorem</span>'
        '<span class="decl_name">{}</span><span class="decl_args"> :</span>'
        '<div class="decl_type">1 = 1</div></div>'
    )
    data = json.dumps(
        {
            "name": "K",
            "declarations": [
                {"info": {"name": n, "kind": k}, "header": header.format(n)}
                for n, k in (("K.odd", "k" * 100), ("K.good", "theorem"))
            ],
        }
    )
    file = "declaration-data-K.bmp"
    report = _json(
        client.post(f"{API}/ingest", files=multipart([(file, data.encode())]), headers=AUTH)
    )
    assert (report["theorems"], [e["file"] for e in report["errors"]]) == (1, [file])
    assert report["errors"][0]["message"].startswith("declaration K.odd is not stored: its kind")
    assert _json(client.get(f"{API}/theorems/K.good"))["kind"] == "theorem"


def test_ingest_source_line_beyond_the_database_integers_is_an_error_not_a_500(
    client: TestClient,
) -> None:
    header = (
        '<div class="decl_header"><span class="decl_kind">theorem</span>'
        '<span class="decl_name">K.far</span><span class="decl_args"> :</span>'
        '<div class="decl_type">1 = 1</div></div>'
    )
    link = "https://e.org/K.lean#L99999999999-L99999999999"
    info = {"name": "K.far", "kind": "theorem", "line": 99999999999, "sourceLink": link}
    data = json.dumps({"name": "K", "declarations": [{"info": info, "header": header}]})
    file = "declaration-data-K.bmp"
    report = _json(
        client.post(f"{API}/ingest", files=multipart([(file, data.encode())]), headers=AUTH)
    )
    assert (report["theorems"], [e["file"] for e in report["errors"]]) == (1, [file])
    detail = _json(client.get(f"{API}/theorems/K.far"))
    assert (detail["name"], detail["location"]["line_start"]) == ("K.far", None)


def test_ingest_same_page_under_two_names_lists_its_module_doc_once(client: TestClient) -> None:
    page = (
        "Same page #\nmodule: Pages.Same\n\nProse about the module.\n\n"
        "theorem Pages.Same.t (x : ℝ) : x + 0 = x\n"
    ).encode()
    report = _json(
        client.post(
            f"{API}/ingest", files=multipart([("a.txt", page), ("b.txt", page)]), headers=AUTH
        )
    )
    assert (report["module_docs"], report["errors"]) == (1, [])
    assert [w["file"] for w in report["warnings"]] == ["b.txt", "b.txt"]
    docs = _json(client.get(f"{API}/declarations", params={"kind": "module_doc"}))
    assert (docs["count"], [d["module"] for d in docs["data"]]) == (1, ["Pages.Same"])
    modules = _json(client.get(f"{API}/modules"))["data"]
    assert [(m["module"], m["module_docs"]) for m in modules] == [("Pages.Same", 1)]
