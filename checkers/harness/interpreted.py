"""Checker programs that NumPy runs instead of XLA (checkers/interpret), and the traces
they are run from.

On the CPU a small float64 program is not compiled: its jaxpr (one trial's function,
traced once) is evaluated by NumPy on the whole batch, which over a corpus is several
times cheaper than XLA's compilation. `evaluate_trials` does the same for any function
of one trial (the derivation's hypothesis probe). A derivation's dry run traces the
program of the first dims draw of a check at the default seed and keeps it here
(`keep_dry_run`) for the check that follows.
"""

from __future__ import annotations

import importlib.metadata
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from checkers import interpret
from checkers.core import InputSpec
from checkers.harness.trials import TRACE_LOCK, input_dtype, same_sides, trial_function
from checkers.interpret import stored
from checkers.lazyjax import jax, jcore, jnp
from checkers.runtime import program_store
from checkers.runtime.jaxsetup import device_kind

# On the CPU, float64 programs whose batch of inputs holds at most this many
# numbers are compiled at LLVM optimisation level 0: they run in well under a
# millisecond either way, and XLA spends about a fifth less CPU time on the seed
# page. XLA's own (HLO) optimisations are the same at every level; only the
# order of some vectorised sums differs, which moved float64 results of the seed
# page by at most 1e-13 relative (the tolerance is 1e-10). Low-precision
# programs, and every program on a GPU, keep the default level.
SMALL_PROGRAM_ELEMENTS = 1 << 16

# Such small float64 programs, in batches of at most this many trials, are not compiled
# on the CPU at all: NumPy evaluates their jaxpr (interpret.py), which over a corpus is
# several times cheaper than XLA's compilation. `PROOFBRIDGE_INTERPRET=0` turns it off.
INTERPRET_MAX_BATCH = 64
# ... and only while no value one trial computes holds more than this many numbers (16 MB),
# nor its values at once more than this many bytes: the interpreter runs a batch a few
# trials at a time (interpret.BATCH_BYTES), so these bound what a batch holds at once
INTERPRET_MAX_ELEMENTS = 1 << 21
INTERPRET_MAX_TRIAL_BYTES = 128 * 2**20
INTERPRET_VARIABLE = "PROOFBRIDGE_INTERPRET"


def interpreting() -> bool:
    """Whether small CPU programs are interpreted ($PROOFBRIDGE_INTERPRET, on by default)."""
    return os.environ.get(INTERPRET_VARIABLE, "1").strip().lower() not in (
        "0",
        "false",
        "no",
        "off",
    )


# The jaxprs the derivations' dry runs traced (the program of the first dims draw of a check
# at the default seed), kept for the check that follows, so that it does not trace the
# statement again. Kept while their estimated size (constants, and each equation's objects)
# adds up to at most _DRY_RUNS_BUDGET bytes, the oldest forgotten first: deriving a whole
# page before checking it keeps every small statement's trace, never a pile of networks'.
_DRY_RUNS: OrderedDict[tuple[int, tuple[tuple[str, int], ...]], tuple[Any, Any, int]] = (
    OrderedDict()
)
_DRY_RUNS_BUDGET = 64 * 2**20
_EQUATION_BYTES = 2048  # a jaxpr equation's Python objects (its params, vars and avals)
_DRY_RUNS_LOCK = threading.Lock()


# The programs NumPy ran, by what they were built from (the checker's content identity,
# `program_store.checker_identity`, its dims and its inputs): a warm process checking a
# theorem again (another seed, another run) runs its kept program instead of tracing the
# statement again. Within the same budget as the dry runs, the least recently used
# forgotten first; a checker without an identity (a test double) is never kept.
_KEPT: OrderedDict[tuple[Any, ...], tuple[Any, dict[str, Any], int]] = OrderedDict()
_KEPT_BUDGET = 64 * 2**20


def _kept_key(checker: Any, dims: Mapping[str, int], specs: Mapping[str, InputSpec]) -> Any:
    identity = program_store.checker_identity(checker)
    if identity is None:
        return None
    return (
        identity,
        tuple(sorted(dims.items())),
        tuple(sorted((n, repr(s)) for n, s in specs.items())),
    )


def _store_key(key: tuple[Any, ...]) -> str | None:
    """The program store's key of a kept program's, None where it cannot be named (JAX's
    version unknown: no store)."""
    identity, dims, specs = key
    try:
        return program_store.interpreted_key(identity, dict(dims), dict(specs))
    except importlib.metadata.PackageNotFoundError:
        return None


