"""Compiled checker programs: built once per (checker, dims, dtype, batch), cached, stored.

For each (checker, dims, dtype, batch size) the checker's function is vmapped
over a batch of consecutive trials and compiled once, ahead of time, and kept
in a process-wide cache (and in JAX's persistent cache when one is configured),
so later checks, shrinking and `repro` reuse it.

Tracing and lowering (Python, under the GIL) happen in the calling thread;
XLA's compilation, the larger part, runs in worker threads, so that the dims
draws of a check are traced one after another while the earlier ones compile.
Small programs are compiled at LLVM optimisation level 0 (`compiler_options`).
A program returns, per trial, (lhs, rhs, scale, underflow, held): the sides,
the measures the comparison uses (0 when the checker gives none) and whether
the checker's per-trial hypotheses held (1 when it has none).
With the persistent cache on, a program of a project checker is loaded from
the program store (`program_store`) without tracing at all.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from checkers.core import InputSpec
from checkers.harness.interpreted import (
    SMALL_PROGRAM_ELEMENTS,
    interpreted_fn,
    ready_interpreted_fn,
)
from checkers.harness.trials import (
    TRACE_LOCK,
    input_dtype,
    same_sides,
    trial_function,
)
from checkers.lazyjax import jax, jnp
from checkers.runtime import program_store
from checkers.runtime.jaxsetup import device_kind

MEMORY_BUDGET_BYTES = 256 * 2**20  # inputs of one batch
# the scratch memory XLA may plan for one run of a program: a program that needs more
# (a whole network's rendered graph at a large dims draw) is compiled again for a
# smaller batch and run over the same trials in parts
TEMP_BUDGET_BYTES = 256 * 2**20
MAX_BATCH = 1024
_PROGRAM_CACHE_SIZE = 256


@dataclass
class Program:
    checker: Any  # kept alive so that id(checker) in the cache key stays unique
    batch: int
    fn: Callable[..., Any]
    compile_s: float  # trace + lower + XLA compile (or loading from the program store)
    trace_s: float = 0.0  # tracing and lowering, in the thread that asked for the program
    xla_s: float = 0.0  # XLA's compilation (JAX's persistent cache may have served it)
    source: str = "compiled"  # 'compiled', 'store' or 'interpreted' (NumPy, not compiled)
    # what it was built from, to build it again when a stored program fails to run
    origin: tuple[dict[str, int], str, dict[str, InputSpec]] | None = None
    store_key: str | None = None

    # the batch the program was asked for, when it was compiled for a smaller one (`part`)
    outer: int | None = None

    def __call__(self, inputs: Mapping[str, np.ndarray]) -> tuple[np.ndarray, ...]:
        # as many trials as the inputs hold (the whole batch asked for, without inputs)
        n = next((len(v) for v in inputs.values()), self.outer or self.batch)
        if n > self.batch:
            parts = [
                self._run({k: v[k0 : k0 + self.batch] for k, v in inputs.items()})
                for k0 in range(0, n, self.batch)
            ]
            return tuple(np.concatenate([p[j] for p in parts]) for j in range(len(parts[0])))
        return self._run(inputs)

    def _run(self, inputs: Mapping[str, np.ndarray]) -> tuple[np.ndarray, ...]:
        # the lane numbers give vmap a batch axis even for a statement without inputs
        outs = self.fn(dict(inputs), np.arange(self.batch, dtype=np.int64))
        return tuple(np.asarray(o, dtype=np.float64) for o in outs)


ProgramKey = tuple[Any, ...]

_PROGRAMS: OrderedDict[ProgramKey, Program] = OrderedDict()
_PENDING: dict[ProgramKey, Future[Program]] = {}
_PROGRAMS_LOCK = threading.Lock()
_POOL: ThreadPoolExecutor | None = None


def clear_program_cache() -> None:
    """Forget every compiled program of this process (the on-disk store is untouched)."""
    with _PROGRAMS_LOCK:
        _PROGRAMS.clear()


_COMPILE_THREADS: int | None = None


def compile_workers() -> int:
    """Threads that run XLA compilations: as `set_compile_threads` said, else one per
    core, at most 4 (XLA releases the GIL)."""
    if _COMPILE_THREADS is not None:
        return _COMPILE_THREADS
    return max(1, min(4, os.cpu_count() or 1))


def set_compile_threads(threads: int) -> None:
    """Run this process's XLA compilations on `threads` threads from now on: a check
    worker that shares the cores with others gains nothing from more, and each
    compilation in flight holds its own memory (hundreds of MB for a whole network)."""
    global _COMPILE_THREADS, _POOL
    if threads < 1:
        raise ValueError(f"compile threads must be at least 1, not {threads}")
    with _PROGRAMS_LOCK:
        _COMPILE_THREADS = threads
        old, _POOL = _POOL, None
    if old is not None:
        old.shutdown(wait=True)  # what it was compiling finishes; new work goes to the new pool


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _PROGRAMS_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(compile_workers(), thread_name_prefix="checker-compile")
        return _POOL


def batch_size(specs: Mapping[str, InputSpec], trials: int) -> int:
    per_trial = max(8, sum(8 * s.size for s in specs.values()))
    cap = max(1, min(MAX_BATCH, MEMORY_BUDGET_BYTES // per_trial))
    want = 1 << max(0, (trials - 1).bit_length())
    size = 1 << (cap.bit_length() - 1)
    return min(want, size)


def compiler_options(specs: Mapping[str, InputSpec], batch: int, dtype: str) -> dict[str, Any]:
    """XLA options for one program (part of every cache key)."""
    elements = batch * sum(max(1, s.size) for s in specs.values())
    if dtype == "float64" and elements <= SMALL_PROGRAM_ELEMENTS and device_kind() == "cpu":
        return {"xla_backend_optimization_level": 0}
    return {}


def lower(
    checker: Any, dims: dict[str, int], dtype: str, specs: Mapping[str, InputSpec], batch: int
) -> Any:
    """Trace and lower the vmapped checker function in `dtype`, taking float64 inputs."""
    one = trial_function(checker, dims, dtype, specs, compiled=True)
    abstract = {
        n: jax.ShapeDtypeStruct((batch, *s.shape), input_dtype(s)) for n, s in specs.items()
    }
    lanes = jax.ShapeDtypeStruct((batch,), jnp.int64)
    with TRACE_LOCK:  # a program compiled again for a part of its batch traces in a worker
        lowered = jax.jit(jax.vmap(one)).lower(abstract, lanes)
    same_sides([tuple(o.shape[1:]) for o in jax.tree_util.tree_leaves(lowered.out_info)])
    return lowered


def interpreted_program(
    checker: Any,
    dims: dict[str, int],
    dtype: str,
    specs: Mapping[str, InputSpec],
    batch: int,
    trace: bool = True,
) -> Program | None:
    """The checker's program evaluated by NumPy (interpreted.py): kept or stored (without
    `trace`), or traced (with it, once that found none); None when it should be compiled
    or, without `trace`, when it cannot be had without tracing. Raises whatever tracing
    raises, as `lower` does."""
    find = interpreted_fn if trace else ready_interpreted_fn
    got = find(checker, dims, dtype, specs, batch)
    if got is None:
        return None
    fn, trace_s = got
    return Program(checker, batch, fn, trace_s, trace_s=trace_s, source="interpreted")


def finish_compile(
    checker: Any,
    batch: int,
    lowered: Any,
    options: dict[str, Any],
    trace_s: float,
    store_key: str | None,
    relower: Callable[[int], tuple[Any, dict[str, Any]]] | None = None,
) -> Program:
    """XLA's part (run in a worker thread); files the executable in the program store.
    A program whose scratch memory is over `TEMP_BUDGET_BYTES` is compiled again for the
    largest smaller batch that fits, when `relower` (a batch -> lowered program and its
    options) is given, and runs the batch it was asked for in parts."""
    start = time.perf_counter()
    compiled, from_jax_cache = program_store.compile_watched(
        lambda: lowered.compile(compiler_options=options or None)
    )
    part = _part_batch(compiled, batch) if relower is not None else batch
    if part < batch:
        assert relower is not None
        lowered, options = relower(part)
        compiled = lowered.compile(compiler_options=options or None)
        xla_s = time.perf_counter() - start
        return Program(
            checker, part, compiled, trace_s + xla_s, trace_s=trace_s, xla_s=xla_s, outer=batch
        )
    xla_s = time.perf_counter() - start
    if store_key is not None and not from_jax_cache:
        program_store.save(store_key, compiled)
    return Program(
        checker, batch, compiled, trace_s + xla_s, trace_s=trace_s, xla_s=xla_s, store_key=store_key
    )


def _part_batch(compiled: Any, batch: int) -> int:
    """The largest power-of-two part of `batch` whose run fits `TEMP_BUDGET_BYTES`
    (scratch memory grows with the batch), or `batch` itself when it fits."""
    try:
        temp = int(compiled.memory_analysis().temp_size_in_bytes)
    except Exception:  # no analysis on this backend: run as compiled
        return batch
    part = batch
    while part > 1 and temp * part // batch > TEMP_BUDGET_BYTES:
        part //= 2
    return part


@dataclass
class PendingCompile:
    """A program traced and lowered, its XLA compilation not yet started (`submit`)."""

    key: ProgramKey
    checker: Any
    batch: int
    lowered: Any
    options: dict[str, Any]
    trace_s: float
    store_key: str | None
    relower: Callable[[int], tuple[Any, dict[str, Any]]]

    def submit(self) -> Future[Program]:
        """Compile in a worker thread (or join the compilation of the same key under way)."""
        key = self.key
        pool = _pool()
        with _PROGRAMS_LOCK:
            prog = _PROGRAMS.get(key)
            if prog is not None:
                done: Future[Program] = Future()
                done.set_result(prog)
                return done
            pending = _PENDING.get(key)
            if pending is not None:
                return pending
            future = pool.submit(
                finish_compile,
                self.checker,
                self.batch,
                self.lowered,
                self.options,
                self.trace_s,
                self.store_key,
                self.relower,
            )
            _PENDING[key] = future

        def settle(done: Future[Program]) -> None:
            # one step under the lock: between leaving the pending table and entering the
            # cache, a lookup would find neither and take the file just stored for a load
            with _PROGRAMS_LOCK:
                _PENDING.pop(key, None)
                if not done.cancelled() and done.exception() is None:
                    _cache(key, done.result())

        future.add_done_callback(settle)
        return future


def trace_program(
    key: ProgramKey,
    checker: Any,
    dims: dict[str, int],
    dtype: str,
    specs: Mapping[str, InputSpec],
    batch: int,
) -> Program | Future[Program] | PendingCompile:
    """A program from this process's cache, the program store or the interpreter, a
    compilation under way, or one traced and lowered here that still has to be compiled
    (`PendingCompile.submit`, which hands XLA's part to a worker thread, so that the
    next dims draw can be traced while this one compiles). Tracing and lowering happen
    here, in the calling thread (JAX traces under the GIL). Raises whatever tracing
    raises."""
    with _PROGRAMS_LOCK:
        prog = _PROGRAMS.get(key)
        if prog is not None:
            _PROGRAMS.move_to_end(key)
            return prog
        pending = _PENDING.get(key)
        if pending is not None:
            return pending
    prog = interpreted_program(checker, dims, dtype, specs, batch, trace=False)
    if prog is not None:  # no tracing, and on the CPU no JAX
        _remember(key, prog)
        return prog
    options = compiler_options(specs, batch, dtype)
    identity = program_store.checker_identity(checker)
    store_key = None
    if identity is not None and program_store.directory() is not None:
        store_key = program_store.program_key(identity, dims, dtype, batch, specs, options)
        start = time.perf_counter()
        loaded = program_store.load(store_key)
        if loaded is not None:
            prog = Program(
                checker,
                batch,
                loaded,
                time.perf_counter() - start,
                source="store",
                origin=(dict(dims), dtype, dict(specs)),
                store_key=store_key,
            )
            _remember(key, prog)
            return prog
    prog = interpreted_program(checker, dims, dtype, specs, batch)
    if prog is not None:
        _remember(key, prog)
        return prog
    start = time.perf_counter()
    lowered = lower(checker, dims, dtype, specs, batch)
    return PendingCompile(
        key,
        checker,
        batch,
        lowered,
        options,
        time.perf_counter() - start,
        store_key,
        lambda part: (
            lower(checker, dims, dtype, specs, part),
            compiler_options(specs, part, dtype),
        ),
    )


def recompile(prog: Program) -> Program:
    """A fresh compilation of what a stored program was built from (its file replaced)."""
    assert prog.origin is not None
    dims, dtype, specs = prog.origin
    if prog.store_key is not None:
        program_store.discard(prog.store_key)
    start = time.perf_counter()
    lowered = lower(prog.checker, dims, dtype, specs, prog.batch)
    options = compiler_options(specs, prog.batch, dtype)
    return finish_compile(
        prog.checker, prog.batch, lowered, options, time.perf_counter() - start, prog.store_key
    )


def _remember(key: ProgramKey, prog: Program) -> None:
    with _PROGRAMS_LOCK:
        _cache(key, prog)


def _cache(key: ProgramKey, prog: Program) -> None:
    """Enter `prog` in this process's cache; the caller holds `_PROGRAMS_LOCK`."""
    _PROGRAMS[key] = prog
    _PROGRAMS.move_to_end(key)
    while len(_PROGRAMS) > _PROGRAM_CACHE_SIZE:
        _PROGRAMS.popitem(last=False)
