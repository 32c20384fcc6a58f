"""The import paths that moved when `checkers` was grouped into subpackages still work,
deprecated: each gives the module itself and warns, naming the new path."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from checkers._aliases import MOVED

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_path_is_the_new_module_and_warns(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught)


def test_a_pack_written_against_the_old_paths_still_loads() -> None:
    # what a vocabulary pack imported before `checkers.pack` existed, in a fresh process
    code = (
        "import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
        "import checkers\n"
        "warnings.simplefilter('default', DeprecationWarning)\n"
        "from checkers.derived.values import Arr, Builtin\n"
        "from checkers.derived import lax_ops as L, total as T\n"
        "from checkers.derived.coercion import coerce\n"
        "from checkers.registered import lean\n"
        "import checkers.pack as api\n"
        "assert Builtin is api.Builtin and Arr is api.Arr and coerce is api.coerce\n"
        "assert L is api.lax_ops and T is api.total\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    assert "checkers.derived.values is deprecated: import checkers.language.values" in out.stderr


def test_importing_checkers_itself_warns_of_nothing() -> None:
    out = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", "import checkers"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