def _kept_program(key: Any, checker: Any) -> Any | None:
    """The program kept under `key` in this process, else the one the program store holds
    (then kept here too), else None. What tracing it decided about its checker
    (`program_store.trace_facts`) is applied to `checker`."""
    with _DRY_RUNS_LOCK:
        kept = _KEPT.get(key)
        if kept is not None:
            _KEPT.move_to_end(key)
    if kept is None:
        kept = _stored_program(key)
    if kept is None:
        return None
    fn, facts, _ = kept
    program_store.apply_trace_facts(checker, facts)
    return fn


def _stored_program(key: Any) -> tuple[Any, dict[str, Any], int] | None:
    name = _store_key(key) if program_store.directory() is not None else None
    data = program_store.load_bytes(name) if name is not None else None
    if data is None:
        return None
    try:
        fn, facts = stored.loads(data)
    except Exception:  # a file this version cannot read is a miss: the program is traced
        return None
    steps = fn.steps
    size = sum(int(getattr(v, "nbytes", 0)) for v in steps.fixed.values())
    size += _EQUATION_BYTES * len(steps.steps)
    _keep_program(key, fn, facts, size)
    return fn, facts, size


def _store_program(key: Any, fn: interpret.Interpreted, facts: dict[str, Any]) -> None:
    """File the program in the program store (when it is on and the program has a plain
    form), so that a later process runs it without JAX."""
    name = _store_key(key) if program_store.directory() is not None else None
    if name is None:
        return
    try:
        data = stored.dumps(fn, facts)
    except stored.Unstorable:
        return
    program_store.save_bytes(name, data)


def _keep_program(key: Any, fn: Any, facts: dict[str, Any], size: int) -> None:
    if size > _KEPT_BUDGET:
        return
    with _DRY_RUNS_LOCK:
        _KEPT[key] = (fn, facts, size)
        held = sum(kept[2] for kept in _KEPT.values())
        while held > _KEPT_BUDGET:
            held -= _KEPT.popitem(last=False)[1][2]


def has_kept_program(checker: Any, dims: Mapping[str, int], specs: Mapping[str, InputSpec]) -> bool:
    """Whether a program of this checker at these dims was kept (in this process or in the
    program store): a derivation's dry run need not trace the statement to know that it
    evaluates, nor to decide what tracing decides about the checker (applied here)."""
    key = _kept_key(checker, dims, specs)
    return key is not None and _kept_program(key, checker) is not None


def trace_trial(checker: Any, dims: dict[str, int], specs: Mapping[str, InputSpec]) -> Any:
    """The closed jaxpr of one float64 trial of the checker's program: the function of
    (inputs by name, lane) the interpreter runs on a batch."""
    one = trial_function(checker, dims, "float64", specs)
    abstract = {n: jax.ShapeDtypeStruct(s.shape, input_dtype(s)) for n, s in specs.items()}
    with TRACE_LOCK, jax.disable_jit():
        return jax.make_jaxpr(one)(abstract, jax.ShapeDtypeStruct((), jnp.int64))


def keep_dry_run(checker: Any, dims: Mapping[str, int], closed: Any) -> None:
    """Keep a dry run's `trace_trial` for the check's program at the same dims, within
    the budget (a trace larger than the whole budget is not kept: the check traces it)."""
    size = trace_bytes(closed)
    if size > _DRY_RUNS_BUDGET:
        return
    with _DRY_RUNS_LOCK:
        _DRY_RUNS[(id(checker), tuple(sorted(dims.items())))] = (checker, closed, size)
        held = sum(kept[2] for kept in _DRY_RUNS.values())
        while held > _DRY_RUNS_BUDGET:
            held -= _DRY_RUNS.popitem(last=False)[1][2]


def trace_bytes(closed: Any) -> int:
    """An estimate of what a closed jaxpr holds: its constants' bytes and, for each
    equation (nested ones included), the Python objects describing it."""
    consts = sum(int(getattr(c, "nbytes", 0)) for c in closed.consts)
    return consts + _EQUATION_BYTES * sum(1 for _ in _equations(closed.jaxpr))


def _equations(jaxpr: Any) -> Any:
    for eqn in jaxpr.eqns:
        yield eqn
        for sub in jcore.jaxprs_in_params(eqn.params):
            yield from _equations(sub)


def _kept_dry_run(checker: Any, dims: Mapping[str, int]) -> Any | None:
    with _DRY_RUNS_LOCK:
        kept = _DRY_RUNS.pop((id(checker), tuple(sorted(dims.items()))), None)
    return kept[1] if kept is not None and kept[0] is checker else None


