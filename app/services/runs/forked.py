"""Check workers forked from a template process.

A check worker started afresh (`spawn`) spends seconds importing JAX, the checkers
and their vocabulary before its first theorem, and a run over a large selection
starts a fresh worker every `WORKER_THEOREMS` theorems (parallel.py), so that cost
recurs. A `Template` is one process per run that imports them once (its `load`);
each worker is forked from it and starts with them imported, their memory shared
with the template's until written.

Forking is safe because the template never starts JAX's runtime: it imports JAX
but creates no array, traces nothing and compiles nothing (a template whose JAX
backends are initialised refuses to fork). The workers start the runtime
themselves, each its own.

A forked worker is a child of the template, not of the run's process: the run
sees it through a `ForkedProcess` (its pid, a pidfd to wait on, its exit code as
the template reaps it), which offers what the run uses of a `multiprocessing`
process.
"""

from __future__ import annotations

import contextlib
import gc
import os
import select
import signal
from collections.abc import Callable
from multiprocessing import reduction
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnContext
from typing import Any

__all__ = ["ForkedProcess", "Template", "forking_supported"]


def forking_supported() -> bool:
    """Whether workers can be forked here: `os.fork`, pidfds (Linux 5.3+) and file
    descriptors sent over a socket."""
    return hasattr(os, "fork") and hasattr(os, "pidfd_open") and hasattr(reduction, "send_handle")


class Template:
    """The template process: `load(*args)` runs in it once; `fork(main, *args)` starts
    a worker that runs `main(conn, loaded, *args)` and ends; `conn` is the other end
    of the connection `fork` returns."""

    def __init__(self, context: SpawnContext, load: Callable[..., Any], *args: Any) -> None:
        ours, theirs = context.Pipe()
        self.process = context.Process(
            target=_template_main, args=(theirs, load, args), daemon=True
        )
        self.process.start()
        theirs.close()
        self.conn = ours

    def fork(
        self, context: SpawnContext, main: Callable[..., Any], *args: Any
    ) -> tuple[ForkedProcess, Connection]:
        """A worker forked from the template and the run's end of its connection. Raises
        `TemplateLost` where the template is gone or could not fork."""
        ours, theirs = context.Pipe()
        try:
            self.conn.send(("fork", main, args))
            reduction.send_handle(self.conn, theirs.fileno(), self.process.pid)
            answer = self.conn.recv()
        except (EOFError, OSError) as e:
            raise TemplateLost(f"the template process is gone ({e or type(e).__name__})") from e
        finally:
            theirs.close()
        if isinstance(answer, str):
            ours.close()
            raise TemplateLost(answer)
        return ForkedProcess(answer, self), ours

    def reap(self, pid: int) -> int | None:
        """The exit code of the ended worker `pid` (negative: the signal that ended it),
        or None where the template cannot say."""
        try:
            self.conn.send(("reap", pid, None))
            return self.conn.recv()
        except (EOFError, OSError):
            return None

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)
            self.conn.close()
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class TemplateLost(Exception):
    """The template process cannot fork a worker (it died, or its JAX was started)."""


class ForkedProcess:
    """A forked worker as the run sees it: what the run uses of a multiprocessing
    process (`sentinel`, `is_alive`, `join`, `kill`, `exitcode`)."""

    def __init__(self, pid: int, template: Template) -> None:
        self.pid = pid
        self._template = template
        self._exitcode: int | None = None
        self._reaped = False
        try:
            self.sentinel = os.pidfd_open(pid)
        except ProcessLookupError:  # gone already (the template reaps it below)
            self.sentinel = os.open(os.devnull, os.O_RDONLY)  # always readable: ended

    def is_alive(self) -> bool:
        if self._reaped:
            return False
        readable, _, _ = select.select([self.sentinel], [], [], 0)
        return not readable

    def join(self, timeout: float | None = None) -> None:
        if self._reaped:
            return
        readable, _, _ = select.select([self.sentinel], [], [], timeout)
        if readable:
            self._exitcode = self._template.reap(self.pid)
            self._reaped = True
            os.close(self.sentinel)

    def kill(self) -> None:
        if not self._reaped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    @property
    def exitcode(self) -> int | None:
        if not self._reaped and not self.is_alive():
            self.join()
        return self._exitcode


def _template_main(conn: Connection, load: Callable[..., Any], args: tuple[Any, ...]) -> None:
    loaded = load(*args)
    # what was loaded lives as long as the workers: out of the collector's reach, a
    # collection in a worker does not write to (and so copy) every page of it
    gc.freeze()
    while True:
        try:
            message = conn.recv()
        except EOFError:  # the run is gone
            message = None
        if message is None:
            break
        what, main, rest = message
        if what == "reap":
            conn.send(_reap(main))
            continue
        fd = reduction.recv_handle(conn)
        refusal = _refusal()
        if refusal is not None:
            os.close(fd)
            conn.send(refusal)
            continue
        pid = os.fork()
        if pid == 0:  # the worker
            conn.close()
            code = 0
            try:
                main(Connection(fd), loaded, *rest)
            except BaseException:  # noqa: BLE001 (its end says so: the run sees the exit)
                code = 1
            finally:
                os._exit(code)
        os.close(fd)
        conn.send(pid)
    # the run is over: its workers end when their connections close; reap what ended
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _reap(pid: int) -> int | None:
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return None
    return os.waitstatus_to_exitcode(status)


def _refusal() -> str | None:
    """Why this process must not fork, or None: JAX's runtime is running in it."""
    from jax._src import xla_bridge

    if getattr(xla_bridge, "_backends", None):
        return "the template process started JAX's runtime, so it cannot fork workers safely"
    return None
