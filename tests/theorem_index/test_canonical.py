"""Canonical statements: layout that carries no meaning is gone, everything else differs."""

from __future__ import annotations

import pytest

from theorem_index.lean import (
    KnownNames,
    LeanParseError,
    canonical,
    first_difference,
    parse_definition,
    parse_signature,
    to_sexpr,
)
from theorem_index.lean.resolve import Resolver

KNOWN = KnownNames(["Proofs.rowDense_weight_grad"])

DENSE = (
    "{N a c : ℕ} (bb : Vec c) (X : Mat N a) (W : Mat a c) (dy : Vec (N * c)) (i : Fin a) "
    "(j : Fin c) : rowDense_weight_grad X (Mat.unflatten dy) i j = ∑ o : Fin (N * c), "
    "pdiv (fun (v : Vec (a * c)) => Mat.flatten fun (r : Fin N) => dense (Mat.unflatten v) bb "
    "(X r)) W.flatten (finProdFinEquiv (i, j)) o * dy o"
)


def _sig(text: str):
    binders, statement = parse_signature(text)
    resolver = Resolver(namespace="Proofs", known=KNOWN)
    resolved, scope = resolver.binders(binders, {})
    return canonical(resolved, resolver.term(statement, scope), KNOWN)


def _difference(a: str, b: str) -> str | None:
    found = first_difference(_sig(a), _sig(b))
    return None if found is None else str(found)


def test_parse_signature_splits_binders_and_statement():
    binders, statement = parse_signature("{n : ℕ} (x : Fin n → ℝ) : x = x")
    assert [b.names for b in binders] == [("n",), ("x",)]
    assert to_sexpr(statement) == "(= x x)"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(n : ℕ) n = n", "expected ':', found 'n' (at line 1, column 9)"),
        ("(n : ℕ : n = n", "expected ')', found ':' (at line 1, column 8)"),
        ("(n : ℕ) : n = ", "expected term, found end of input (at line 1, column 15)"),
        ("   ", "expected binders and ': statement', found end of input (at line 1, column 1)"),
    ],
)
def test_refuse_signature_that_does_not_parse(text, message):
    with pytest.raises(LeanParseError) as info:
        parse_signature(text)
    assert str(info.value) == message


def test_parse_definition_splits_binders_type_and_body():
    binders, type_, body = parse_definition("{n : ℕ} (x : Vec n) : ℝ :=\n  ∑ i : Fin n, x i")
    assert [b.names for b in binders] == [("n",), ("x",)]
    assert type_ is not None and to_sexpr(type_) == "ℝ"
    assert to_sexpr(body) == to_sexpr(parse_signature("(x : ℝ) : ∑ i : Fin n, x i")[1])
    assert parse_definition("(n : ℕ) := Fin n → ℝ")[1] is None  # the type left out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(n : ℕ) : ℝ", "expected ':=', found end of input (at line 1, column 12)"),
        ("(n : ℕ) ℝ := 1", "expected ':', found 'ℝ' (at line 1, column 9)"),
        ("  ", "expected binders and ':= body', found end of input (at line 1, column 1)"),
    ],
)
def test_refuse_definition_that_does_not_parse(text, message):
    with pytest.raises(LeanParseError) as info:
        parse_definition(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "variant",
    [
        # whitespace and line breaks
        DENSE.replace(" : rowDense", "\n    :\n  rowDense").replace(", pdiv", ",\n      pdiv"),
        # grouping parentheses
        DENSE.replace("(X r)) W.flatten", "((X r))) (W.flatten)").replace(
            "o * dy o", "(o) * (dy o)"
        ),
        # binder groups
        DENSE.replace("{N a c : ℕ}", "{N : ℕ} {a : ℕ} {c : ℕ}"),
        # Lean source spelling: `Nat`, `fun v : T =>`, untyped `fun r`, `Mat.flatten W`
        DENSE.replace("{N a c : ℕ}", "{N a c : Nat}")
        .replace("fun (v : Vec (a * c))", "fun v : Vec (a * c)")
        .replace(
            "Mat.flatten fun (r : Fin N) => dense (Mat.unflatten v) bb (X r)",
            "Mat.flatten (fun r => dense (Mat.unflatten v) bb (X r))",
        )
        .replace("W.flatten", "(Mat.flatten W)"),
        # bound variables renamed
        DENSE.replace("∑ o", "∑ k")
        .replace("o * dy o", "k * dy k")
        .replace("fun (v", "fun (w")
        .replace("unflatten v)", "unflatten w)"),
    ],
)
def test_match_statements_that_differ_only_in_layout(variant):
    assert _difference(DENSE, variant) is None


def test_match_curried_forms_and_universe_variables():
    assert (
        _difference("{M : Type u_1} (f : M → M) : f = f", "{M : Type*} (f : M → M) : f = f") is None
    )
    assert (
        _difference(
            "(g : ℕ → ℕ → ℕ) : (fun x => fun y => g x y) = g",
            "(g : ℕ → ℕ → ℕ) : (fun x y => (g x) y) = g",
        )
        is None
    )


@pytest.mark.parametrize(
    ("variant", "where"),
    [
        (
            DENSE.replace(": rowDense", ": -rowDense"),
            "lhs: `rowDense_weight_grad X (Mat.unflatten dy) i j` vs "
            "`-rowDense_weight_grad X (Mat.unflatten dy) i j`",
        ),
        (
            DENSE.replace("(i, j)", "(j, i)"),
            "rhs › body of `∑` › lhs › argument 3 of `pdiv` › argument 1 of `finProdFinEquiv` "
            "› component 1: `i` vs `j`",
        ),
        (
            DENSE.replace("o * dy o", "o * dy 0"),
            "rhs › body of `∑` › rhs › argument 1 of `dy`: `o` vs `0`",
        ),
        (
            DENSE.replace("fun (r : Fin N)", "fun (r : Fin a)"),
            "rhs › body of `∑` › lhs › argument 1 of `pdiv` › body of `fun` › argument 1 of "
            "`Mat.flatten` › binder `(r : Fin N)` › argument 1 of `Fin`: `N` vs `a`",
        ),
        (DENSE.replace("(bb : Vec c) ", ""), "binder 4: `(bb : Vec c)` vs `(X : Mat N a)`"),
        (DENSE.replace("{N a c : ℕ}", "(N : ℕ) {a c : ℕ}"), "binder 1: `{N : ℕ}` vs `(N : ℕ)`"),
    ],
)
def test_report_first_difference(variant, where):
    assert _difference(DENSE, variant) == where


def test_report_bound_variable_captured_differently():
    # `∑ k, ... dy o` leaves `o` free: not the statement where `o` is the sum's index
    variant = DENSE.replace("∑ o", "∑ k").replace("o * dy o", "k * dy o")
    assert _difference(DENSE, variant) == (
        "rhs › body of `∑` › rhs › argument 1 of `dy`: `o` vs `o (another binding)`"
    )


def test_report_numeral_and_relation_changes():
    base = "(x : ℝ) : x * 1 = x"
    assert _difference(base, "(x : ℝ) : x * 2 = x") == "lhs › rhs: `1` vs `2`"
    assert _difference(base, "(x : ℝ) : x * 1 ≤ x") == "statement: `x * 1 = x` vs `x * 1 ≤ x`"
    assert _difference(base, "(y : ℝ) : y * 1 = y") == "binder 1: `(x : ℝ)` vs `(y : ℝ)`"