def drop_dry_runs(name: str) -> None:
    """Forget the kept dry runs of the theorem `name`: the check they were kept for is
    over, and one it did not run (another seed) never will be."""
    with _DRY_RUNS_LOCK:
        for key in [k for k, kept in _DRY_RUNS.items() if kept[0].name == name]:
            del _DRY_RUNS[key]


def _interpreted_here(dtype: str, specs: Mapping[str, InputSpec], batch: int) -> bool:
    """Whether a program of this dtype and batch is one NumPy would run."""
    if not interpreting() or dtype != "float64" or device_kind() != "cpu":
        return False
    return batch <= INTERPRET_MAX_BATCH and batch * sum(max(1, s.size) for s in specs.values()) <= (
        SMALL_PROGRAM_ELEMENTS
    )


def ready_interpreted_fn(
    checker: Any, dims: dict[str, int], dtype: str, specs: Mapping[str, InputSpec], batch: int
) -> tuple[interpret.Interpreted, float] | None:
    """`interpreted_fn`'s program when it needs no tracing (kept in this process or in
    the program store) and the seconds finding it took, else None. Never imports JAX
    on the CPU (`checkers.runtime.jaxsetup.device_kind`)."""
    if not _interpreted_here(dtype, specs, batch):
        return None
    start = time.perf_counter()
    key = _kept_key(checker, dims, specs)
    kept = _kept_program(key, checker) if key is not None else None
    return None if kept is None else (kept, time.perf_counter() - start)


def interpreted_fn(
    checker: Any, dims: dict[str, int], dtype: str, specs: Mapping[str, InputSpec], batch: int
) -> tuple[interpret.Interpreted, float] | None:
    """The checker's program as NumPy evaluates it (interpret.py), traced (the caller has
    looked for it with `ready_interpreted_fn`), and the seconds its trace took; or None
    when it should be compiled: not on the CPU, not float64, a large batch, or a
    primitive without a rule. Raises whatever tracing raises."""
    if not _interpreted_here(dtype, specs, batch):
        return None
    start = time.perf_counter()
    key = _kept_key(checker, dims, specs)
    closed = _kept_dry_run(checker, dims)
    if closed is None:
        closed = trace_trial(checker, dims, specs)
    same_sides([tuple(v.aval.shape) for v in closed.jaxpr.outvars[:2]])
    if interpret.interpretable(closed.jaxpr) is not None:
        return None
    if interpret.largest_value(closed.jaxpr) > INTERPRET_MAX_ELEMENTS:
        return None  # NumPy would hold what XLA fuses away (a conv's gathered windows)
    fn = interpret.Interpreted(closed, sorted(specs))
    if fn.steps.trial_bytes > INTERPRET_MAX_TRIAL_BYTES:
        return None
    if key is not None:
        facts = program_store.trace_facts(checker)
        _keep_program(key, fn, facts, trace_bytes(closed))
        _store_program(key, fn, facts)
    return fn, time.perf_counter() - start


def evaluate_trials(
    fn: Callable[[dict[str, Any]], Any], batch: Mapping[str, np.ndarray], trials: int
) -> np.ndarray:
    """`fn` (one trial's inputs by name -> one array) on each of `trials` trials of `batch`
    (arrays with a leading trial axis), traced once: interpreted by NumPy where a program
    would be (small, float64, on the CPU, every primitive with a rule), else its jaxpr
    compiled by XLA, vmapped over the trials."""
    names = sorted(batch)  # JAX flattens a dict by sorted key: the jaxpr's inputs
    args = [np.asarray(batch[n]) for n in names]
    abstract = {
        n: jax.ShapeDtypeStruct(x.shape[1:], x.dtype) for n, x in zip(names, args, strict=True)
    }
    with TRACE_LOCK, jax.disable_jit():
        closed = jax.make_jaxpr(fn)(abstract)
    elements = trials * sum(max(1, int(np.prod(a.shape))) for a in abstract.values())
    if (
        interpreting()
        and device_kind() == "cpu"
        and trials <= INTERPRET_MAX_BATCH
        and elements <= SMALL_PROGRAM_ELEMENTS
        and interpret.interpretable(closed.jaxpr) is None
        and interpret.largest_value(closed.jaxpr) <= INTERPRET_MAX_ELEMENTS
    ):
        with np.errstate(all="ignore"):
            (out,) = interpret.Steps(closed).run(args, batch=trials)
        return np.asarray(out)
    run = jcore.jaxpr_as_fun(closed)
    return np.asarray(jax.jit(jax.vmap(lambda *xs: run(*xs)[0], axis_size=trials))(*args))
