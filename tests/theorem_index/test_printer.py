"""The printer: output re-parses to an equal tree, with as few parentheses as that allows."""

from __future__ import annotations

from pathlib import Path

import pytest

from theorem_index.lean import parse_binders, parse_term, print_binders, print_term
from theorem_index.lean.syntax import (
    Abs,
    Anon,
    App,
    BigOp,
    Binder,
    BinOp,
    By,
    Do,
    EventuallyRel,
    Hole,
    Ident,
    Index,
    Integral,
    Lam,
    Let,
    Match,
    MatchAlt,
    Num,
    Postfix,
    Prefix,
    Proj,
    Quant,
    Sort,
    Tuple,
    Typed,
)

DATA = Path(__file__).parent / "data" / "valid"


def _golden_inputs() -> list[tuple[str, str, str]]:
    out = []
    for path in sorted(DATA.glob("*.golden")):
        for block in path.read_text(encoding="utf-8").split("\n=== ")[1:]:
            name, rest = block.split("\n", 1)
            source, expected = rest.split("\n--- ", 1)
            out.append((f"{path.stem}/{name}", source, expected.split("\n", 1)[0]))
    return out


GOLDEN = _golden_inputs()


@pytest.mark.parametrize(("case", "source", "section"), GOLDEN, ids=[c[0] for c in GOLDEN])
def test_print_golden_tree_reparses_to_equal_tree(case: str, source: str, section: str) -> None:
    if section == "binders":
        bs = parse_binders(source)
        assert parse_binders(print_binders(bs)) == bs
    else:
        t = parse_term(source)
        assert parse_term(print_term(t)) == t


