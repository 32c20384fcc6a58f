"""The Lean term parser: golden files, precedence, binders, errors and the nesting limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from theorem_index.lean import (
    MAX_DEPTH,
    LeanParseError,
    parse_binders,
    parse_term,
    print_term,
    to_sexpr,
)
from theorem_index.lean.syntax import (
    App,
    BigOp,
    Binder,
    BinOp,
    Ident,
    Num,
    Postfix,
    Prefix,
    Proj,
    Span,
)

DATA = Path(__file__).parent / "data"


def load_golden(path: Path) -> list[tuple[str, str, str, str]]:
    """(case id, input, section, expected) for every `=== name` block of a golden file."""
    cases = []
    text = path.read_text(encoding="utf-8")
    for block in text.split("\n=== ")[1:]:
        name, rest = block.split("\n", 1)
        source, expected = rest.split("\n--- ", 1)
        section, expected = expected.split("\n", 1)
        cases.append((f"{path.stem}/{name}", source, section, expected.rstrip("\n")))
    return cases


VALID = [c for p in sorted((DATA / "valid").glob("*.golden")) for c in load_golden(p)]
INVALID = [c for p in sorted((DATA / "invalid").glob("*.golden")) for c in load_golden(p)]


def test_load_golden_files_when_present() -> None:
    assert len(VALID) >= 150
    assert len(INVALID) >= 25


@pytest.mark.parametrize(
    ("case", "source", "section", "expected"), VALID, ids=[c[0] for c in VALID]
)
def test_parse_golden_input_gives_expected_tree(
    case: str, source: str, section: str, expected: str
) -> None:
    if section == "binders":
        got = " ".join(to_sexpr(b) for b in parse_binders(source))
    else:
        assert section == "tree"
        got = to_sexpr(parse_term(source))
    assert got == expected


@pytest.mark.parametrize(
    ("case", "source", "section", "expected"), INVALID, ids=[c[0] for c in INVALID]
)
def test_parse_invalid_golden_input_raises_exact_error(
    case: str, source: str, section: str, expected: str
) -> None:
    fn = parse_binders if section == "binders error" else parse_term
    with pytest.raises(LeanParseError) as info:
        fn(source)
    assert str(info.value) == expected


def test_parse_sum_body_at_precedence_67() -> None:
    t = parse_term("∑ x, f x + g x")
    assert isinstance(t, BinOp) and t.op == "+"
    assert isinstance(t.lhs, BigOp)
    inner = parse_term("∑ x, f x * g x")
    assert isinstance(inner, BigOp) and isinstance(inner.body, BinOp) and inner.body.op == "*"


def test_parse_application_is_flat_and_binds_projection_to_last_argument() -> None:
    t = parse_term("f x y.1")
    assert t == App(Ident("f"), (Ident("x"), Proj(Ident("y"), "1")))


def test_parse_dotted_name_stays_one_identifier() -> None:
    assert parse_term("finProdFinEquiv.symm") == Ident("finProdFinEquiv.symm")
    assert parse_term("n.succ") == Ident("n.succ")


def test_parse_negation_of_power_keeps_power_inside() -> None:
    assert parse_term("-x^2") == Prefix("-", BinOp("^", Ident("x"), Num("2")))


def test_parse_records_spans_but_ignores_them_in_equality() -> None:
    t = parse_term("a + bb")
    assert isinstance(t, BinOp)
    assert t.span == Span(0, 6)
    assert t.rhs.span == Span(4, 6)
    assert t == parse_term("a   +   bb")


def test_parse_binders_returns_one_group_per_bracket() -> None:
    bs = parse_binders("{N a c : ℕ} (bb : Vec c) [inst : C M] (h : 0 < ε) (x : T := 0)")
    assert [b.kind for b in bs] == ["implicit", "explicit", "inst", "explicit", "explicit"]
    assert bs[0] == Binder("implicit", ("N", "a", "c"), Ident("ℕ"))
    assert bs[2].names == ("inst",)
    assert bs[4].default == Num("0")


def test_parse_error_has_line_column_and_offset() -> None:
    with pytest.raises(LeanParseError) as info:
        parse_term("f x\n  (y")
    err = info.value
    assert (err.line, err.column, err.pos) == (2, 5, 8)
    assert err.msg == "expected ')', found end of input"
    assert str(err) == "expected ')', found end of input (at line 2, column 5)"


def test_parse_error_position_is_never_a_placeholder() -> None:
    for text in ["(", "f (x :", "∑", "fun", "a + * b", "⟨a,", "{x |"]:
        with pytest.raises(LeanParseError) as info:
            parse_term(text)
        assert 0 < info.value.pos <= len(text)
        assert info.value.line == 1 and info.value.column == info.value.pos + 1


@pytest.mark.parametrize(
    "text",
    [
        "(" * 5000 + "x" + ")" * 5000,
        "- " * 5000 + "x",
        "fun x => " * 2000 + "x",
        "∑ i, " * 2000 + "x",
        "a ^ " * 5000 + "b",
        "1 + " * 5000 + "1",
        "f " + "(g " * 3000 + "x" + ")" * 3000,
        "⟨" * 3000 + "⟩" * 3000,
    ],
    ids=["parens", "negations", "lambdas", "sums", "powers", "sum_chain", "applications", "anon"],
)
def test_parse_raises_parse_error_when_nesting_exceeds_limit(text: str) -> None:
    with pytest.raises(LeanParseError) as info:
        parse_term(text)
    assert info.value.msg == f"term nested too deeply (more than {MAX_DEPTH} levels)"


def test_parse_accepts_nesting_below_limit() -> None:
    depth = MAX_DEPTH // 2 - 2
    t = parse_term("(" * depth + "x" + ")" * depth)
    assert t == Ident("x")


def test_parse_interpolated_string_is_one_literal() -> None:
    # `s!"%{p}W"` is one string argument, not `s!` applied to a string
    t = parse_term('f s!"%{p}W" x')
    assert isinstance(t, App)
    assert [type(a).__name__ for a in t.args] == ["Str", "Ident"]
    assert parse_term('f s! "a"') != parse_term('f s!"a"')  # apart, they stay two terms


def test_field_after_postfix_operator_projects_the_whole() -> None:
    # Mathlib's `Mᵀ.det` is `(Mᵀ).det`, `A⁻¹.trace` is `(A⁻¹).trace`
    t = parse_term("Mᵀ.det = A⁻¹.trace")
    assert isinstance(t, BinOp)
    assert isinstance(t.lhs, Proj) and t.lhs.field == "det"
    assert isinstance(t.lhs.term, Postfix) and t.lhs.term.op == "ᵀ"
    assert isinstance(t.rhs, Proj) and isinstance(t.rhs.term, Postfix)


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        # Mathlib's `#s` is `Finset.card s` (resolved later; parsed as a prefix)
        ("#s + #(t u)", "#s + #(t u)"),
        ("∑ x ∈ s with p x, f x", "∑ x ∈ Finset.filter (fun x => p x) s, f x"),
        ("∏ i with i ≠ j, f i", "∏ i ∈ Finset.filter (fun i => i ≠ j) Finset.univ, f i"),
        ("!![a, b; c, d]", "Matrix.of ![![a, b], ![c, d]]"),
        ("det !![a, b; c, d]", "det (Matrix.of ![![a, b], ![c, d]])"),
        ("∑' i, f i", "∑' i, f i"),
    ],
)
def test_mathlib_notations_parse(text: str, printed: str) -> None:
    assert print_term(parse_term(text)) == printed
    assert parse_term(printed) == parse_term(text)
