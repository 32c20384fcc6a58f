"""Vocabulary packs load through `importlib.metadata` entry points (plugins.py).

Each test lays out a distribution as an installer would (a package and its
`*.dist-info` with `entry_points.txt`) in a temporary folder, puts that folder on
the path of a fresh interpreter, and imports the checkers there: nothing is
installed, and the real entry-point machinery finds the pack.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from checkers.language.values import Builtin
from checkers.library.plugins import GROUP, Pack, VocabularyError, build_library, load_packs
from checkers.library.semantics import LIBRARY, VOCABULARY_NAMES

ROOT = Path(__file__).resolve().parents[3]

PACK = """
import jax.numpy as jnp

from checkers.language.values import Arr, Builtin


def _golden(ev, args):
    return Arr(jnp.asarray((1 + 5 ** 0.5) / 2, ev.ctx.dtype), "real")


GOLDEN = Builtin("Team.golden", 0, _golden, implicit=0)
BUILTINS = (GOLDEN,)


def pack():
    return BUILTINS
"""


def _distribution(site: Path, dist: str, module: str, source: str, entry_points: str) -> None:
    """A distribution as pip leaves it in site-packages: its module and its dist-info."""
    (site / f"{module}.py").write_text(textwrap.dedent(source))
    info = site / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{textwrap.dedent(entry_points)}")


def _run(site: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT), env.get("PYTHONPATH", "")])
    env["JAX_PLATFORMS"] = "cpu"
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


EVALUATE = """
    import json
    import sys

    sys.path.insert(0, "tests/checkers")
    from derived_support import environment, theorem, value

    from checkers.analysis.coverage import blocker

    from checkers.library.plugins import load_packs
    from checkers.library.semantics import LIBRARY, VOCABULARY_NAMES

    packs = {p.entry_point: [p.distribution, [b.name for b in p.builtins]] for p in load_packs()}
    print(json.dumps({
        "packs": packs,
        "value": float(value("(Team.golden : ℝ) ^ 2 - Team.golden")),
        "recorded": "Team.golden" in VOCABULARY_NAMES,
        "proofs": "Proofs.dense" in LIBRARY,
        "blocker": repr(blocker("Proofs.t", environment(theorem(
            "Proofs.t", "(x : ℝ)", "Team.golden * x = x * Team.golden"
        )))),
    }))
"""


def test_load_pack_from_installed_distribution_entry_point(tmp_path: Path) -> None:
    _distribution(tmp_path, "team_vocab", "team_vocab", PACK, "team = team_vocab:BUILTINS\n")
    out = _run(tmp_path, EVALUATE)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["packs"]["team"] == ["team_vocab", ["Team.golden"]]
    assert got["packs"]["proofs"][0] == "proofbridge-lean4-mlir"
    assert abs(got["value"] - 1.0) < 1e-15  # φ² − φ = 1
    assert got["recorded"] and got["proofs"]
    assert got["blocker"] == "None"  # the theorem using the pack's constant gets a checker


def test_load_pack_from_callable_entry_point(tmp_path: Path) -> None:
    _distribution(tmp_path, "team_vocab", "team_vocab", PACK, "team = team_vocab:pack\n")
    out = _run(tmp_path, EVALUATE)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1])["packs"]["team"][0] == "team_vocab"


def test_refuse_plugin_that_fails_to_import(tmp_path: Path) -> None:
    _distribution(
        tmp_path,
        "broken_vocab",
        "broken_vocab",
        "import no_such_module\n",
        "bad = broken_vocab:X\n",
    )
    out = _run(tmp_path, "import checkers.library.semantics")
    assert out.returncode != 0
    assert (
        "VocabularyError: the vocabulary entry point 'bad' (broken_vocab:X) of the distribution "
        "broken_vocab failed to load: ModuleNotFoundError: No module named 'no_such_module'"
    ) in out.stderr


def test_refuse_two_packs_defining_one_name_differently(tmp_path: Path) -> None:
    _distribution(tmp_path, "team_vocab", "team_vocab", PACK, "team = team_vocab:BUILTINS\n")
    _distribution(tmp_path, "other_vocab", "other_vocab", PACK, "other = other_vocab:BUILTINS\n")
    out = _run(tmp_path, "import checkers.library.semantics")
    assert out.returncode != 0
    assert (
        "VocabularyError: Team.golden is defined differently by the vocabulary entry point "
        "'team' (team_vocab:BUILTINS) of the distribution team_vocab and by entry point "
        "'other' (other_vocab:BUILTINS) of the distribution other_vocab"
    ) in out.stderr


def test_project_pack_is_registered_as_entry_point() -> None:
    packs = {p.entry_point: p for p in load_packs()}
    assert packs["proofs"].distribution == "proofbridge-lean4-mlir"
    assert packs["proofs"].value == "proofbridge_lean4_mlir.vocabulary:pack"
    names = {b.name for b in packs["proofs"].builtins}
    assert "Proofs.dense" in names and names <= VOCABULARY_NAMES
    assert all(LIBRARY[n] is b for b in packs["proofs"].builtins for n in [b.name])


def _pack(name: str, *builtins: Builtin) -> Pack:
    return Pack(name, f"{name}:X", f"{name}_dist", builtins)


def test_refuse_pack_redefining_core_name() -> None:
    exp = LIBRARY["Real.exp"]
    other = Builtin("Real.exp", 1, exp.fn)
    with pytest.raises(VocabularyError) as e:
        build_library([exp], [_pack("a", other)])
    assert str(e.value) == (
        "Real.exp is defined differently by the vocabulary entry point 'a' (a:X) of the "
        "distribution a_dist and by the built-in library"
    )


def test_accept_same_builtin_from_two_packs() -> None:
    b = Builtin("Team.x", 0, lambda ev, args: None)
    lib = build_library([], [_pack("a", b), _pack("b", b)])
    assert lib.builtins["Team.x"] is b
    assert lib.origins["Team.x"].entry_point == "a"


def test_refuse_pack_giving_something_other_than_builtins(tmp_path: Path) -> None:
    _distribution(tmp_path, "odd_vocab", "odd_vocab", "X = [1]\n", "odd = odd_vocab:X\n")
    out = _run(tmp_path, "import checkers.library.semantics")
    assert out.returncode != 0
    assert (
        "VocabularyError: the vocabulary entry point 'odd' (odd_vocab:X) of the distribution "
        "odd_vocab gave int 1, not a checkers.language.values.Builtin"
    ) in out.stderr


def test_a_vocabulary_packs_source_names_the_stored_programs(tmp_path: Path) -> None:
    # a program that evaluates a pack's constant is keyed by the pack's source: upgrading
    # the pack never runs a program built from its old code
    _distribution(tmp_path, "team_vocab", "team_vocab", PACK, "team = team_vocab:BUILTINS\n")
    code = """
        from checkers.library.plugins import load_packs
        from checkers.runtime import program_store

        load_packs()
        print("team_vocab" in program_store._PACK_PACKAGES, program_store.source_hash())
    """
    first = _run(tmp_path, code)
    assert first.returncode == 0, first.stderr
    (tmp_path / "team_vocab.py").write_text(
        textwrap.dedent(PACK).replace("(1 + 5 ** 0.5) / 2", "(1 + 5 ** 0.5) / 2 + 0")
    )
    again = _run(tmp_path, code)
    assert again.returncode == 0, again.stderr
    known, before = first.stdout.split()
    assert known == "True"
    assert again.stdout.split() == ["True", again.stdout.split()[1]]
    assert again.stdout.split()[1] != before
