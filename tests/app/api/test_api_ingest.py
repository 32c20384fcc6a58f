"""POST /ingest: multipart files or one .tar.gz, the ingestion report, size limits."""

from __future__ import annotations

import asyncio
import json
import tarfile
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

from api_support import (
    API,
    AUTH,
    SMALL_PAGE,
    example_files,
    ingest,
    make_settings,
    multipart,
    tar_gz,
)
from fastapi.testclient import TestClient

from app.main import create_app

EXAMPLES_REPORT = {
    "files": 4,
    "declarations": 29,
    "theorems": 21,
    "definitions": 8,
    "new": 29,
    "changed": 0,
    "unchanged": 0,
    "removed": 0,
    "parsed": 29,
    "module_docs": 3,
    "errors": [],
    "warnings": [],
}
GZIP = {"Content-Type": "application/gzip"} | AUTH


def test_ingest_multipart_files_reports_like_cli(client: TestClient) -> None:
    assert ingest(client, example_files()) == EXAMPLES_REPORT
    modules = {m["module"] for m in client.get(f"{API}/modules").json()["data"]}
    assert modules == {"Examples.Html", "Examples.Json", "Examples.Lean", "Examples.Text"}


def test_ingest_same_files_twice_creates_nothing_new(client: TestClient) -> None:
    ingest(client, example_files())
    again = ingest(client, example_files())
    assert (again["new"], again["changed"], again["unchanged"], again["removed"]) == (0, 0, 29, 0)
    assert client.get(f"{API}/declarations", params={"kind": "theorem"}).json()["count"] == 21


def test_ingest_one_file_reports_it(client: TestClient) -> None:
    report = ingest(client, [("Small.Page.txt", SMALL_PAGE.encode())])
    assert (report["files"], report["theorems"], report["definitions"]) == (1, 3, 1)
    assert report["errors"] == []


def test_ingest_tar_gz_body_reads_it_like_a_folder(client: TestClient) -> None:
    archive = tar_gz(dict(example_files()))
    response = client.post(f"{API}/ingest", content=archive, headers=GZIP)
    assert response.status_code == 200, response.text
    assert response.json() == EXAMPLES_REPORT
    lean = client.get(f"{API}/declarations", params={"module": "Examples.Lean"}).json()
    # lean/ holds lean-toolchain, so the module is named below it: 11 declarations, 1 doc
    assert lean["count"] == 12
    assert {d["module"] for d in lean["data"]} == {"Examples.Lean"}


def test_ingest_tar_gz_part_of_multipart_upload(client: TestClient) -> None:
    archive = tar_gz({"pages/Small.Page.txt": SMALL_PAGE.encode()})
    report = ingest(client, [("pages.tar.gz", archive)])
    assert (report["files"], report["declarations"], report["new"]) == (1, 4, 4)


def test_ingest_keeps_good_files_beside_bad_ones(client: TestClient) -> None:
    files = [("blob.bin", b"\x00\x01\x02\xff" * 10), ("Small.Page.txt", SMALL_PAGE.encode())]
    report = ingest(client, files)
    assert report["declarations"] == 4
    assert report["errors"] == [
        {
            "file": "blob.bin",
            "line": None,
            "column": None,
            "message": "binary file: not a text, HTML, JSON or Lean document",
        }
    ]


def test_ingest_refuses_unsafe_archive_member(client: TestClient) -> None:
    evil = tarfile.TarInfo("../escape.txt")
    evil.size = 0
    archive = tar_gz({}, extra=[evil])
    response = client.post(f"{API}/ingest", content=archive, headers=GZIP)
    assert response.status_code == 422
    body = response.json()
    assert body["detail"] == (
        "nothing could be ingested: upload.tar.gz: unsafe path in archive: ../escape.txt"
    )
    assert body["errors"] == [
        {
            "file": "upload.tar.gz",
            "line": None,
            "column": None,
            "message": "unsafe path in archive: ../escape.txt",
        }
    ]
    assert body["declarations"] == 0


def test_ingest_reports_unsafe_file_name(client: TestClient) -> None:
    files = [("../up.txt", SMALL_PAGE.encode()), ("Small.Page.txt", SMALL_PAGE.encode())]
    report = ingest(client, files)
    assert report["declarations"] == 4
    assert report["errors"] == [
        {
            "file": "../up.txt",
            "line": None,
            "column": None,
            "message": "unsafe file name in upload: '../up.txt' (expected a relative path)",
        }
    ]


def test_ingest_answers_422_when_nothing_could_be_ingested(client: TestClient) -> None:
    response = client.post(
        f"{API}/ingest", files=multipart([("Cut.html", b"<html><body><p>hi")]), headers=AUTH
    )
    assert response.status_code == 422
    body = response.json()
    message = "truncated HTML: the file ends at line 1, column 18 before </html>"
    assert body["detail"] == f"nothing could be ingested: Cut.html:1:18: {message}"
    assert body["errors"] == [{"file": "Cut.html", "line": 1, "column": 18, "message": message}]
    assert (body["files"], body["declarations"], body["new"]) == (1, 0, 0)


