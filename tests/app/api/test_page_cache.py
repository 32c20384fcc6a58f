"""The page cache (`app.api.cache`): an answer is served again only while nothing has
committed to the database since, on SQLite and PostgreSQL, whoever made the change; it is
never shared across visitors, and only complete 200 answers are kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from api_support import API, AUTH, SMALL_PAGE, make_settings
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session

from app import models
from app.api.cache import PageCache
from app.db import make_engine
from app.generation import Generation
from app.main import create_app
from app.migrate import upgrade_database

LIST = f"{API}/theorems"


def _ingest(client: TestClient, text: str = SMALL_PAGE, name: str = "small.txt") -> None:
    r = client.post(f"{API}/ingest", headers=AUTH, files=[("files", (name, text.encode()))])
    assert r.status_code in (200, 201), r.text


def test_second_read_is_a_hit_until_a_commit(client: TestClient, database_url: str) -> None:
    _ingest(client)
    first = client.get(LIST)
    again = client.get(LIST)
    assert first.headers["x-cache"] == "miss"
    assert again.headers["x-cache"] == "hit"
    assert again.content == first.content

    # a commit by another connection (as a worker's) is seen at once
    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            d = models.Declaration
            s.execute(update(d).where(d.name == "Small.div_zero").values(removed=True))
            s.commit()
    finally:
        engine.dispose()
    after = client.get(LIST)
    assert after.headers["x-cache"] == "miss"
    names = {t["name"] for t in after.json()["data"]}
    assert "Small.div_zero" not in names
    assert "Small.div_zero" in {t["name"] for t in first.json()["data"]}


def test_an_ingestion_through_the_api_is_seen(client: TestClient) -> None:
    before = client.get(LIST).json()["count"]
    client.get(LIST)
    _ingest(client)
    assert client.get(LIST).json()["count"] == before + 3


def test_answers_are_not_shared_across_cookies_or_tokens(client: TestClient) -> None:
    _ingest(client)
    assert client.get("/").headers["x-cache"] == "miss"
    assert client.get("/").headers["x-cache"] == "hit"
    other = client.get("/", headers={"Cookie": "proofbridge_session=someone-else"})
    assert other.headers["x-cache"] == "miss"
    bearer = client.get(LIST, headers={"Authorization": "Bearer x"})
    assert bearer.headers["x-cache"] == "miss"


def test_only_complete_200_answers_of_listed_pages_are_kept(client: TestClient) -> None:
    for _ in range(2):
        missing = client.get(f"{API}/theorems/No.such")
        assert missing.status_code == 404
        assert missing.headers["x-cache"] == "miss"
    assert "x-cache" not in client.get(f"{API}/healthz").headers
    assert "x-cache" not in client.get("/metrics").headers


def test_turned_off_with_zero_megabytes(database_url: str, tmp_path: Path) -> None:
    settings = make_settings(database_url, tmp_path / "var", page_cache_mb=0)
    with TestClient(create_app(settings)) as c:
        assert "x-cache" not in c.get(LIST).headers
        assert "x-cache" not in c.get(LIST).headers


def test_generation_changes_with_each_commit_and_only_then(database_url: str) -> None:
    generation = Generation(database_url)
    engine = make_engine(database_url)
    try:
        first = generation.read()
        assert first is not None
        assert generation.read() == first  # reads change nothing
        with Session(engine) as s:
            s.add(models.Run(status="queued", trigger="test", params={}))
            s.flush()  # written, not committed: nobody else can see it yet
            s.commit()
        committed = generation.read()
        assert committed != first
        assert generation.read() == committed
    finally:
        generation.close()
        engine.dispose()


def test_in_memory_sqlite_has_no_generation() -> None:
    assert Generation("sqlite://").read() is None


@pytest.mark.anyio
async def test_least_recently_used_answers_go_beyond_the_budget() -> None:
    async def app(scope: dict, receive: object, send: object) -> None:
        body = scope["path"].encode() * 100
        await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": body})  # type: ignore[operator]

    cache = PageCache(app, generation=lambda: "g", max_bytes=lambda: 3 * (1000 + 512))
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def get(path: str) -> bytes:
        sent.clear()
        scope = {"type": "http", "method": "GET", "path": path, "headers": []}
        await cache(scope, None, send)  # type: ignore[arg-type]
        return dict(sent[0]["headers"])[b"x-cache"]

    for path in ("/runs/1", "/runs/2", "/runs/3"):
        assert await get(path) == b"miss"
    assert await get("/runs/1") == b"hit"  # now the most recently used
    assert await get("/runs/4") == b"miss"  # over budget: /runs/2 goes
    assert await get("/runs/2") == b"miss"
    assert await get("/runs/1") == b"hit"


@pytest.mark.postgres
def test_every_table_counts_its_writes_and_other_schemas_do_not(
    pg_url: str, pg_module_url: str
) -> None:
    from sqlalchemy import text

    upgrade_database(pg_url)
    engine = make_engine(pg_url)
    try:
        with engine.connect() as c:
            triggers = set(
                c.execute(
                    text(
                        "SELECT t.tgname FROM pg_trigger t JOIN pg_class k ON k.oid = t.tgrelid "
                        "WHERE k.relnamespace = current_schema()::regnamespace"
                    )
                ).scalars()
            )
        tables = [t.name for t in models.Base.metadata.sorted_tables]
        assert {f"{t}_generation" for t in tables if t != "data_generation"} <= triggers
    finally:
        engine.dispose()

    generation = Generation(pg_url)
    before = generation.read()
    other_engine = make_engine(pg_module_url)
    try:
        models.Base.metadata.create_all(other_engine)
        with Session(other_engine) as s:
            s.add(models.Run(status="queued", trigger="test", params={}))
            s.commit()
            assert s.scalar(text("SELECT sum(n) FROM data_generation"))  # counted there
        assert generation.read() == before  # another schema's writes are not this one's
    finally:
        other_engine.dispose()
        generation.close()


@pytest.mark.postgres
def test_rows_of_ended_backends_are_folded_without_changing_the_sum(pg_url: str) -> None:
    from sqlalchemy import text

    from app.generation import COMPACT_ABOVE

    upgrade_database(pg_url)
    engine = make_engine(pg_url)
    generation = Generation(pg_url)
    try:
        with engine.begin() as c:  # rows of backends long gone (ids no process has)
            for i in range(COMPACT_ABOVE + 10):
                c.execute(
                    text("INSERT INTO data_generation (slot, n) VALUES (:s, :n)"),
                    {"s": 50_000_000 + i, "n": i + 1},
                )
        before = generation.read()
        assert generation.read() == before  # folded, and the sum is the same
        with engine.connect() as c:
            rows = c.execute(text("SELECT count(*) FROM data_generation")).scalar()
        assert rows is not None and rows <= 3
        assert before == f"pg:{sum(range(1, COMPACT_ABOVE + 11))}"
    finally:
        generation.close()
        engine.dispose()
