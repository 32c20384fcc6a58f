"""The harness: a checker run over trials and draws to a verdict.

check (`check`, `run_checker`) runs a checker; programs and interpreted trace its
program (compiled, or interpreted by checkers.interpret); batches evaluates its trials
in batches and evaluation runs each draw (reporting words errors and dims); trials
builds the per-trial function; verdict judges it within the
tolerance; confirming confirms a failing trial in high precision (checkers.confirm);
outcome, shrink and replay give the counterexample, its simplest form and `repro`;
crosscheck combines a registered and a derived checker; description describes one.
"""

from checkers.harness.check import DEFAULT_DRAWS, DEFAULT_TRIALS, check, run_checker
from checkers.harness.description import describe
from checkers.harness.replay import repro

__all__ = ["DEFAULT_DRAWS", "DEFAULT_TRIALS", "check", "describe", "repro", "run_checker"]
