"""The command line's argument types, each parsing one option's text or saying what it
expected (argparse prints that, exit code 2), and its exit codes."""

from __future__ import annotations

import argparse
import re

from app.settings import WORKER_QUEUES

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "commit",
    "parse_dims",
    "positive",
    "queues",
    "seed",
]

# the exit codes (app.cli): success; a check failed or errored; bad usage or input
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

_COMMIT = re.compile(r"[0-9a-fA-F]{4,64}")


def parse_dims(text: str) -> dict[str, int]:
    """`K=V,K=V` -> {K: V}; V must be a positive integer."""
    dims: dict[str, int] = {}
    for part in text.split(","):
        key, sep, value = part.strip().partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value.isdigit() or int(value) < 1:
            raise argparse.ArgumentTypeError(
                f"expected K=V,... with V a positive integer, got {part.strip()!r}"
            )
        if key in dims:
            raise argparse.ArgumentTypeError(f"dimension {key} is given twice")
        dims[key] = int(value)
    return dims


def positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def queues(text: str) -> list[str]:
    queues = [q.strip() for q in text.split(",") if q.strip()]
    unknown = [q for q in queues if q not in WORKER_QUEUES]
    if unknown or not queues:
        what = f"unknown queue {unknown[0]!r}" if unknown else "no queue given"
        raise argparse.ArgumentTypeError(f"{what}: choose from {', '.join(WORKER_QUEUES)}")
    return list(dict.fromkeys(queues))


def seed(text: str) -> int:
    if not text.isdigit() or int(text) >= 2**63:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed, got {text!r}")
    return int(text)


def commit(text: str) -> str:
    if not _COMMIT.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"expected a commit SHA (4 to 64 hexadecimal digits), got {text!r}"
        )
    return text.lower()
