"""Fixtures of the dashboard tests: the application on a fresh, migrated database, once on
SQLite and once on PostgreSQL (`db_url` of tests/app/conftest.py), with runs submitted
nowhere (`submitted` lists them), so that no check runs and JAX is never loaded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dashboard_support import TOKEN, make_settings
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.db import get_engine, get_sessionmaker
from app.main import create_app
from app.migrate import upgrade_database
from app.settings import Settings


@pytest.fixture
def database_url(db_url: str) -> Iterator[str]:
    upgrade_database(db_url)
    yield db_url
    get_engine(db_url).dispose()


@pytest.fixture
def db(database_url: str) -> Iterator[Session]:
    with get_sessionmaker(database_url)() as session:
        yield session


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return make_settings(database_url, tmp_path / "var")


@pytest.fixture
def submitted() -> list[int]:
    return []


@pytest.fixture
def app(settings: Settings, submitted: list[int]) -> FastAPI:
    app = create_app(settings)
    app.state.submit_run = submitted.append
    return app


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as client:
        yield client


@pytest.fixture
def logged_in(client: TestClient) -> TestClient:
    response = client.get(f"/login?token={TOKEN}", follow_redirects=False)
    assert response.status_code == 303, response.text
    return client
