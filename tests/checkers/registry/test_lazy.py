"""An environment whose declarations are read when first used (checkers/registry/lazy.py)
checks exactly as one holding them all, reading a small part of a corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkers import Environment, LazyDeclarations, check
from checkers.registry import lazy
from theorem_index import read_paths
from theorem_index.model import Declaration

ROOT = Path(__file__).resolve().parents[3]


class Reads:
    """A corpus behind `fetch` and `structure`, counting what they are asked for."""

    def __init__(self, decls: list[Declaration]) -> None:
        self.by_name = {d.name: d for d in decls}
        self.order = sorted(self.by_name)
        self.names_read: list[str] = []
        self.whole = 0
        self.structure_reads = 0

    def fetch(self, names):
        if names is None:
            self.whole += 1
            return [self.by_name[n] for n in self.order if n in self.by_name]
        self.names_read.extend(names)
        return [self.by_name[n] for n in names if n in self.by_name]

    def structure(self):
        self.structure_reads += 1
        return [self.by_name[n] for n in self.order if lazy.structure_candidate(self.by_name[n])]

    def lazy(self) -> LazyDeclarations:
        return LazyDeclarations(self.order, self.fetch, self.structure)


def _corpus(seeds_dir: Path | None = None) -> list[Declaration]:
    paths = [str(ROOT / "examples")] + ([str(seeds_dir)] if seeds_dir is not None else [])
    return [d for doc in read_paths(paths).documents for d in doc.declarations]


def _verdict(r):
    c = r.counterexample
    cx = None if c is None else (c.dims, c.trial, repr(c.inputs), repr(c.lhs), repr(c.rhs))
    return (r.status, r.reason, r.max_abs_err, r.dims, r.checker, r.version, r.dependencies, cx)


def _equivalent(decls: list[Declaration], names: list[str]) -> Reads:
    reads = Reads(decls)
    full = Environment.from_declarations([reads.by_name[n] for n in reads.order])
    for name in names:
        # a fresh lazy environment per theorem, as a check of one theorem builds
        got = check(name, Environment(reads.lazy()), trials=16, seed=2, draws=2)
        want = check(name, full, trials=16, seed=2, draws=2)
        assert _verdict(got) == _verdict(want), name
    return reads


def test_lazy_environment_checks_the_examples_as_the_whole_one() -> None:
    decls = _corpus()
    theorems = [d.name for d in decls if d.kind == "theorem"]
    reads = _equivalent(decls, theorems)
    assert reads.whole == 0


def test_lazy_environment_checks_the_seed_pages_as_the_whole_one(seeds_dir: Path) -> None:
    decls = _corpus(seeds_dir)
    theorems = sorted(d.name for d in decls if d.kind == "theorem")
    assert len(theorems) > 40
    assert _equivalent(decls, theorems).whole == 0


def test_lazy_environment_checks_upstream_theorems_reading_a_small_part(
    upstream_tree: Path,
) -> None:
    decls = [d for doc in read_paths([str(upstream_tree)]).documents for d in doc.declarations]
    theorems = sorted(d.name for d in decls if d.kind == "theorem")
    sample = theorems[:: len(theorems) // 24][:24]
    reads = _equivalent(decls, sample)
    assert reads.whole == 0
    # few records a theorem by name (9 for Proofs.vit_rowDenseW_grad_bridge), of 12,264
    assert len(reads.names_read) < len(sample) * len(decls) / 20


def test_structure_candidates_are_the_whole_environments(seeds_dir: Path) -> None:
    reads = Reads(_corpus(seeds_dir))
    full = Environment.from_declarations([reads.by_name[n] for n in reads.order])
    candidates = Environment(reads.lazy()).structure_candidates()
    assert candidates == full.structure_candidates()
    assert reads.structure_reads == 1 and not reads.names_read


def test_mapping_reads_each_record_once_and_knows_every_name() -> None:
    reads = Reads(_corpus())
    decls = reads.lazy()
    name = reads.order[3]
    assert len(decls) == len(reads.order) and list(decls) == reads.order
    assert name in decls and "No.such" not in decls
    assert decls[name] is reads.by_name[name] and decls.get(name) is reads.by_name[name]
    assert reads.names_read == [name]
    with pytest.raises(KeyError):
        decls["No.such"]
    assert decls.get("No.such") is None and reads.names_read == [name]


def test_a_record_gone_meanwhile_is_absent() -> None:
    reads = Reads(_corpus())
    decls = reads.lazy()
    gone = reads.order[0]
    del reads.by_name[gone]
    assert decls.get(gone) is None
    with pytest.raises(KeyError):
        decls[gone]
    assert gone not in [d.name for d in decls.values()]


def test_walking_the_corpus_reads_it_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lazy, "SINGLE_READS", 3)
    reads = Reads(_corpus())
    decls = reads.lazy()
    for name in reads.order:
        assert decls[name] is reads.by_name[name]
    assert len(reads.names_read) == 3 and reads.whole == 1
    assert [d.name for d in decls.values()] == reads.order and reads.whole == 1
