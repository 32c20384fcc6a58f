"""What the OpenAPI document promises, and that the API keeps to it: bounds, enums, the
status codes of each operation, and validation errors in the documented shape."""

from __future__ import annotations

from typing import Any

import pytest
from api_support import API, AUTH, DIMS_PAGE, ingest, ingest_small_page
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.api.params import DECLARATION_KINDS, MAX_OFFSET
from app.main import create_app
from theorem_index.model import DECL_KINDS

JSON = {"Content-Type": "application/json"} | AUTH


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    return create_app().openapi()


def _parameter(openapi: dict[str, Any], path: str, name: str) -> dict[str, Any]:
    [param] = [p for p in openapi["paths"][API + path]["get"]["parameters"] if p["name"] == name]
    return dict(param["schema"])


def _branch(schema: dict[str, Any]) -> dict[str, Any]:
    """The non-null branch of an optional parameter's schema."""
    branches = [s for s in schema.get("anyOf", [schema]) if s.get("type") != "null"]
    return dict(branches[0])


def test_openapi_bounds_offsets_limits_and_texts(openapi: dict[str, Any]) -> None:
    for path in ("/theorems", "/declarations", "/theorems/{name}/results"):
        assert _parameter(openapi, path, "offset")["maximum"] == MAX_OFFSET
        assert _parameter(openapi, path, "limit")["maximum"] == 1000
    for path in ("/theorems", "/declarations"):
        for name in ("q", "module"):
            text = _branch(_parameter(openapi, path, name))
            assert (text["maxLength"], text["pattern"]) == (1024, "^[^\\x00]*$")
    name = _parameter(openapi, "/theorems/{name}", "name")
    assert (name["minLength"], name["maxLength"]) == (1, 1024)
    assert _parameter(openapi, "/runs/{run_id}", "run_id")["maximum"] == 2**31 - 1


def test_openapi_declaration_kinds_are_theorem_index_kinds(openapi: dict[str, Any]) -> None:
    kind = _branch(_parameter(openapi, "/declarations", "kind"))
    assert kind["enum"] == list(DECLARATION_KINDS)
    assert set(DECLARATION_KINDS) == set(DECL_KINDS) | {"prose", "module_doc"}
    status = _branch(_parameter(openapi, "/theorems", "status"))
    assert status["enum"] == ["pass", "fail", "error", "unsupported", "unchecked"]


def test_openapi_run_request_is_bounded(openapi: dict[str, Any]) -> None:
    fields = openapi["components"]["schemas"]["RunCreate"]["properties"]
    assert (fields["trials"]["minimum"], fields["trials"]["maximum"]) == (1, 100_000)
    assert fields["seed"]["maximum"] == 2**53 - 1
    assert fields["dtype"]["enum"] == ["float64", "float32", "bfloat16"]
    dims = _branch(fields["dims"])
    assert dims["additionalProperties"] == {"type": "integer", "minimum": 1, "maximum": 1024}
    assert dims["propertyNames"]["pattern"] == "^[^\\x00-\\x20\\x7f=,:]+$"
    assert fields["changed_only"]["type"] == "boolean"


def test_openapi_documents_each_status_code(openapi: dict[str, Any]) -> None:
    codes = {
        (method.upper(), path.removeprefix(API)): sorted(op["responses"])
        for path, ops in openapi["paths"].items()
        for method, op in ops.items()
    }
    assert codes == {
        ("GET", "/theorems"): ["200", "422", "503"],
        ("GET", "/theorems/{name}"): ["200", "404", "422", "503"],
        ("GET", "/theorems/{name}/results"): ["200", "404", "422", "503"],
        ("GET", "/declarations"): ["200", "422", "503"],
        ("GET", "/modules"): ["200", "503"],
        ("GET", "/coverage"): ["200", "422", "503"],
        ("POST", "/ingest"): ["200", "401", "413", "415", "422", "503"],
        ("GET", "/runs"): ["200", "422", "503"],
        ("POST", "/runs"): ["200", "202", "401", "409", "413", "422", "503"],
        ("POST", "/runs/{run_id}/cancel"): ["200", "401", "404", "409", "422", "503"],
        ("GET", "/runs/{run_id}"): ["200", "404", "422", "503"],
        ("GET", "/runs/{run_id}/results"): ["200", "404", "422", "503"],
        ("GET", "/runs/{run_id}/junit.xml"): ["200", "404", "409", "422", "503"],
        ("GET", "/runs/{run_id}/sarif"): ["200", "404", "409", "422", "503"],
        ("POST", "/webhooks/github"): ["200", "202", "401", "403", "413", "422", "503"],
        ("POST", "/webhooks/ci"): ["200", "202", "401", "409", "413", "422", "503"],
        ("GET", "/healthz"): ["200", "503"],
        ("GET", "/metrics"): ["200"],
    }
    error = {"$ref": "#/components/schemas/ErrorOut"}
    theorem = openapi["paths"][f"{API}/theorems/{{name}}"]["get"]["responses"]
    assert theorem["404"]["content"]["application/json"]["schema"] == error
    run = openapi["paths"][f"{API}/runs"]["post"]["responses"]
    assert run["401"]["content"]["application/json"]["schema"] == error
    assert run["422"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ValidationErrorOut"
    }


