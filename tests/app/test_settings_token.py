"""Settings (environment, .env, unsafe secrets refused) and the write-access token."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from db_support import REPO
from pydantic import ValidationError

from app.runtime import load_settings
from app.settings import DEFAULT_DATABASE_URL, Settings, get_settings
from app.token import TokenError, ensure_api_token, token_matches

GOOD_TOKEN = "k3v9-Qx1_7pLm2Zr8tYw"


def test_read_defaults_when_environment_empty() -> None:
    settings = get_settings()

    assert settings.database_url == DEFAULT_DATABASE_URL
    assert (settings.broker_url, settings.api_token, settings.webhook_secret) == (None, None, None)
    assert settings.token_path == Path("var/api_token")


def test_read_settings_from_environment_and_env_file(monkeypatch: pytest.MonkeyPatch) -> None:
    Path(".env").write_text(
        "PROOFBRIDGE_DATABASE_URL=sqlite:///elsewhere.db\nPROOFBRIDGE_MAX_UPLOAD_BYTES=1000\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("PROOFBRIDGE_MAX_UPLOAD_BYTES", "2000")  # the environment wins

    settings = get_settings()

    assert (settings.database_url, settings.max_upload_bytes) == ("sqlite:///elsewhere.db", 2000)


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("short-token", "PROOFBRIDGE_API_TOKEN is 11 characters long; at least 16 are required"),
        ("changethis", "PROOFBRIDGE_API_TOKEN is a placeholder value; set a random secret"),
        ("a" * 40, "PROOFBRIDGE_API_TOKEN is a placeholder value; set a random secret"),
    ],
)
def test_refuse_api_token_when_unsafe(
    monkeypatch: pytest.MonkeyPatch, token: str, message: str
) -> None:
    monkeypatch.setenv("PROOFBRIDGE_API_TOKEN", token)

    with pytest.raises(ValueError) as err:
        load_settings()

    assert str(err.value) == f"invalid settings: {message}"


def test_refuse_webhook_secret_when_short() -> None:
    with pytest.raises(ValidationError, match="PROOFBRIDGE_WEBHOOK_SECRET is 5 characters long"):
        Settings(webhook_secret="abcde")  # type: ignore[arg-type]


def test_refuse_database_url_when_backend_unknown() -> None:
    expected = "must be a sqlite:// or postgresql:// URL, got 'mysql'"
    with pytest.raises(ValidationError, match=expected):
        Settings(database_url="mysql://x@y/z")


def test_generate_token_on_first_start_and_print_it_once() -> None:
    settings = Settings()
    first_out, second_out = io.StringIO(), io.StringIO()

    token = ensure_api_token(settings, out=first_out)
    again = ensure_api_token(settings, out=second_out)

    assert token == again and len(token) >= 40
    assert token in first_out.getvalue()
    assert second_out.getvalue() == ""
    path = Path("var/api_token")
    assert path.read_text(encoding="utf-8").strip() == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["api_token"]  # no temporary left


def test_use_configured_token_without_storing_one() -> None:
    settings = Settings(api_token=GOOD_TOKEN)  # type: ignore[arg-type]
    out = io.StringIO()

    assert ensure_api_token(settings, out=out) == GOOD_TOKEN
    assert out.getvalue() == ""
    assert not Path("var/api_token").exists()


def test_refuse_stored_token_when_others_can_read_it() -> None:
    settings = Settings()
    ensure_api_token(settings, out=io.StringIO())
    os.chmod("var/api_token", 0o644)

    with pytest.raises(TokenError) as err:
        ensure_api_token(settings)

    assert str(err.value) == (
        "var/api_token is accessible by other users (mode 0644); run `chmod 600 var/api_token`"
    )


def test_agree_on_one_token_when_two_processes_start_together(tmp_path: Path) -> None:
    script = (
        "import io, sys\n"
        "from app.settings import Settings\n"
        "from app.token import ensure_api_token\n"
        "print(ensure_api_token(Settings(), out=io.StringIO()))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    procs = [
        subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
        for _ in range(4)
    ]
    tokens = {p.communicate(timeout=60)[0].strip() for p in procs}

    assert tokens == {Path("var/api_token").read_text(encoding="utf-8").strip()}


def test_compare_tokens_when_presented() -> None:
    assert token_matches(GOOD_TOKEN, GOOD_TOKEN)
    assert not token_matches(GOOD_TOKEN[:-1] + "x", GOOD_TOKEN)
    assert not token_matches(None, GOOD_TOKEN)
    assert not token_matches("", GOOD_TOKEN)


def test_worker_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROOFBRIDGE_CHECKER_MODULES", "team.checkers, team.more ,")
    monkeypatch.setenv("PROOFBRIDGE_CHECK_QUEUE", "gpu")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.checker_modules == ["team.checkers", "team.more"]
    assert settings.check_queue == "gpu"


@pytest.mark.parametrize(
    "values, message",
    [
        ({"check_soft_timeout_s": 10, "check_hard_timeout_s": 10}, "must be above"),
        ({"heartbeat_s": 5, "stale_after_s": 9}, "above twice"),
        ({"check_queue": "light"}, "check_queue"),
    ],
)
def test_refuse_worker_limits_that_contradict(values: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Settings(_env_file=None, **values)  # type: ignore[call-arg,arg-type]
