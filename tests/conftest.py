"""Fixtures every test folder shares."""

from __future__ import annotations

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