def test_ingest_reports_parse_error_with_line_and_column(client: TestClient) -> None:
    page = b"theorem Cut.half (x : \xe2\x84\x9d) : x = \n"
    report = ingest(client, [("Cut.txt", page)])
    assert report["declarations"] == 1
    assert report["errors"] == [
        {
            "file": "Cut.txt",
            "line": 1,
            "column": 31,
            "message": "cannot parse the statement of Cut.half: expected term, found end of "
            "input (line 1, column 4 of the statement)",
        }
    ]
    theorem = client.get(f"{API}/theorems/Cut.half").json()
    assert theorem["parsed"] is not None or theorem["parse_error"] is not None
    assert theorem["parse_error"]["line"] == 1
    assert theorem["parse_error"]["column"] == 4


def test_ingest_reports_file_over_per_file_limit(database_url: str, tmp_path: Path) -> None:
    settings = make_settings(database_url, tmp_path / "var", max_file_bytes=100)
    with TestClient(create_app(settings)) as client:
        files = [("Big.txt", b"x" * 101), ("Small.Page.txt", SMALL_PAGE.encode()[:100])]
        response = client.post(f"{API}/ingest", files=multipart(files), headers=AUTH)
    assert response.json()["errors"][0] == {
        "file": "Big.txt",
        "line": None,
        "column": None,
        "message": "file too large: 101 bytes (limit 100)",
    }


def test_refuse_body_over_limit_from_content_length(database_url: str, tmp_path: Path) -> None:
    settings = make_settings(database_url, tmp_path / "var", max_upload_bytes=1000)
    with TestClient(create_app(settings)) as client:
        response = client.post(f"{API}/ingest", content=b"\x1f\x8b" + b"x" * 1998, headers=GZIP)
    assert response.status_code == 413
    assert response.json() == {
        "detail": "request body too large: 2000 bytes "
        "(limit 1000 bytes, PROOFBRIDGE_MAX_UPLOAD_BYTES)"
    }


def test_refuse_body_over_limit_while_streaming(database_url: str, tmp_path: Path) -> None:
    settings = make_settings(database_url, tmp_path / "var", max_upload_bytes=1000)

    def chunks() -> Iterator[bytes]:  # no Content-Length: the body is counted as it arrives
        for _ in range(100):
            yield b"y" * 300

    with TestClient(create_app(settings)) as client:
        response = client.post(f"{API}/ingest", content=chunks(), headers=GZIP)
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert response.json() == {
        "detail": "request body too large: more than 1000 bytes "
        "(limit 1000 bytes, PROOFBRIDGE_MAX_UPLOAD_BYTES)"
    }


def test_stop_reading_body_once_past_limit(database_url: str, tmp_path: Path) -> None:
    settings = make_settings(database_url, tmp_path / "var", max_upload_bytes=1000)
    app = create_app(settings)
    received: list[int] = []
    sent: list[dict[str, Any]] = []
    headers = [(k.lower().encode(), v.encode()) for k, v in GZIP.items()]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": f"{API}/ingest",
        "raw_path": f"{API}/ingest".encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("testserver", 80),
    }

    async def receive() -> dict[str, Any]:
        received.append(300)
        return {"type": "http.request", "body": b"z" * 300, "more_body": len(received) < 100}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))

    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 413
    assert len(received) == 4  # 1200 bytes: the read that crossed 1000 was the last
    assert json.loads(sent[1]["body"])["detail"].startswith("request body too large")


def test_refuse_multipart_over_limit(database_url: str, tmp_path: Path) -> None:
    settings = make_settings(database_url, tmp_path / "var", max_upload_bytes=1000)
    with TestClient(create_app(settings)) as client:
        files = multipart([("Small.Page.txt", SMALL_PAGE.encode() * 3)])
        response = client.post(f"{API}/ingest", files=files, headers=AUTH)
        assert client.get(f"{API}/declarations").json()["count"] == 0
    assert response.status_code == 413
    assert response.json()["detail"].endswith("(limit 1000 bytes, PROOFBRIDGE_MAX_UPLOAD_BYTES)")


def test_refuse_upload_of_unsupported_media_type(client: TestClient) -> None:
    response = client.post(
        f"{API}/ingest", content=b"{}", headers={"Content-Type": "application/json"} | AUTH
    )
    assert response.status_code == 415
    assert response.json() == {
        "detail": "unsupported Content-Type application/json: expected multipart/form-data "
        "or application/gzip (a .tar.gz)"
    }


def test_refuse_upload_without_files(client: TestClient) -> None:
    no_files = (
        "no files in the upload: send documents as multipart/form-data file parts "
        "(any field name, e.g. `files`), or one .tar.gz as the request body"
    )
    body = b'--XyZ\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--XyZ--\r\n'
    fields_only = client.post(
        f"{API}/ingest",
        content=body,
        headers={"Content-Type": "multipart/form-data; boundary=XyZ"} | AUTH,
    )
    empty = client.post(f"{API}/ingest", content=b"", headers=GZIP)
    assert (fields_only.status_code, fields_only.json()) == (422, {"detail": no_files})
    assert (empty.status_code, empty.json()) == (422, {"detail": no_files})


def test_ingest_records_commit(client: TestClient) -> None:
    response = client.post(
        f"{API}/ingest",
        params={"commit": "ABCDEF12"},
        files=multipart([("Small.Page.txt", SMALL_PAGE.encode())]),
        headers=AUTH,
    )
    assert response.status_code == 200
    theorem = client.get(f"{API}/theorems/Small.div_zero").json()
    assert theorem["commit"] == "abcdef12"
    bad = client.post(
        f"{API}/ingest",
        params={"commit": "not-a-sha"},
        files=multipart([("Small.Page.txt", SMALL_PAGE.encode())]),
        headers=AUTH,
    )
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"] == ["query", "commit"]