# Canonical text: printing the parsed tree gives the text back unchanged, so
# the printer adds no parenthesis that Lean does not need.
CANONICAL = [
    "∑ x, f x + g x",
    "(∑ x, f x) * g x",
    "∑ x, f x * g x",
    "-x ^ 2",
    "(-x) ^ 2",
    "-x * y",
    "a - b - c",
    "a - (b - c)",
    "a ^ b ^ c",
    "(a ^ b) ^ c",
    "¬a = b",
    "(¬a) = b",
    "¬a ∧ b",
    "a • b * c",
    "a • (b * c)",
    "f ∘ g x",
    "(f ∘ g) x",
    "↑n - 1",
    "↑(n - 1)",
    "f x y.1",
    "f (x y).1",
    "(f x).1 y",
    "(x).succ",
    "Mat.flatten fun (r : Fin N) => X r",
    "f (fun x => x) y",
    "(fun x => x) + 1",
    "a + fun x => x",
    "mask j * if i = σ j then 1 else 0",
    "(if c then 1 else 0) * x",
    "a = b → c",
    "(a → b) → c",
    "2 * ∑ i, f i",
    "(a = b) = c",
    "a ∈ b ∈ c",
    "(a ∈ b) ∈ c",
    "x⁻¹ * y",
    "(f x)⁻¹",
    "f x⁻¹",
    "|x - y| ≤ ε",
    "|(|x|)|",
    "‖v‖ * 2",
    "∀ ε > 0, ∃ δ > 0, δ < ε",
    "(∀ x, p x) ∧ q",
    "¬∃ x, p x",
    "f (Type u) x",
    "(α : Type u) → α → α",
    "let x := 1; x + 1",
    "f (by simp) x",
    "⟨0, by simp⟩",
    "match n with | 0 => a | n + 1 => b",
    "(match n with | 0 => a | _ => b) + 1",
    "fun | 0 => 1 | n + 1 => n",
    "(· + 1)",
    "![a, b]",
    "{x | p x}",
    "{ x : ℕ // p x }",
    "∫ z, f z ∂μ",
    "c * ∫ z, g z",
    "- -x",
    "x |> f |> g",
    "f <| g <| x",
    "A ⊙ B + C",
    "A ⊙ (B ⊙ C)",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_print_canonical_text_unchanged(text: str) -> None:
    assert print_term(parse_term(text)) == text


x, y, f, g = Ident("x"), Ident("y"), Ident("f"), Ident("g")


@pytest.mark.parametrize(
    ("tree", "text"),
    [
        (BinOp("^", Prefix("-", x), Num("2")), "(-x) ^ 2"),
        (Prefix("-", BinOp("^", x, Num("2"))), "-x ^ 2"),
        (BinOp("-", x, BinOp("-", y, x)), "x - (y - x)"),
        (
            BinOp("*", BigOp("∑", (Binder("plain", ("i",)),), None, App(f, (Ident("i"),))), y),
            "(∑ i, f i) * y",
        ),
        (
            BinOp("+", BigOp("∑", (Binder("plain", ("i",)),), None, App(f, (Ident("i"),))), y),
            "∑ i, f i + y",
        ),
        (App(f, (Lam((Binder("plain", ("x",)),), x), y)), "f (fun x => x) y"),
        (App(f, (y, Lam((Binder("plain", ("x",)),), x))), "f y fun x => x"),
        (BinOp("+", App(f, (Lam((Binder("plain", ("x",)),), x),)), y), "(f fun x => x) + y"),
        (Proj(x, "succ"), "(x).succ"),
        (Proj(x, "1"), "x.1"),
        (Proj(Num("2"), "1"), "(2).1"),
        (Proj(Prefix("↑", x), "1"), "(↑x).1"),
        (Prefix("↑", Proj(x, "1")), "↑x.1"),
        (App(Prefix("¬", x), (y,)), "(¬x) y"),
        (App(f, (Prefix("¬", x), y)), "f (¬x) y"),
        (App(f, (Prefix("-", x),)), "f (-x)"),
        (Postfix("⁻¹", App(f, (x,))), "(f x)⁻¹"),
        (App(Sort("Type", "u"), (x,)), "(Type u) x"),
        (Typed(By("simp"), x), "((by simp) : x)"),
        (BinOp("+", By("simp"), x), "(by simp) + x"),
        (App(f, (By("simp\n      ring"), x)), "f (by\n      simp\n      ring) x"),
        (Anon((By("simp\n  ring"), x)), "⟨(by\n  simp\n  ring), x⟩"),
        (Anon((By("exact ∃ y"), x)), "⟨(by exact ∃ y), x⟩"),
        (Anon((By("exact ∃ y, y"), x)), "⟨by exact ∃ y, y, x⟩"),
        (
            Tuple((Do("let z ← f\n  match a, b with\n  | p, q => z"), x)),
            "((do\n  let z ← f\n  match a, b with\n  | p, q => z), x)",
        ),
        (
            Let("let", "z", None, App(f, (By("simp\n  ring"), x)), App(f, (Ident("z"),))),
            "let z := (f (by\n  simp\n  ring) x); f z",
        ),
        (
            EventuallyRel("=ᶠ", Ident("l"), Quant("∀", (Binder("plain", ("x",)),), x), y),
            "(∀ x, x) =ᶠ[l] y",
        ),
        (EventuallyRel("≤ᶠ", BinOp("=", x, y), BinOp("=", x, y), x), "x = y ≤ᶠ[x = y] x"),
        (Abs(Abs(x)), "|(|x|)|"),
        (Index(Index(x, y, "!"), x, ""), "(x[y]!)[x]"),
        (Quant("∀", (Binder("plain", ("x",)),), x), "∀ x, x"),
        (App(f, (Quant("∀", (Binder("plain", ("x",)),), x),)), "f (∀ x, x)"),
        (
            Match(
                (x,),
                (
                    MatchAlt((Num("0"),), Match((y,), (MatchAlt((Hole(),), y),))),
                    MatchAlt((Hole(),), x),
                ),
            ),
            "match x with | 0 => (match y with | _ => y) | _ => x",
        ),
        (
            Integral(
                (Binder("plain", ("z",)),),
                None,
                Integral((Binder("plain", ("w",)),), None, x, None),
                Ident("μ"),
            ),
            "∫ z, (∫ w, x) ∂μ",
        ),
    ],
)
def test_print_built_tree_with_needed_parentheses(tree: object, text: str) -> None:
    assert print_term(tree) == text  # type: ignore[arg-type]
    assert parse_term(text) == tree


def test_print_binders_reproduces_binder_list() -> None:
    text = (
        "{N a c : ℕ} (bb : Vec c) [inst : C M] [AddCommMonoid M] ⦃x : T⦄ (h : 0 < ε) (x : T := 0)"
    )
    assert print_binders(parse_binders(text)) == text
