"""Tests of the checkers, one folder per subpackage of `checkers`. This file puts the
folder on sys.path (pytest's default import mode does so for each conftest), so that every
test here imports its shared helpers (`derived_support`) by name."""
