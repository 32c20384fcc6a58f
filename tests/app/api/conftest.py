"""Fixtures of the HTTP API tests: the application on a fresh, migrated database, once on
SQLite and once on PostgreSQL (`db_url` of tests/app/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from api_support import make_settings
from fastapi import FastAPI
from fastapi.testclient import TestClient
from webhook_support import MAX_BODY, SECRET, scripted

from app.db import get_engine
from app.main import create_app
from app.migrate import upgrade_database
from app.services.runs.runner import InProcessRunner
from app.settings import Settings


@pytest.fixture
def database_url(db_url: str) -> Iterator[str]:
    """`db_url` with the schema migrated to the newest revision."""
    upgrade_database(db_url)
    yield db_url
    get_engine(db_url).dispose()  # before the schema is dropped


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return make_settings(database_url, tmp_path / "var")


@pytest.fixture
def app(settings: Settings) -> FastAPI:
    return create_app(settings)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    """A client of the started application (lifespan run: schema, token, worker)."""
    with TestClient(app) as client:
        yield client


@pytest.fixture
def hooks(database_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """The started app with a webhook secret, a small body limit and scripted checks."""
    settings = make_settings(
        database_url, tmp_path / "var", webhook_secret=SECRET, max_upload_bytes=MAX_BODY
    )
    app = create_app(settings)
    app.state.runner = InProcessRunner(database_url, backend=scripted(), settings=settings)
    with TestClient(app) as client:
        yield client
