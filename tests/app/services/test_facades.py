"""The services' package facades: each name in `__all__` is the object of the module the
package's `TYPE_CHECKING` imports name, and importing the packages imports none of their
modules (so none of the checkers, JAX, the readers or the Lean parser)."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys

import pytest
from db_support import REPO

PACKAGES = ("ci", "coverage", "ingestion", "reading", "runs")


def _typed_homes(package: str) -> dict[str, str]:
    """Each name the facade imports for type checkers, and the module it imports it from."""
    tree = ast.parse((REPO / "app" / "services" / package / "__init__.py").read_text())
    return {
        alias.name: node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module != "typing"
        if node.module.startswith(f"app.services.{package}.")
        for alias in node.names
    }


@pytest.mark.parametrize("package", PACKAGES)
def test_facade_gives_each_name_from_its_module(package: str) -> None:
    facade = importlib.import_module(f"app.services.{package}")
    homes = _typed_homes(package)

    assert sorted(homes) == sorted(facade.__all__)
    for name, module in homes.items():
        assert getattr(facade, name) is getattr(importlib.import_module(module), name), name
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        facade.nothing_here  # noqa: B018


def test_importing_the_facades_imports_none_of_their_modules() -> None:
    script = (
        "import json, sys\n"
        f"for p in {PACKAGES!r}: __import__('app.services.' + p)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('app.services.'))))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )

    expected = [f"app.services.{p}" for p in PACKAGES]
    assert json.loads(proc.stdout) == sorted(expected)
