"""Time limits for one check, and the watchdog that keeps a running task's heartbeat.

`soft_deadline(seconds)` interrupts the block it guards with `CheckTimeout` once it has
run that long: by `SIGALRM` on the main thread (a Celery worker's pool process runs its
task there), otherwise by an asynchronous exception raised in the thread that entered it
(the server's in-process runner). Either way the exception surfaces the next time the
interpreter runs Python code; a check stuck inside native code is not interrupted, which
is what the hard limit is for. `CheckTimeout` derives from `BaseException` so that a
checker's own `except Exception` cannot swallow it.

`Watchdog` is a thread beside a task: it renews the task's heartbeat every few seconds
and, where the process may be ended (a worker's pool process, which Celery replaces),
calls `on_hard_timeout` and ends the process once one check has run past the hard limit.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["HARD_TIMEOUT_EXIT", "CheckTimeout", "Watchdog", "soft_deadline"]

HARD_TIMEOUT_EXIT = 75
"""Exit status of a worker process ended by the hard limit (EX_TEMPFAIL)."""

log = logging.getLogger("proofbridge.worker")


class CheckTimeout(BaseException):
    """A check ran past its soft time limit."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the check ran past its soft time limit of {seconds:g} s")
        self.seconds = seconds


@contextmanager
def soft_deadline(seconds: float | None) -> Iterator[None]:
    """Raise `CheckTimeout` in the block once it has run `seconds` (None: no limit)."""
    if seconds is None:
        yield
        return
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _alarm(seconds):
            yield
    else:
        with _async_raise(seconds):
            yield


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise CheckTimeout(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Timeout(CheckTimeout):
    # PyThreadState_SetAsyncExc takes a class, raised without arguments
    limit = 0.0

    def __init__(self) -> None:
        super().__init__(self.limit)


@contextmanager
def _async_raise(seconds: float) -> Iterator[None]:
    target = ctypes.c_ulong(threading.get_ident())
    exc = type("CheckTimeoutAfter", (_Timeout,), {"limit": seconds})
    lock = threading.Lock()
    state = {"active": True, "fired": False}

    def expire() -> None:
        with lock:
            if state["active"]:
                state["fired"] = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(target, ctypes.py_object(exc))

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["active"] = False
            timer.cancel()
            if state["fired"]:  # raised but not yet delivered: withdraw it
                ctypes.pythonapi.PyThreadState_SetAsyncExc(target, None)


class Watchdog:
    """Renews a heartbeat every `every_s` seconds; ends the process past the hard limit.

    `beat()` is called from the watchdog thread (it must open its own database session).
    `begin(name)` and `end()` bracket one check. With `hard_s` set, a check running longer
    makes the watchdog call `on_hard_timeout(name, seconds)` and end the process with
    HARD_TIMEOUT_EXIT; only worker pool processes, which are replaced, set it.
    """

    def __init__(
        self,
        beat: Callable[[], None],
        *,
        every_s: float,
        hard_s: float | None = None,
        on_hard_timeout: Callable[[str, float], None] | None = None,
    ) -> None:
        self._beat = beat
        self._every = every_s
        self._hard = hard_s
        self._on_hard = on_hard_timeout
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._current: tuple[str, float] | None = None
        self._thread = threading.Thread(target=self._loop, name="proofbridge-watchdog")
        self._thread.daemon = True

    def __enter__(self) -> Watchdog:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self._every + 5)

    def begin(self, name: str) -> None:
        with self._lock:
            self._current = (name, time.monotonic())

    def end(self) -> None:
        with self._lock:
            self._current = None

    def _loop(self) -> None:
        while not self._stop.wait(self._tick()):
            try:
                self._beat()
            except Exception:  # a missed beat is retried at the next one
                log.exception("heartbeat failed")
            self._enforce()

    def _tick(self) -> float:
        if self._hard is None:
            return self._every
        return min(self._every, max(0.05, self._hard / 10))

    def _enforce(self) -> None:
        if self._hard is None:
            return
        with self._lock:
            current = self._current
        if current is None:
            return
        name, started = current
        ran = time.monotonic() - started
        if ran < self._hard:
            return
        log.error(
            "%s ran %.1f s, past the hard limit of %g s: ending this process", name, ran, self._hard
        )
        try:
            if self._on_hard is not None:
                self._on_hard(name, self._hard)
        finally:
            os._exit(HARD_TIMEOUT_EXIT)
