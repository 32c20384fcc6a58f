"""Hand-written checkers that misbehave, for the worker fault tests.

Workers import this module through `PROOFBRIDGE_CHECKER_MODULES`, the way a team loads its
own registered checkers (the tests themselves never import it: it registers checkers).
Each checker is bound to the statement of `fault_names.FAULTS_LEAN` and does its fault
when it is built, that is once per check:

- `Faults.ok_K`: holds; `Faults.slow_K` holds after sleeping `SLOW_S` seconds;
- `Faults.hangs`: loops in Python forever (the soft limit interrupts it);
- `Faults.stuck`: sleeps with SIGALRM blocked, where no soft limit can reach it (the hard
  limit ends its process);
- `Faults.raises`: raises; `Faults.memory`: asks for more memory than exists;
- `Faults.killed`: kills its own process, as the kernel's out-of-memory killer would.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Mapping
from typing import Any

from checkers.core import Evaluation
from checkers.registry import real, register
from tests.app.worker.fault_names import OK, SLOW, SLOW_S, STATEMENT


def _sides(x: dict[str, Any]) -> tuple[Any, ...]:
    return x["x"] + 0.0, x["x"]


def _hang() -> None:
    while True:
        sum(range(1000))


def _stuck() -> None:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    time.sleep(3600)


def _raise() -> None:
    raise RuntimeError("a deliberate failure of the checker")


def _exhaust_memory() -> None:
    bytearray(2**62)


def _kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


FAULTS: dict[str, Callable[[], None]] = {
    "Faults.hangs": _hang,
    "Faults.stuck": _stuck,
    "Faults.raises": _raise,
    "Faults.memory": _exhaust_memory,
    "Faults.killed": _kill,
}


def _register(name: str, fault: Callable[[], None] | None) -> None:
    def build(dims: Mapping[str, int], dtype: Any) -> Evaluation:
        if fault is not None:
            fault()
        return _sides

    register(name, statement=STATEMENT, inputs={"x": real()}, version="1")(build)


def _sleep() -> None:
    time.sleep(SLOW_S)


for _name in OK:
    _register(_name, None)
for _name in SLOW:
    _register(_name, _sleep)
for _name, _fault in FAULTS.items():
    _register(_name, _fault)
