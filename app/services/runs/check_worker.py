"""A check worker process, one of a run's (parallel.py): it loads the checkers and the
declarations once, then checks the chunks of theorems its parent sends, one at a time,
answering each with the result payloads.

A worker started afresh loads everything itself (`worker_main`); one forked from the
run's template process (forked.py) starts with the modules imported (`load_template`,
`forked_main`). After each theorem it drops the programs compiled for it (a run checks
each theorem once), hands the C heap's free pages back to the system once it has grown by
`TRIM_GROWTH_MB` (`release_freed_memory`), and measures itself (`own_memory_mb`): past
either bound its parent gives (theorems checked, MB held) it retires, handing back what
it had not checked of its chunk. `check_one` is one check, the same in a worker and in the
process of the run.
"""

from __future__ import annotations

import ctypes
import functools
import os
from multiprocessing.connection import Connection
from typing import Any

from app.services.runs.recording import error_payload
from app.services.runs.selection import CheckParams

__all__ = [
    "TRIM_GROWTH_MB",
    "check_one",
    "forked_main",
    "load_template",
    "own_memory_mb",
    "release_freed_memory",
    "worker_main",
]

# after a theorem that left the worker this many MB larger than its last trim, the C
# heap's free pages are handed back to the system (`release_freed_memory`)
TRIM_GROWTH_MB = 50


def _load(database_url: str) -> tuple[Any, Any]:
    """The checkers and an environment of the declarations at `database_url`."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    import checkers
    from app import crud

    engine = create_engine(database_url)
    with Session(engine) as session:
        env = checkers.Environment.from_declarations(crud.current_declaration_records(session))
    engine.dispose()
    return checkers, env


def load_template() -> None:
    """What every forked worker starts with: the modules a check imports. (Not the
    declarations: a worker reads what it uses of them, and Python's reference counts
    would copy every page of them the template holds into each worker anyway.)"""
    import sqlalchemy.orm  # noqa: F401

    import app.crud  # noqa: F401
    import checkers  # noqa: F401
    from checkers.registry.environment import load_derive_hook

    load_derive_hook()  # imports the derived checkers and their vocabulary plugins


def _configure(jax_cache_dir: str | None, compile_threads: int) -> None:
    from checkers.harness.programs import set_compile_threads
    from checkers.runtime.jaxsetup import configure_compilation_cache

    if jax_cache_dir is not None:
        configure_compilation_cache(jax_cache_dir)
    set_compile_threads(compile_threads)


def check_one(backend: Any, env: Any, name: str, params: CheckParams) -> dict[str, Any]:
    """One theorem's result payload; a checker that raises gives an `error` payload."""
    try:
        return dict(
            backend.check(
                name,
                env,
                trials=params.trials,
                seed=params.seed,
                dtype=params.dtype,
                dims=None if params.dims is None else dict(params.dims),
                draws=params.draws,
            ).to_json()
        )
    except Exception as exc:  # one broken checker never stops the others
        return error_payload(name, params, exc)


def own_memory_mb() -> int | None:
    """This process's resident set in MB, or None where /proc cannot say. (Its
    proportional set, /proc/self/smaps_rollup, would count shared pages once, but
    reading it walks every mapping: 15 ms in a large worker, against 0.02 ms.)"""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 2**20
    except (OSError, ValueError, IndexError):
        return None


@functools.cache
def _libc() -> Any:
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to trim
        return None


def release_freed_memory() -> None:
    """Hand the pages the C heap holds free back to the system (glibc's `malloc_trim`):
    what XLA and NumPy freed after a large theorem otherwise stays resident."""
    libc = _libc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)


def worker_main(
    conn: Connection,
    database_url: str,
    jax_cache_dir: str | None,
    limits: tuple[int, int],
    compile_threads: int,
) -> None:
    """A worker process started afresh: loads the checkers and the declarations, then
    `_serve`s, with what it loaded left out of the cyclic collector's walks (a worker's
    lifetime is bounded: checkers/runtime/memory.py)."""
    from checkers.runtime.memory import keep_loaded_objects_uncollected

    _configure(jax_cache_dir, compile_threads)
    loaded = _load(database_url)
    keep_loaded_objects_uncollected()
    _serve(conn, *loaded, limits)


def forked_main(conn: Connection, _loaded: None, *args: Any) -> None:
    """A worker forked from the template (forked.py): `worker_main`, its imports done."""
    worker_main(conn, *args)


def _serve(conn: Connection, backend: Any, env: Any, limits: tuple[int, int]) -> None:
    """Check the chunks the parent sends, one at a time, and answer each with (results,
    names left unchecked, whether the worker retires). It retires, ending the chunk
    early, once it has checked `limits[0]` theorems or holds more than `limits[1]` MB."""
    from checkers.harness.programs import clear_program_cache

    theorems, memory_mb = limits
    done = 0
    trimmed = own_memory_mb() or 0  # the resident set after the last trim
    while True:
        try:
            task = conn.recv()
        except EOFError:  # the parent is gone
            return
        if task is None:
            return
        names, params_json = task
        params = CheckParams.from_json(params_json)
        results: list[dict[str, Any]] = []
        for k, name in enumerate(names):
            results.append(check_one(backend, env, name, params))
            # a run checks each theorem once: its programs are not asked for again, and
            # the executables XLA compiled for a large theorem hold up to hundreds of MB
            clear_program_cache()
            done += 1
            held = own_memory_mb()
            if held is not None and held > trimmed + TRIM_GROWTH_MB:
                release_freed_memory()
                held = trimmed = own_memory_mb() or held
            if done >= theorems or (held is not None and held > memory_mb):
                conn.send((results, list(names[k + 1 :]), True))
                return
        conn.send((results, [], False))