@pytest.mark.parametrize("path", ["/theorems", "/declarations", "/theorems/X.y/results"])
def test_refuse_offset_beyond_bound(client: TestClient, path: str) -> None:
    response = client.get(f"{API}{path}", params={"offset": 5878611999235459462408979287998726144})
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["query", "offset"]
    assert error["msg"] == f"Input should be less than or equal to {MAX_OFFSET}"
    assert client.get(f"{API}{path}", params={"offset": MAX_OFFSET}).status_code in (200, 404)


def test_refuse_run_id_beyond_bound(client: TestClient) -> None:
    response = client.get(f"{API}/runs/50704866570640754978777464832")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["path", "run_id"]


def test_refuse_unknown_declaration_kind(client: TestClient) -> None:
    response = client.get(f"{API}/declarations", params={"kind": "theorems"})
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert (error["loc"], error["type"]) == (["query", "kind"], "literal_error")
    assert "'theorem', 'lemma', 'def'" in error["msg"]


def test_read_declarations_of_each_kind_the_cli_prints(client: TestClient) -> None:
    ingest_small_page(client)
    for kind in DECLARATION_KINDS:
        response = client.get(f"{API}/declarations", params={"kind": kind})
        assert response.status_code == 200, (kind, response.text)
        assert {d["kind"] for d in response.json()["data"]} <= {kind}
    defs = client.get(f"{API}/declarations", params={"kind": "def"}).json()
    assert [d["name"] for d in defs["data"]] == ["Small.double"]


@pytest.mark.parametrize("text", ["a\x00b", "x" * 1025])
def test_refuse_search_text_with_nul_or_too_long(client: TestClient, text: str) -> None:
    for path in ("/theorems", "/declarations"):
        response = client.get(f"{API}{path}", params={"q": text})
        assert response.status_code == 422, path
        assert response.json()["detail"][0]["loc"] == ["query", "q"]


def test_refuse_theorem_name_with_nul(client: TestClient) -> None:
    response = client.get(f"{API}/theorems/a%00b")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["path", "name"]


def test_refuse_json_body_that_is_not_utf8(client: TestClient) -> None:
    response = client.post(f"{API}/runs", content=b'{"names":\n ["\xef\xbf"]}', headers=JSON)
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "json_invalid",
                "loc": ["body", 13],
                "msg": "malformed JSON: not utf-8 text (invalid continuation byte at byte 13) "
                "(at line 2, column 4)",
                "line": 2,
                "column": 4,
                "position": 13,
            }
        ]
    }


def test_refuse_json_body_nested_too_deeply(client: TestClient) -> None:
    response = client.post(f"{API}/runs", content=b"[" * 100_000, headers=JSON)
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["msg"] == "malformed JSON: nested too deeply (at line 1, column 1)"


@pytest.mark.parametrize(
    ("body", "loc", "msg"),
    [
        ({"changed_only": 0}, ["body", "changed_only"], "Input should be a valid boolean"),
        ({"trials": "64"}, ["body", "trials"], "Input should be a valid integer"),
        ({"trials": True}, ["body", "trials"], "Input should be a valid integer"),
        (
            {"seed": 2**53},
            ["body", "seed"],
            "Input should be less than or equal to 9007199254740991",
        ),
        (
            {"dims": {"N": 1025}},
            ["body", "dims", "N"],
            "Input should be less than or equal to 1024",
        ),
        ({"dims": {"a b": 2}}, ["body", "dims", "a b", "[key]"], None),
        ({"names": [""]}, ["body", "names", 0], "String should have at least 1 character"),
        ({"module": "M\x00"}, ["body", "module"], None),
    ],
)
def test_refuse_run_request_outside_schema(
    client: TestClient, body: dict[str, Any], loc: list[Any], msg: str | None
) -> None:
    response = client.post(f"{API}/runs", json=body, headers=AUTH)
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == loc
    if msg is not None:
        assert error["msg"] == msg


def test_refuse_run_name_that_is_not_unicode(client: TestClient) -> None:
    # A lone surrogate is valid JSON but not Unicode: refused, and echoed as U+FFFD.
    response = client.post(f"{API}/runs", content=b'{"names": ["a\\ud800"]}', headers=JSON)
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert (error["loc"], error["type"], error["input"]) == (
        ["body", "names", 0],
        "string_unicode",
        "a\ufffd",
    )


def test_create_run_accepts_integral_json_numbers(app: FastAPI) -> None:
    app.state.submit_run = lambda run_id: None
    with TestClient(app) as client:
        ingest(client, [("Dims.lean", DIMS_PAGE.encode())])
        body = {"names": ["Dims.sum_zero"], "trials": 8.0, "dims": {"n": 2.0}}
        response = client.post(f"{API}/runs", json=body, headers=AUTH)
    assert response.status_code == 202, response.text
    assert (response.json()["params"]["trials"], response.json()["params"]["dims"]) == (8, {"n": 2})


def test_refuse_malformed_multipart_upload(client: TestClient) -> None:
    response = client.post(
        f"{API}/ingest",
        content=b"--XyZ\r\nno headers here",
        headers={"Content-Type": "multipart/form-data"} | AUTH,
    )
    assert response.status_code == 422
    assert response.json() == {
        "detail": "malformed multipart/form-data body: Missing boundary in multipart."
    }
