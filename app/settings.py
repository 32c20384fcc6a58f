"""Settings: one pydantic-settings class, read from the environment and an optional `.env`.

Every variable is `PROOFBRIDGE_<FIELD>` (for example `PROOFBRIDGE_DATABASE_URL`). Read them
through `get_settings()`, which caches one instance; tests and the worker change the
environment and call `get_settings.cache_clear()`, or override the FastAPI dependency.

Unsafe secrets are refused when the settings are built: a token or webhook secret that is
short, a well-known placeholder, or made of one repeated character.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite:///./var/proofbridge.db"
MIN_SECRET_LENGTH = 16
_PLACEHOLDER_SECRETS = frozenset(
    {"changethis", "changeme", "secret", "password", "token", "test", "example", "xxxxxxxx"}
)

__all__ = [
    "CHECK_QUEUES",
    "DEFAULT_DATABASE_URL",
    "LIGHT_QUEUE",
    "MIN_SECRET_LENGTH",
    "WORKER_QUEUES",
    "Settings",
    "get_settings",
]

# the worker queues: checks go to `cpu` or `gpu`, bookkeeping to `light`
CHECK_QUEUES = ("cpu", "gpu")
LIGHT_QUEUE = "light"
WORKER_QUEUES = (*CHECK_QUEUES, LIGHT_QUEUE)


def _check_secret(value: SecretStr | None, variable: str) -> SecretStr | None:
    if value is None:
        return None
    raw = value.get_secret_value()
    if raw == "":
        return None
    if raw.strip() != raw:
        raise ValueError(f"{variable} must not start or end with whitespace")
    if raw.lower() in _PLACEHOLDER_SECRETS or len(set(raw)) == 1:
        raise ValueError(f"{variable} is a placeholder value; set a random secret")
    if len(raw) < MIN_SECRET_LENGTH:
        raise ValueError(
            f"{variable} is {len(raw)} characters long; at least {MIN_SECRET_LENGTH} are required"
        )
    return value


class Settings(BaseSettings):
    """Everything the service reads from its environment."""

    model_config = SettingsConfigDict(
        env_prefix="PROOFBRIDGE_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    database_url: str = Field(default=DEFAULT_DATABASE_URL, description="SQLAlchemy URL")
    broker_url: str | None = Field(
        default=None, description="Celery broker; unset means checks run in-process"
    )
    api_token: SecretStr | None = Field(
        default=None, description="bearer token for write endpoints; generated when unset"
    )
    webhook_secret: SecretStr | None = Field(
        default=None, description="HMAC secret for webhooks; unset means webhooks are refused"
    )
    data_dir: Path = Field(
        default=Path("var"), description="where the embedded database and the token live"
    )
    max_upload_bytes: int = Field(
        default=64 * 1024 * 1024, gt=0, description="largest accepted request body"
    )
    page_cache_mb: int = Field(
        default=64,
        ge=0,
        description="memory for answers to read pages, per server process (0: none)",
    )
    max_file_bytes: int = Field(
        default=16 * 1024 * 1024, gt=0, description="largest single input file read at ingestion"
    )
    jax_cache_dir: Path | None = Field(
        default=Path("var/jax-cache"),
        description="JAX persistent compilation cache; empty disables it",
    )
    keep_alive_s: int = Field(
        default=75,
        gt=0,
        le=3600,
        description="how long the server keeps an idle keep-alive connection open",
    )
    parse_workers: int = Field(
        default=0,
        ge=0,
        description="processes that parse a large ingestion batch; 0 means one per core (up to 4)",
    )
    check_queue: Literal["cpu", "gpu"] = Field(
        default="cpu", description="the worker queue check tasks are sent to (`cpu` or `gpu`)"
    )
    chunk_size: int = Field(
        default=8, ge=1, le=1000, description="theorems one worker task checks in one go"
    )
    check_soft_timeout_s: float = Field(
        default=600.0,
        gt=0,
        description="a check running longer is interrupted and recorded as `error: timeout`",
    )
    check_hard_timeout_s: float = Field(
        default=660.0,
        gt=0,
        description="a check still running this long (not interruptible) ends its worker "
        "process, which is replaced; the check is recorded as `error: timeout`",
    )
    heartbeat_s: float = Field(
        default=2.0, gt=0, description="how often a running task proves it is alive"
    )
    stale_after_s: float = Field(
        default=30.0,
        gt=0,
        description="a task silent this long is presumed lost and dispatched again",
    )
    reconcile_interval_s: float = Field(
        default=10.0, gt=0, description="how often each worker looks for lost or stale tasks"
    )
    max_task_attempts: int = Field(
        default=5,
        ge=1,
        description="attempts of one task before its unchecked theorems are recorded as `error`",
    )
    checker_modules: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="modules imported before checking, which register hand-written checkers "
        "(comma-separated in the environment)",
    )
    public_url: str | None = Field(
        default=None,
        description="the server's address as users reach it (https://proofbridge.example.org): "
        "the links in what is posted to GitHub; unset: the address the webhook was sent to",
    )
    github_api_url: str = Field(
        default="https://api.github.com",
        description="GitHub's REST API (a GitHub Enterprise server's https://HOST/api/v3)",
    )
    github_token: SecretStr | None = Field(
        default=None,
        description="a token that may post commit statuses and pull request comments",
    )
    github_app_id: int | None = Field(
        default=None, gt=0, description="a GitHub App's id: check runs with annotations"
    )
    github_app_private_key: SecretStr | None = Field(
        default=None,
        description="that App's private key (PEM text, or @FILE to read it from FILE)",
    )
    source_root: str | None = Field(
        default=None,
        description="the folder (or path prefix) that stored source paths are taken relative "
        "to in CI reports (JUnit, SARIF, annotations); unset: the current folder for the "
        "command line, the paths as stored for the server; doc-gen4 source links need none",
    )
    sorry_macros: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="names a project declares to expand to `sorry` (`sorry_proof`): a proof "
        "that uses one is unproved, as with `sorry` and `admit` (comma-separated)",
    )
    auto_upgrade: bool = Field(
        default=True,
        description="apply migrations automatically to an embedded SQLite database",
    )

    @field_validator("api_token")
    @classmethod
    def _safe_api_token(cls, value: SecretStr | None) -> SecretStr | None:
        return _check_secret(value, "PROOFBRIDGE_API_TOKEN")

    @field_validator("webhook_secret")
    @classmethod
    def _safe_webhook_secret(cls, value: SecretStr | None) -> SecretStr | None:
        return _check_secret(value, "PROOFBRIDGE_WEBHOOK_SECRET")

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str) -> str:
        value = value.strip()
        scheme = value.split(":", 1)[0].split("+", 1)[0]
        if scheme not in ("sqlite", "postgresql"):
            raise ValueError(
                f"PROOFBRIDGE_DATABASE_URL must be a sqlite:// or postgresql:// URL, got {scheme!r}"
            )
        return value

    @field_validator("checker_modules", "sorry_macros", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @model_validator(mode="after")
    def _hard_after_soft(self) -> Settings:
        if self.check_hard_timeout_s <= self.check_soft_timeout_s:
            raise ValueError(
                f"PROOFBRIDGE_CHECK_HARD_TIMEOUT_S ({self.check_hard_timeout_s:g}) must be "
                f"above PROOFBRIDGE_CHECK_SOFT_TIMEOUT_S ({self.check_soft_timeout_s:g})"
            )
        if self.stale_after_s <= 2 * self.heartbeat_s:
            raise ValueError(
                f"PROOFBRIDGE_STALE_AFTER_S ({self.stale_after_s:g}) must be above twice "
                f"PROOFBRIDGE_HEARTBEAT_S ({self.heartbeat_s:g})"
            )
        return self

    @field_validator(
        "broker_url",
        "jax_cache_dir",
        "source_root",
        "public_url",
        "github_token",
        "github_app_id",
        "github_app_private_key",
        mode="before",
    )
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if value == "" else value

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def token_path(self) -> Path:
        return self.data_dir / "api_token"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (cached; `get_settings.cache_clear()` rereads them)."""
    return Settings()
