"""Parsing a declaration's terms at ingestion: the stored tree, error and constants.

A thin adapter over `theorem_index.lean.analyse_declaration` that turns its analysis into
the JSON columns of a revision. A declaration whose terms do not parse keeps the error (with
its position); an exception inside the analyser is recorded the same way, so one broken
declaration never stops the others.

Large batches are parsed in worker processes, one per core up to `MAX_WORKERS`: parsing is
pure CPU work and dominates a first ingestion. Each worker is a fresh interpreter running
`app.services.ingestion.parse_worker` (not a fork, which would share the database
connection, and not multiprocessing's spawn, which re-imports the caller's main script),
fed by pipes.
"""

from __future__ import annotations

import gc
import os
import pickle
import subprocess
import sys
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from theorem_index.model import Declaration

__all__ = ["PARALLEL_THRESHOLD", "ParseOutcome", "Parser", "analyse", "gc_paused"]

# Below this many declarations, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 1500
MAX_WORKERS = 4


@dataclass(frozen=True)
class ParseOutcome:
    parsed: dict[str, Any] | None
    parse_error: dict[str, Any] | None
    constants: list[str]
    unknown_constants: list[str]

    @property
    def ok(self) -> bool:
        return self.parse_error is None and self.parsed is not None


def analyse(decl: Declaration, known: Any) -> ParseOutcome:
    """The outcome of analysing `decl` against `known` (a `KnownNames`)."""
    from theorem_index.lean import analyse_declaration

    try:
        analysis = analyse_declaration(decl, known)
    except Exception as exc:  # an analyser bug must not stop the batch
        return ParseOutcome(
            parsed=None,
            parse_error={
                "part": "declaration",
                "message": f"internal error while parsing: {type(exc).__name__}: {exc}",
                "line": None,
                "column": None,
                "file_line": decl.location.line_start if decl.location else None,
                "file_column": None,
            },
            constants=[],
            unknown_constants=[],
        )
    # LocatedParseError.to_json(): part, message, line and column within the part, and
    # file_line / file_column in the source file when known.
    errors = [dict(e.to_json()) for e in analysis.errors]
    parse_error: dict[str, Any] | None = None
    if errors:
        parse_error = dict(errors[0])
        if len(errors) > 1:
            parse_error["others"] = errors[1:]
    return ParseOutcome(
        parsed=analysis.to_json(),
        parse_error=parse_error,
        constants=sorted(set(analysis.constants)),
        unknown_constants=sorted(set(analysis.unknown_constants)),
    )


# --- worker processes ------------------------------------------------------------------


def _workers() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def _child_env() -> dict[str, str]:
    """The environment of a worker: this one, with the packages' folder importable."""
    root = str(Path(__file__).resolve().parents[3])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector while a batch builds many small, acyclic objects
    (parse trees, row dicts): in a process holding a large batch its repeated full passes
    cost more than the parsing itself. Reference counting still frees everything."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _run_worker(names: list[str], decls: list[Declaration]) -> list[ParseOutcome] | None:
    """Analyse `decls` in a fresh interpreter (`python -m app.services.ingestion.parse_worker`);
    None when the worker failed, so that the caller parses the chunk itself."""
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "app.services.ingestion.parse_worker"],
            input=pickle.dumps((names, decls), protocol=pickle.HIGHEST_PROTOCOL),
            capture_output=True,
            env=_child_env(),
            check=False,
        )
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    with gc_paused():
        outcomes = pickle.loads(proc.stdout)
    return outcomes if isinstance(outcomes, list) and len(outcomes) == len(decls) else None


class Parser:
    """Analyses declarations against the names known to the database and the batch."""

    def __init__(self, names: Iterable[str], *, workers: int | None = None) -> None:
        from theorem_index.lean import KnownNames

        self._names = list(names)
        self._known = KnownNames(self._names)
        if workers is None:
            from app.settings import get_settings

            workers = get_settings().parse_workers or _workers()
        self._workers = workers

    @property
    def workers(self) -> int:
        """How many processes a large batch is parsed in."""
        return self._workers

    def analyse(self, decl: Declaration) -> ParseOutcome:
        return analyse(decl, self._known)

    def analyse_many(self, decls: Sequence[Declaration]) -> list[ParseOutcome]:
        """Outcomes in the order of `decls`; in parallel when the batch is large."""
        if self._workers < 2 or len(decls) < PARALLEL_THRESHOLD:
            with gc_paused():
                return [self.analyse(d) for d in decls]
        size = -(-len(decls) // self._workers)
        chunks = [list(decls[i : i + size]) for i in range(0, len(decls), size)]
        with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
            done = list(pool.map(lambda chunk: _run_worker(self._names, chunk), chunks))
        outcomes: list[ParseOutcome] = []
        for chunk, result in zip(chunks, done, strict=True):
            outcomes.extend(result if result is not None else [self.analyse(d) for d in chunk])
        return outcomes
