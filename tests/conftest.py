"""Fixtures every test folder shares."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SEEDS = SHARED / "seeds"
SEED_PAGE = "004_6d8c43833ffb9c10.txt"
SEED_MODULE_DOC = "000_2c54023b98619e38.txt"


@pytest.fixture(scope="session")
def seeds_dir() -> Path:
    """The seed pages, read in place from ../shared/seeds beside the repository."""
    if not (SEEDS / SEED_PAGE).is_file():
        pytest.skip(f"seed pages not found at {SEEDS} (../shared is absent beside the repository)")
    return SEEDS


@pytest.fixture(scope="session")
def seed_page(seeds_dir: Path) -> Path:
    return seeds_dir / SEED_PAGE


# The public Lean project the seeds come from (brettkoonce/lean4-mlir), checked out
# beside the repository or named by $PROOFBRIDGE_UPSTREAM_TREE: its LeanMlir/Proofs tree.
UPSTREAM_TREE = Path(
    os.environ.get("PROOFBRIDGE_UPSTREAM_TREE")
    or REPO.parent / "lean4-mlir" / "LeanMlir" / "Proofs"
)


@pytest.fixture(scope="session")
def upstream_tree() -> Path:
    """The upstream LeanMlir/Proofs tree, read in place; skips, saying so, when absent."""
    if not UPSTREAM_TREE.is_dir():
        pytest.skip(
            f"the upstream Lean tree is not at {UPSTREAM_TREE} (check out brettkoonce/lean4-mlir "
            "beside the repository, or set PROOFBRIDGE_UPSTREAM_TREE)"
        )
    return UPSTREAM_TREE
