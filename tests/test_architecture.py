"""The layout ARCHITECTURE.md describes, read from the sources: no import circle anywhere,
imports in one direction between packages and between the layers of `checkers`, and no
module past `MAX_LINES` lines.

Every import counts: at module level, inside functions, and under `TYPE_CHECKING`.
`from pkg import sub` imports the submodule `pkg.sub`; `from pkg import name` imports
`pkg` itself (its `__init__`, the facade). Importing a submodule runs its package's
`__init__` too, but a facade that imports its own submodules is no circle unless one of
them imports the facade back, so that implicit step is not an edge here.

    python -m pytest tests/test_architecture.py
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "checkers", "theorem_index")
PACK = REPO / "packs" / "lean4_mlir"
MAX_LINES = 420

# the packages in the one direction they import: each imports only those after it
DIRECTION = ("proofbridge_lean4_mlir", "app", "checkers", "theorem_index")
# the subpackages of `checkers`, each importing only those after it (and the base modules)
LAYERS = (
    "analysis",
    "statements",
    "premises",
    "library",
    "exact",
    "evaluator",
    "language",
    "harness",
    "registry",
    "inputs",
    "confirm",
    "interpret",
    "runtime",
)
BASE = ("checkers.core", "checkers.result", "checkers.tolerance", "checkers.lazyjax")


def _sources() -> Iterator[tuple[Path, Path]]:
    """(root, file) for every Python module of the packages and the pack."""
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            yield REPO, path
    for path in sorted((PACK / "proofbridge_lean4_mlir").rglob("*.py")):
        yield PACK, path


def _name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def graph() -> dict[str, set[str]]:
    """Module -> the modules of the tree it imports."""
    files = {_name(root, path): path for root, path in _sources()}
    edges: dict[str, set[str]] = {m: set() for m in files}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names
                ]
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != module:
                    edges[module].add(target)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _rank(order: tuple[str, ...], module: str, prefix: str = "") -> int | None:
    for k, name in enumerate(order):
        full = prefix + name
        if module == full or module.startswith(full + "."):
            return k
    return None


def test_no_import_circle() -> None:
    assert circles(graph()) == []


def test_circles_are_found() -> None:
    # the check itself: a circle of three, and one through a facade
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"p": {"p.x"}, "p.x": {"p"}}) == [["p", "p.x"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_packages_import_in_one_direction() -> None:
    against = [
        f"{m} -> {t}"
        for m, targets in graph().items()
        for t in targets
        if (rm := _rank(DIRECTION, m)) is not None
        and (rt := _rank(DIRECTION, t)) is not None
        and rt < rm
    ]
    assert against == []


def test_the_pack_imports_the_pack_api_alone() -> None:
    outside = sorted(
        f"{m} -> {t}"
        for m, targets in graph().items()
        if m.startswith("proofbridge_lean4_mlir")
        for t in targets
        if t.startswith("checkers") and t != "checkers.pack"
    )
    assert outside == []


def test_checkers_layers_import_downwards() -> None:
    against = []
    for m, targets in graph().items():
        rm = _rank(LAYERS, m, "checkers.")
        for t in targets:
            rt = _rank(LAYERS, t, "checkers.")
            if rm is None or t in BASE or not t.startswith("checkers."):
                continue
            if rt is None or rt < rm:
                against.append(f"{m} -> {t}")
    assert sorted(against) == []


def test_every_checkers_module_has_its_place() -> None:
    top = {m for m in graph() if m.startswith("checkers.") and m.count(".") == 1}
    placed = {f"checkers.{layer}" for layer in LAYERS}
    # the facade, the base, the pack API, and the deprecated names
    others = {*BASE, "checkers.pack", "checkers._aliases", "checkers.derived"}
    assert top - placed - others == set()


@pytest.mark.parametrize(
    "root_and_path", list(_sources()), ids=lambda rp: str(rp[1].relative_to(REPO))
)
def test_no_module_is_past_the_limit(root_and_path: tuple[Path, Path]) -> None:
    _, path = root_and_path
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(REPO)}: {lines} lines (split it by idea)"


def test_every_facade_names_its_public_parts() -> None:
    def imports(path: Path) -> bool:
        tree = ast.parse(path.read_text())
        return any(isinstance(n, ast.Import | ast.ImportFrom) for n in tree.body)

    missing = [
        _name(root, path)
        for root, path in _sources()
        if path.name == "__init__.py" and imports(path) and "__all__" not in path.read_text()
    ]
    assert missing == []
