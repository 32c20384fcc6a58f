# Set-up and everyday commands. `make demo` and `make test` work on a fresh machine:
# each creates the virtual environment and installs the project first.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
# the lean4-mlir pack (vocabulary and registered checkers), installed beside the core
PACK := packs/lean4_mlir
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install runtime demo smoke test lint typecheck pytest bench clean

# `runtime`: what serving and checking need (the demo); `install`: that and the dev tools.
# Both compile the project's bytecode, as the Dockerfile does: where PYTHONDONTWRITEBYTECODE
# is set, every command would otherwise compile its sources again as it starts.
runtime: $(VENV)/.runtime
install: $(VENV)/.installed

$(VENV)/.runtime: pyproject.toml $(PACK)/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e . -e $(PACK)
	$(BIN)/python -m compileall -q app theorem_index checkers migrations $(PACK)
	touch $@

$(VENV)/.installed: pyproject.toml $(PACK)/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e $(PACK)
	$(BIN)/python -m compileall -q app theorem_index checkers migrations $(PACK)
	touch $@ $(VENV)/.runtime

# The main job on the embedded defaults (SQLite under ./var): ingest the project's own
# example pages, check every theorem (one of them is false on purpose: exit 1 is expected),
# then serve the API and dashboard on HOST:PORT (127.0.0.1:8000).
demo: runtime
	@echo "proofbridge is installed in $(BIN): \`. $(BIN)/activate\` puts it on your PATH"
	$(BIN)/proofbridge db upgrade
	$(BIN)/proofbridge ingest examples
	$(BIN)/proofbridge check; status=$$?; [ $$status -le 1 ] || exit $$status
	$(BIN)/proofbridge serve --host $(HOST) --port $(PORT)

# The production install (runtime dependencies only, in a fresh venv) against PostgreSQL
# and a private Redis: db upgrade, serve, one worker, a run posted through the API.
smoke:
	bash .ci/deploy-smoke

lint: install
	$(BIN)/ruff check app theorem_index checkers packs tests bench migrations
	$(BIN)/ruff format --check app theorem_index checkers packs tests bench migrations

typecheck: install
	$(BIN)/mypy

pytest: install
	$(BIN)/pytest -q

# Linters, types, then every test on SQLite and on the PostgreSQL server named by
# PROOFBRIDGE_TEST_POSTGRES_URL (default: postgresql+psycopg://postgres@127.0.0.1:5432/test).
test: lint typecheck pytest

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
