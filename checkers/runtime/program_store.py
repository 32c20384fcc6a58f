"""Compiled checker programs on disk, keyed by what they were built from.

JAX's persistent compilation cache skips XLA's compilation, but its key is the
lowered program, so every process still traces the checker and lowers it
before it can look. For the checkers whose code is part of this project (the
derived checkers and the registered checkers of `proofbridge_lean4_mlir.registered`) the
harness can name a program without tracing it: the checker's content identity
(a derived checker's version hashes its statement and every definition it
uses; a registered checker's registration is its repr), the dims, dtype, batch
and inputs, the source of the `checkers` and `theorem_index` packages, and the
JAX version, backend, device and compiler options. Under that key the store
keeps the serialized executable (`jax.experimental.serialize_executable`),
so a later process loads it in milliseconds.

Any change to the project's sources, to JAX or to the device gives new keys;
stale files are never read again (delete the directory to reclaim the space).
A checker defined elsewhere (tests, plugins) has no such identity and is only
ever cached by JAX itself. Loading a stored program unpickles it: the
directory must be writable only by the service, like JAX's own cache.

The store lives in `<cache dir>/proofbridge-programs`, next to JAX's cache, and
is on exactly when the persistent cache is (`$PROOFBRIDGE_JAX_CACHE_DIR`, or
`configure_compilation_cache(path)`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import os
import pickle
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from checkers.lazyjax import jax
from checkers.tolerance import validate_override

FORMAT = 1
SUBDIRECTORY = "proofbridge-programs"
_PACKAGES = ("checkers", "theorem_index")
# the top-level packages of the installed checker packs (checkers.registry.packs): their
# registered checkers' programs are stored too, their sources hashed with the project's
_PACK_PACKAGES: set[str] = set()

_directory: str | None = None


def set_directory(cache_dir: str | None) -> None:
    """Use `<cache_dir>/proofbridge-programs` (None: the store is off)."""
    global _directory
    _directory = None if cache_dir is None else os.path.join(cache_dir, SUBDIRECTORY)


def directory() -> str | None:
    return _directory


def add_pack_package(package: str) -> None:
    """Store the programs of the registered checkers defined under `package` (a checker
    or vocabulary pack's top-level package or module, loaded before any check), its
    sources in `source_hash`: a pack changed gives its programs new keys."""
    _PACK_PACKAGES.add(package)
    source_hash.cache_clear()


def _hash_tree(h: Any, root: Path, package: Path) -> None:
    for path in sorted(package.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")


@functools.cache
def source_hash() -> str:
    """A hash of every Python source file of the packages a checker's program depends on."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for package in _PACKAGES:
        _hash_tree(h, root, root / package)
    for package in sorted(_PACK_PACKAGES):
        spec = importlib.util.find_spec(package)
        if spec is None:
            continue
        for place in spec.submodule_search_locations or ():
            _hash_tree(h, Path(place).resolve().parent, Path(place).resolve())
        if not spec.submodule_search_locations and spec.origin and spec.origin.endswith(".py"):
            module = Path(spec.origin).resolve()  # a pack that is one module, not a package
            h.update(f"{package}.py".encode() + b"\0" + module.read_bytes() + b"\0")
    return h.hexdigest()


@functools.cache
def platform_key() -> str:
    """JAX, the backend and its device, and the flags that change what XLA produces."""
    import jaxlib

    device = jax.devices()[0]
    backend = device.client
    parts = (
        f"jax={jax.__version__}",
        f"jaxlib={jaxlib.__version__}",
        f"platform={backend.platform}",
        f"platform_version={backend.platform_version}",
        f"device={device.device_kind}",
        f"x64={jax.config.read('jax_enable_x64')}",
        f"xla_flags={os.environ.get('XLA_FLAGS', '')}",
        f"python={sys.version_info[0]}.{sys.version_info[1]}",
    )
    return "|".join(parts)


def _inside_project(module_name: str) -> bool:
    return any(
        module_name == p or module_name.startswith(p + ".") for p in (*_PACKAGES, *_PACK_PACKAGES)
    )


def checker_identity(checker: Any) -> str | None:
    """What a checker's programs are built from, or None when that cannot be known without tracing.

    A derived checker (`checkers.statements`) is named by its program identity, which
    hashes its declaration, the definitions it uses and the clause and binder plan it
    evaluates (the clauses of one theorem differ there), and by those definitions' names;
    a registered checker of this project or of an installed checker pack by its
    registration (`repr`). Any other checker (a test double) has no identity here.
    """
    kind = getattr(checker, "kind", None)
    if kind == "derived" and type(checker).__module__.startswith("checkers.statements"):
        deps = ",".join(getattr(checker, "dependencies", ()) or ())
        identity = getattr(checker, "program_identity", None) or checker.version
        return f"derived|{checker.name}|{identity}|{deps}"
    if kind == "registered":
        function = getattr(checker, "function", None)
        module = getattr(function, "__module__", "") or ""
        if function is None or not _inside_project(module):
            return None
        return f"registered|{checker!r}"
    return None


def program_key(
    identity: str,
    dims: Mapping[str, int],
    dtype: str,
    batch: int,
    specs: Mapping[str, Any],
    compiler_options: Mapping[str, Any],
) -> str:
    """The full text a stored program is filed under (its hash names the file)."""
    parts = (
        f"format={FORMAT}",
        platform_key(),
        f"source={source_hash()}",
        identity,
        f"dims={sorted((str(k), int(v)) for k, v in dims.items())}",
        f"dtype={dtype}",
        f"batch={batch}",
        f"specs={sorted((str(k), repr(v)) for k, v in specs.items())}",
        f"options={sorted(compiler_options.items())}",
    )
    return "\n".join(parts)


def trace_facts(checker: Any) -> dict[str, Any]:
    """What tracing a derived checker's program decided about the checker itself: the
    tolerance `EXACT` of sides it found exact (checkers.statements.checker). Kept with an
    interpreted program, and applied by `apply_trace_facts` wherever the program is run
    without tracing, so that the check compares as the traced one did. (A compiled
    program is never run untraced by a checker that was not: the derivation's dry run
    traces the sides wherever programs are compiled.)"""
    tolerance = getattr(checker, "tolerance", None)
    if getattr(checker, "kind", None) != "derived" or tolerance is None:
        return {}
    return {"tolerance": {"atol": tolerance.atol, "rtol": tolerance.rtol}}


def apply_trace_facts(checker: Any, facts: Mapping[str, Any]) -> None:
    """Decide about `checker` what tracing its program decided (`trace_facts`)."""
    tolerance = facts.get("tolerance")
    if tolerance is not None and getattr(checker, "kind", None) == "derived":
        checker.tolerance = validate_override(tolerance)


def interpreted_key(identity: str, dims: Mapping[str, int], specs: Mapping[str, Any]) -> str:
    """The key of a program NumPy runs (`checkers.interpret.stored`): one trial's
    flattened jaxpr, whatever the batch, named without importing JAX (its version read
    from the installed package, since the jaxpr is what that version traced)."""
    loaded = sys.modules.get("jax")
    jax_version = loaded.__version__ if loaded is not None else importlib.metadata.version("jax")
    parts = (
        "format=interpreted-1",
        f"jax={jax_version}",
        f"python={sys.version_info[0]}.{sys.version_info[1]}",
        f"source={source_hash()}",
        identity,
        f"dims={sorted((str(k), int(v)) for k, v in dims.items())}",
        f"specs={sorted((str(k), repr(v)) for k, v in specs.items())}",
    )
    return "\n".join(parts)


def load_bytes(key: str) -> bytes | None:
    """What `save_bytes` filed under `key`, or None (missing, unreadable or foreign)."""
    path = _path(key)
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head, _, payload = data.partition(b"\0")
    return payload if head == hashlib.sha256(key.encode()).hexdigest().encode() else None


def save_bytes(key: str, payload: bytes) -> bool:
    """File `payload` under `key` (written whole, then renamed into place)."""
    path = _path(key)
    if path is None:
        return False
    head = hashlib.sha256(key.encode()).hexdigest().encode() + b"\0"
    try:
        _write_whole(path, head + payload)
    except OSError:
        return False
    return True


def _write_whole(path: Path, data: bytes) -> None:
    """Write `data` to a file beside `path`, then rename it into place: a reader finds the
    old file, the new one whole, or none."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".bin")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _path(key: str) -> Path | None:
    if _directory is None:
        return None
    return Path(_directory) / (hashlib.sha256(key.encode()).hexdigest() + ".bin")


def load(key: str) -> Any | None:
    """The stored executable (a `jax.stages.Compiled`) for `key`, or None.

    A missing, unreadable or foreign file is a miss, never an error.
    """
    path = _path(key)
    if path is None or not path.is_file():
        return None
    from jax.experimental import serialize_executable

    try:
        with open(path, "rb") as f:
            record = pickle.load(f)
        if not isinstance(record, dict) or record.get("key") != key:
            return None
        return serialize_executable.deserialize_and_load(
            record["payload"], record["in_tree"], record["out_tree"]
        )
    except Exception:
        return None


def discard(key: str) -> None:
    """Remove the program filed under `key`, if any."""
    path = _path(key)
    if path is not None:
        try:
            path.unlink()
        except OSError:
            pass


# An executable that JAX itself loaded from its persistent cache cannot be filed
# again: with jaxlib 0.10 on the CPU, serializing such an executable a second
# time leaves out compiled kernels, and a later process that loads it fails with
# "NOT_FOUND: Function ... not found". So a compilation is watched for JAX's
# cache-hit event (in the thread that compiles), and what JAX served is not filed;
# the next process finds it in JAX's cache instead. If a filed program fails to
# run all the same, the harness discards it and compiles afresh (`checkers.harness.batches`).
_JAX_CACHE_HIT = "/jax/compilation_cache/cache_hits"
_watch = threading.local()
_listening = False
_listen_lock = threading.Lock()


def _on_event(event: str, **_: Any) -> None:
    seen = getattr(_watch, "events", None)
    if seen is not None:
        seen.append(event)


def compile_watched(compile: Callable[[], Any]) -> tuple[Any, bool]:
    """Run `compile()`; also say whether JAX's persistent cache served it."""
    global _listening
    with _listen_lock:
        if not _listening:
            jax.monitoring.register_event_listener(_on_event)
            _listening = True
    _watch.events = []
    try:
        compiled = compile()
        return compiled, _JAX_CACHE_HIT in _watch.events
    finally:
        _watch.events = None


def save(key: str, compiled: Any) -> bool:
    """File a compiled executable under `key`; False when it cannot be serialized or written."""
    path = _path(key)
    if path is None:
        return False
    from jax.experimental import serialize_executable

    try:
        payload, in_tree, out_tree = serialize_executable.serialize(compiled)
        record = {"key": key, "payload": payload, "in_tree": in_tree, "out_tree": out_tree}
        _write_whole(path, pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:
        return False
    return True
