"""Time limits of one check: the soft limit interrupts Python code on the main thread (by
SIGALRM) and on any other thread (by an asynchronous exception), a checker's own
`except Exception` cannot swallow it, and nothing fires once the block has ended."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from app.services.runs.timeouts import CheckTimeout, Watchdog, soft_deadline

SPIN = 10**7  # minutes of work: only the soft limit ends it early


def _spin_swallowing() -> None:
    for _ in range(SPIN):
        try:
            sum(range(1000))
        except Exception:  # a checker's broad handler must not hide the timeout
            pass


def test_soft_limit_interrupts_the_main_thread() -> None:
    with pytest.raises(CheckTimeout, match="soft time limit of 0.3 s"):
        with soft_deadline(0.3):
            _spin_swallowing()


def test_soft_limit_interrupts_another_thread() -> None:
    caught: list[BaseException] = []

    def body() -> None:
        try:
            with soft_deadline(0.3):
                _spin_swallowing()
        except CheckTimeout as exc:
            caught.append(exc)

    t = threading.Thread(target=body)
    t.start()
    t.join(10)
    assert not t.is_alive()
    assert len(caught) == 1 and caught[0].seconds == 0.3


@pytest.mark.parametrize("on_main", [True, False])
def test_nothing_fires_after_the_block(on_main: bool) -> None:
    errors: list[BaseException] = []

    def body() -> None:
        try:
            with soft_deadline(0.2):
                pass
            time.sleep(0.5)  # past the limit, outside the block
        except BaseException as exc:
            errors.append(exc)

    if on_main:
        body()
    else:
        t = threading.Thread(target=body)
        t.start()
        t.join(10)
    assert errors == []


def test_no_limit_sets_no_alarm() -> None:
    handler = signal.getsignal(signal.SIGALRM)
    with soft_deadline(None):
        assert signal.getsignal(signal.SIGALRM) is handler
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with soft_deadline(5):
        assert signal.getsignal(signal.SIGALRM) is not handler  # the limit is armed
    assert signal.getsignal(signal.SIGALRM) is handler


def test_watchdog_beats_while_running() -> None:
    beats: list[float] = []
    with Watchdog(lambda: beats.append(time.monotonic()), every_s=0.05):
        for _ in range(600):  # until 3 beats, however slow the machine (at most 60 s)
            if len(beats) >= 3:
                break
            time.sleep(0.1)
    count = len(beats)
    time.sleep(0.2)
    assert count >= 3 and len(beats) == count  # and stops with the block
