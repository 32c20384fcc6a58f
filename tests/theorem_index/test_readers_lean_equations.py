"""Definition bodies as equations: layout kept, bodies parenthesised, one per alternative."""

from __future__ import annotations

from pathlib import Path

from theorem_index.lean import KnownNames, analyse_declaration, parse_term
from theorem_index.lean.syntax import App, BinOp, Ident, Let, Match, Num, Paren, StructInst
from theorem_index.model import Declaration
from theorem_index.readers import read_bytes, read_paths

DATA = Path(__file__).parent / "data" / "readers"


def _decls() -> dict[str, Declaration]:
    doc = read_paths([DATA / "Equations.lean"]).documents[0]
    assert doc.errors == []
    return {d.name: d for d in doc.declarations}


def _source(text: str) -> dict[str, Declaration]:
    doc = read_bytes("Src/Mod.lean", text.encode())
    return {d.name: d for d in doc.declarations}


def test_analyse_equations_fixture_parses_every_equation() -> None:
    decls = _decls()
    known = KnownNames(decls)
    assert sum(len(d.equations) for d in decls.values()) == 19
    for decl in decls.values():
        assert analyse_declaration(decl, known).errors == (), decl.name


def test_read_let_body_keeps_its_lines_dedented() -> None:
    (eq,) = _decls()["Eqs.params"].equations
    assert eq == (
        "Eqs.params dim blocks = (\n"
        "  let perBlock := 2 * dim +\n"
        "      3 * dim\n"
        "  let extra := dim\n"
        "  blocks * perBlock + extra)"
    )
    term = parse_term(eq)
    assert isinstance(term, BinOp) and term.op == "="
    first = term.rhs
    assert isinstance(first, Let) and first.name == "perBlock"
    assert isinstance(first.body, Let) and first.body.name == "extra"
    assert isinstance(first.body.body, BinOp) and first.body.body.op == "+"


def test_read_do_body_keeps_its_lines() -> None:
    (eq,) = _decls()["Eqs.count"].equations
    assert eq == (
        "Eqs.count n = (Id.run do\n"
        "  let mut s := 0\n"
        "  for i in [0:n] do\n"
        "    s := s + i\n"
        "  return s)"
    )


def test_read_structure_fields_on_their_own_lines_get_commas() -> None:
    (eq,) = _decls()["Eqs.ref"].equations
    assert eq == 'Eqs.ref =\n  { name := "IREE", fast := false,\n    ms := 12 }'
    term = parse_term(eq)
    assert isinstance(term, BinOp) and isinstance(term.rhs, StructInst)
    assert [name for name, _ in term.rhs.fields] == ["name", "fast", "ms"]


def test_read_where_clause_stays_out_of_the_body() -> None:
    assert _decls()["Eqs.withHelper"].equations == ("Eqs.withHelper x = (helper x + 1)",)


def test_read_string_gap_joins_the_lines_of_a_string() -> None:
    assert _decls()["Eqs.banner"].equations == ('Eqs.banner = "one two"',)


def test_read_body_looser_than_equals_is_parenthesised() -> None:
    decls = _decls()
    assert decls["Eqs.isAlign"].equations == ('Eqs.isAlign ctl = (ctl == "align")',)
    assert decls["Eqs.pick"].equations == ("Eqs.pick b x = (if b then x else 0)",)
    (wide,) = decls["Eqs.wide"].equations
    assert wide == "Eqs.wide xs = (xs.length ≥ 2)"
    term = parse_term(wide)
    assert isinstance(term, BinOp) and term.op == "="
    assert isinstance(term.lhs, App) and isinstance(term.rhs, BinOp) and term.rhs.op == "≥"
    assert not isinstance(term.rhs, Paren)


def test_read_application_body_is_not_parenthesised() -> None:
    assert _decls()["Eqs.scaled"].equations == ("Eqs.scaled x = Nat.mul x 2",)


def test_read_alternatives_on_one_line_give_one_equation_each() -> None:
    decls = _decls()
    assert decls["Eqs.idx"].equations == ("Eqs.idx ⟨_, true, _⟩ = 0", "Eqs.idx ⟨_, false, ms⟩ = ms")
    assert decls["Eqs.short"].equations == ("Eqs.short 0 = 1", "Eqs.short (n + 1) = n")
    assert decls["Eqs.short"].statement == "ℕ → ℕ"


def test_read_or_patterns_give_one_equation_each() -> None:
    assert _decls()["Eqs.isEdge"].equations == (
        "Eqs.isEdge 0 = true",
        "Eqs.isEdge 1 = true",
        "Eqs.isEdge _ = false",
    )


def test_read_alternatives_keep_binders_and_split_discriminants() -> None:
    eqs = _decls()["Eqs.addPred"].equations
    assert eqs == (
        "Eqs.addPred k 0 m = (k + m)",
        "Eqs.addPred k (n+1) m = (match m with\n  | 0 => n | _ => k)",
        "Eqs.addPred k _ _ = k",
    )
    term = parse_term(eqs[1])
    assert isinstance(term, BinOp) and isinstance(term.lhs, App)
    assert term.lhs.fn == Ident("Eqs.addPred")
    assert term.lhs.args[0] == Ident("k") and term.lhs.args[2] == Ident("m")
    assert isinstance(term.lhs.args[1], BinOp) and term.lhs.args[1].rhs == Num("1")
    assert isinstance(term.rhs, Match) and len(term.rhs.alts) == 2


def test_read_nested_match_ends_at_a_bar_left_of_its_alternatives() -> None:
    decls = _source(
        "def f : ℕ → ℕ → ℕ\n"
        "  | 0, m => match m with\n"
        "      | 0 => 1\n"
        "      | _ => 2\n"
        "  | _, _ => 3\n"
    )
    assert decls["f"].equations == (
        "f 0 m = (match m with\n  | 0 => 1\n  | _ => 2)",
        "f _ _ = 3",
    )


def test_read_abs_bars_in_a_right_hand_side_are_not_alternatives() -> None:
    decls = _source("def g : ℤ → ℤ\n  | x => |x| + 1\n")
    assert decls["g"].equations == ("g x = (|x| + 1)",)


def test_read_lake_commands_end_the_definition_before_them() -> None:
    decls = _source(
        "def ok : Nat := 1\nscript run do\n  pure 0\nlean_exe demo where\n  root := `Main\n"
    )
    assert list(decls) == ["ok"]
    assert decls["ok"].equations == ("ok = 1",)


def test_read_meta_modifier_on_a_definition() -> None:
    decls = _source("meta def m : Nat := 2\n")
    assert decls["m"].modifiers == ("meta",)
    assert decls["m"].equations == ("m = 2",)


def test_analyse_unsupported_equation_reports_its_position() -> None:
    decls = _source("def names : List String := [`a, `b]\n")
    (eq,) = decls["names"].equations
    assert eq == "names = [`a, `b]"
    analysis = analyse_declaration(decls["names"], KnownNames(decls))
    (error,) = analysis.errors
    assert (error.part, error.line, error.column) == ("equation 1", 1, 10)
    assert "'`'" in error.message
