"""All 32 declarations of the seed page: binders, statements and the 7 rendered equations
parse, print back to equal trees, and every constant resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from theorem_index.lean import (
    KnownNames,
    analyse_declaration,
    parse_binders,
    parse_term,
    print_binders,
    print_term,
)
from theorem_index.model import Declaration

_HEADER = re.compile(r"^(theorem|noncomputable def) (\S+) ?(.*)$")
_OPEN, _CLOSE = "([{⦃⟨", ")]}⦄⟩"


def _split(rest: str) -> tuple[str, str]:
    """'BINDERS : STATEMENT' -> (binders, statement): the first ' : ' outside brackets."""
    depth = 0
    for i, ch in enumerate(rest):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif (
            depth == 0 and ch == ":" and rest[i - 1 : i] in ("", " ") and rest[i + 1 : i + 2] == " "
        ):
            return rest[:i].strip(), rest[i + 1 :].strip()
    raise AssertionError(f"no ' : ' in {rest!r}")


def _declarations(page: Path) -> list[Declaration]:
    decls: list[dict] = []  # type: ignore[type-arg]
    for line in page.read_text(encoding="utf-8").splitlines():
        m = _HEADER.match(line)
        if m:
            binders, statement = _split(m.group(3))
            kind = "theorem" if m.group(1) == "theorem" else "def"
            decls.append(
                {
                    "name": m.group(2),
                    "kind": kind,
                    "binders": binders,
                    "statement": statement,
                    "equations": [],
                }
            )
        elif line.startswith("• ") and decls and decls[-1]["kind"] == "def":
            decls[-1]["equations"].append(line[2:])
    return [
        Declaration(
            name=d["name"],
            kind=d["kind"],
            module="Proofs.ViTClose",
            binders=d["binders"],
            statement=d["statement"],
            equations=tuple(d["equations"]),
        )
        for d in decls
    ]


@pytest.fixture(scope="module")
def seed_decls(seed_page: Path) -> list[Declaration]:
    return _declarations(seed_page)


def _rendered(decl: Declaration) -> list[str]:
    return [e for e in decl.equations if "did not get rendered" not in e]


def test_split_seed_page_into_32_declarations_and_7_equations(
    seed_decls: list[Declaration],
) -> None:
    assert len(seed_decls) == 32
    assert sum(len(_rendered(d)) for d in seed_decls) == 7
    assert all(d.name.startswith("Proofs.") for d in seed_decls)


def test_parse_and_round_trip_every_seed_part(seed_decls: list[Declaration]) -> None:
    for d in seed_decls:
        binders = parse_binders(d.binders)
        assert parse_binders(print_binders(binders)) == binders, d.name
        assert print_binders(binders) == d.binders, d.name
        for text in (d.statement, *_rendered(d)):
            t = parse_term(text)
            assert parse_term(print_term(t)) == t, d.name
            assert print_term(t) == text, d.name


def test_resolve_every_seed_constant(seed_decls: list[Declaration]) -> None:
    known = KnownNames(d.name for d in seed_decls)
    constants: set[str] = set()
    for d in seed_decls:
        a = analyse_declaration(d, known)
        assert a.errors == (), d.name
        assert a.unknown_constants == (), (d.name, a.unknown_constants)
        assert a.statement is not None and a.binders is not None
        assert len(a.equations) == len(_rendered(d))
        # resolved trees print back to the page's own text
        assert print_term(a.statement) == d.statement, d.name
        assert [print_term(e) for e in a.equations] == _rendered(d), d.name
        constants.update(a.constants)
    for name in (
        "Proofs.pdiv",
        "Proofs.dense",
        "Proofs.Mat.flatten",
        "Proofs.Mat.unflatten",
        "Proofs.Kernel4.flatten",
        "Proofs.Kernel4.unflatten",
        "Proofs.layerNormForward",
        "Proofs.bnXhat",
        "Proofs.patchEmbed_flat",
        "Proofs.patchRead",
        "Proofs.bn_grad_gamma",
        "finProdFinEquiv",
        "Equiv.symm",
        "Fin.succ",
        "Finset.sum",
    ):
        assert name in constants, name


def test_resolve_seed_field_notation_by_binder_type(seed_decls: list[Declaration]) -> None:
    known = KnownNames(d.name for d in seed_decls)
    by_name = {d.name: d for d in seed_decls}
    w = analyse_declaration(by_name["Proofs.pdiv_patchEmbed_W"], known)
    assert "Proofs.Kernel4.flatten" in w.constants  # Wc.flatten with Wc : Kernel4 ...
    pos = analyse_declaration(by_name["Proofs.pdiv_patchEmbed_pos"], known)
    assert "Proofs.Mat.flatten" in pos.constants  # pos.flatten with pos : Mat ...
