"""Check runs: the theorems a run covers, queueing it, executing it in chunks (in this
process, in worker processes of this machine, or by Celery workers), recording its
results, and finishing, cancelling or reconciling it.

- `selection`: which theorems a run covers, and the parameters it runs with
- `queueing`: a run queued for execution (`POST /runs`, the webhooks)
- `lifecycle`: planning a run into chunks, finishing, cancelling, reconciling it
- `execution`: executing one chunk, the task code Celery workers and `runner` share
- `runner`: the in-process runner, where no broker is configured
- `checks`: a run created and executed in one process (the CLI's `check`)
- `repro`: describing a theorem's checker; replaying a recorded trial
- `recording`: result rows, counterexamples and dependencies
- `parallel`, `check_worker`, `forked`: checking in several processes of this machine
- `warm`: a process's checkers and environment, loaded once
- `timeouts`: the time limits of one check, and the heartbeat's watchdog
- `presence`: whether the broker answers, and which workers it has seen
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.services.runs.checks import (
        RunOutcome,
        build_environment,
        create_run,
        execute_run,
        load_backend,
        run_checks,
    )
    from app.services.runs.execution import Limits, execute_chunk
    from app.services.runs.lifecycle import (
        ACTIVE_RUN_STATUSES,
        cancel_run,
        finish_run,
        plan_run,
        reconcile,
        unfinished_chunks,
    )
    from app.services.runs.queueing import (
        IdempotencyConflict,
        UncheckableNames,
        lock_runs,
        queue_run,
    )
    from app.services.runs.repro import Replay, describe_theorem, replay
    from app.services.runs.runner import API_TRIGGER, InProcessRunner
    from app.services.runs.selection import (
        CheckParams,
        SelectionError,
        UnknownDims,
        select_theorems,
    )
    from app.services.runs.warm import WarmChecker, WarmEnvironment, declarations_fingerprint
else:
    from theorem_index.lazy import lazy_exports

    __getattr__ = lazy_exports(
        __name__,
        {
            "checks": [
                "RunOutcome",
                "build_environment",
                "create_run",
                "execute_run",
                "load_backend",
                "run_checks",
            ],
            "execution": ["Limits", "execute_chunk"],
            "lifecycle": [
                "ACTIVE_RUN_STATUSES",
                "cancel_run",
                "finish_run",
                "plan_run",
                "reconcile",
                "unfinished_chunks",
            ],
            "queueing": ["IdempotencyConflict", "UncheckableNames", "lock_runs", "queue_run"],
            "repro": ["Replay", "describe_theorem", "replay"],
            "runner": ["API_TRIGGER", "InProcessRunner"],
            "selection": ["CheckParams", "SelectionError", "UnknownDims", "select_theorems"],
            "warm": ["WarmChecker", "WarmEnvironment", "declarations_fingerprint"],
        },
    )

__all__ = [
    "ACTIVE_RUN_STATUSES",
    "API_TRIGGER",
    "CheckParams",
    "IdempotencyConflict",
    "InProcessRunner",
    "Limits",
    "Replay",
    "RunOutcome",
    "SelectionError",
    "UncheckableNames",
    "UnknownDims",
    "WarmChecker",
    "WarmEnvironment",
    "build_environment",
    "cancel_run",
    "create_run",
    "declarations_fingerprint",
    "describe_theorem",
    "execute_chunk",
    "execute_run",
    "finish_run",
    "load_backend",
    "lock_runs",
    "plan_run",
    "queue_run",
    "reconcile",
    "replay",
    "run_checks",
    "select_theorems",
    "unfinished_chunks",
]
