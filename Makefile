# Set-up and everyday commands. `make demo` and `make test` work on a fresh machine:
# each creates the virtual environment and installs the project first.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install demo test lint typecheck pytest bench clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

# The main job on the embedded defaults (SQLite under ./var): ingest the project's own
# example pages, check every theorem, then serve the API and dashboard.
demo: install
	$(BIN)/proofbridge db upgrade
	$(BIN)/proofbridge ingest examples
	$(BIN)/proofbridge check; status=$$?; [ $$status -le 1 ] || exit $$status
	$(BIN)/proofbridge serve --host $(HOST) --port $(PORT)

lint: install
	$(BIN)/ruff check app theorem_index checkers tests bench migrations
	$(BIN)/ruff format --check app theorem_index checkers tests bench migrations

typecheck: install
	$(BIN)/mypy

pytest: install
	$(BIN)/pytest -q

# Linters, types, then every test on SQLite and on the PostgreSQL server named by
# PROOFBRIDGE_TEST_POSTGRES_URL (default: postgresql+psycopg://postgres@127.0.0.1:5432/test).
test: lint typecheck pytest

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
