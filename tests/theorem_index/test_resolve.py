"""Name resolution and declaration analysis."""

from __future__ import annotations

import json

from theorem_index.lean import (
    Analysis,
    KnownNames,
    analyse_declaration,
    parse_term,
    print_term,
    resolve,
)
from theorem_index.lean.syntax import App, BigOp, BinOp, Const, Lam, Proj, Var
from theorem_index.model import Declaration


def _resolve(text: str, bound: set[str] = frozenset(), **kw):  # type: ignore[no-untyped-def,assignment]
    return resolve(parse_term(text), bound=bound, namespace=kw.pop("namespace", "Proofs"), **kw)


def test_resolve_bound_name_to_var() -> None:
    r = _resolve("x + y", {"x"})
    assert isinstance(r.term, BinOp)
    assert r.term.lhs == Var("x")
    assert r.term.rhs == Const("y")
    assert r.unknown == ("y",)


def test_resolve_constant_in_enclosing_namespace() -> None:
    r = _resolve("pdiv f x i j", {"f", "x", "i", "j"})
    assert isinstance(r.term, App)
    assert r.term.fn == Const("Proofs.pdiv")
    assert r.constants == ("Proofs.pdiv",)
    assert r.unknown == ()


def test_resolve_dotted_constant_relative_to_namespace() -> None:
    r = _resolve("Mat.flatten A", {"A"})
    assert r.constants == ("Proofs.Mat.flatten",)


def test_resolve_dotted_name_with_bound_head_to_field_projection() -> None:
    r = _resolve("n.succ", {"n"}, types={"n": "Fin"})
    assert r.term == Proj(Var("n"), "succ")
    assert r.constants == ("Fin.succ",)


def test_resolve_field_notation_on_matrix_by_binder_type() -> None:
    r = _resolve("W.flatten", {"W"}, types={"W": "Proofs.Mat"})
    assert r.term == Proj(Var("W"), "flatten")
    assert r.constants == ("Proofs.Mat.flatten",)
    k = _resolve("W.flatten", {"W"}, types={"W": "Proofs.Kernel4"})
    assert k.constants == ("Proofs.Kernel4.flatten",)


def test_resolve_field_notation_on_constant() -> None:
    r = _resolve("finProdFinEquiv.symm idx", {"idx"})
    assert isinstance(r.term, App)
    assert r.term.fn == Proj(Const("finProdFinEquiv"), "symm")
    assert r.constants == ("Equiv.symm", "finProdFinEquiv")


def test_resolve_notation_names_to_constants() -> None:
    r = _resolve("(x : ℝ) + (n : ℕ)", {"x", "n"})
    assert r.constants == ("Nat", "Real")


def test_resolve_pipes_to_application() -> None:
    # `f <| x`, `f $ x` and `x |> f` are `f x`, as Lean elaborates them; a partial
    # application takes the argument last; the canonical text keeps what was written
    f, g, x, a = Var("f"), Var("g"), Var("x"), Var("a")
    names = {"f", "g", "x", "a"}
    assert _resolve("f <| g <| x", names).term == App(f, (App(g, (x,)),))
    assert _resolve("x |> g |> f", names).term == App(f, (App(g, (x,)),))
    assert _resolve("f $ x", names).term == App(f, (x,))
    assert _resolve("f a <| x", names).term == App(f, (a, x))
    assert print_term(parse_term("f <| g <| x")) == "f <| g <| x"


def test_resolve_records_unknown_constant_without_failing() -> None:
    r = _resolve("frobnicate x", {"x"})
    assert r.unknown == ("frobnicate",)
    assert isinstance(r.term, App) and r.term.fn == Const("frobnicate")


def test_resolve_prefers_link_over_lookup() -> None:
    r = _resolve("dense W b x", {"W", "b", "x"}, links={"dense": "Other.dense"})
    assert r.constants == ("Other.dense",)


def test_resolve_opens_are_searched() -> None:
    known = KnownNames(["Foo.bar"], builtins=False)
    r = resolve(parse_term("bar"), namespace="", opens=("Foo",), known=known)
    assert r.term == Const("Foo.bar")
    assert resolve(parse_term("bar"), known=known).unknown == ("bar",)


def test_resolve_opened_name_in_unmodelled_namespace_to_that_namespace() -> None:
    # Lean looks in `Circle` before `Real`: `exp` there is `Circle.exp`, unknown to us
    known = KnownNames(["Real.exp"], builtins=False, models=["Real.exp"])
    r = resolve(parse_term("exp"), namespace="Circle", opens=("Real",), known=known)
    assert r.term == Const("Circle.exp")
    assert r.unknown == ("Circle.exp",)
    modelled = resolve(parse_term("exp"), namespace="Real", opens=("Real",), known=known)
    assert modelled.term == Const("Real.exp")
    # a name at the root, and an open of the same project's namespace, are taken
    rooted = KnownNames(["max", "Proofs.A.den"], builtins=False, models=())
    assert resolve(parse_term("max"), namespace="Circle", known=rooted).term == Const("max")
    own = resolve(parse_term("den"), namespace="Proofs.B", opens=("Proofs.A",), known=rooted)
    assert own.term == Const("Proofs.A.den")
    unmodelled = KnownNames(["Real.exp"], builtins=False)  # every namespace taken as known
    r = resolve(parse_term("exp"), namespace="Circle", opens=("Real",), known=unmodelled)
    assert r.term == Const("Real.exp")


def test_resolve_root_prefix_skips_namespace() -> None:
    known = KnownNames(["foo", "Proofs.foo"], builtins=False)
    assert resolve(parse_term("foo"), namespace="Proofs", known=known).term == Const("Proofs.foo")
    assert resolve(parse_term("_root_.foo"), namespace="Proofs", known=known).term == Const("foo")


def test_resolve_sum_binds_index_in_body_only() -> None:
    r = _resolve("∑ r : Fin N, X r i + r", {"X", "N", "i"})
    assert isinstance(r.term, BinOp)
    body = r.term.lhs
    assert isinstance(body, BigOp) and isinstance(body.body, App)
    assert body.body.args[0] == Var("r")
    assert r.term.rhs == Const("r")
    assert "Finset.sum" in r.constants and "Finset.univ" in r.constants


def test_resolve_lambda_pattern_binds_its_names() -> None:
    r = _resolve("fun (r, k) => f r k", {"f"})
    assert isinstance(r.term, Lam) and isinstance(r.term.body, App)
    assert r.term.body.args == (Var("r"), Var("k"))


def test_resolve_bound_variable_shadows_constant() -> None:
    r = _resolve("fun dense => dense x", {"x"})
    assert isinstance(r.term, Lam) and isinstance(r.term.body, App)
    assert r.term.body.fn == Var("dense")
    assert r.constants == ()


def test_resolve_let_and_match_bind_names() -> None:
    r = _resolve("let y := 1; match n with | 0 => y | m + 1 => m", {"n"})
    assert r.unknown == ()


def test_resolve_quantifier_bound_uses_outer_scope() -> None:
    r = _resolve("∀ ε > δ, ε = ε", {"δ"})
    assert r.unknown == ()


def _seed_decl(**kw) -> Declaration:  # type: ignore[no-untyped-def]
    base = {
        "name": "Proofs.rowDense_weight_grad",
        "kind": "def",
        "module": "Proofs.ViTClose",
        "binders": "{N a c : ℕ} (X : Mat N a) (dY : Mat N c)",
        "statement": "Mat a c",
        "equations": ("Proofs.rowDense_weight_grad X dY i j = ∑ r : Fin N, X r i * dY r j",),
    }
    base.update(kw)
    return Declaration(**base)  # type: ignore[arg-type]


def test_analyse_equation_binds_left_hand_side_pattern_variables() -> None:
    a = analyse_declaration(_seed_decl(), KnownNames())
    assert a.errors == ()
    (eq,) = a.equations
    assert isinstance(eq, BinOp) and isinstance(eq.lhs, App)
    assert eq.lhs.fn == Const("Proofs.rowDense_weight_grad")
    assert eq.lhs.args == (Var("X"), Var("dY"), Var("i"), Var("j"))
    assert a.unknown_constants == ()
    assert a.constants == (
        "Fin",
        "Finset.sum",
        "Finset.univ",
        "Nat",
        "Proofs.Mat",
        "Proofs.rowDense_weight_grad",
    )


def test_analyse_skips_placeholder_equation() -> None:
    decl = _seed_decl(equations=("One or more equations did not get rendered due to their size.",))
    a = analyse_declaration(decl, KnownNames())
    assert a.equations == () and a.errors == ()


def test_analyse_reports_broken_part_and_keeps_the_others() -> None:
    decl = _seed_decl(statement="Mat a (c", statement_line=12, statement_column=40)
    a = analyse_declaration(decl, KnownNames())
    assert a.statement is None
    assert a.binders is not None and len(a.binders) == 3
    assert len(a.equations) == 1
    (err,) = a.errors
    assert (err.part, err.message, err.line, err.column) == (
        "statement",
        "expected ')', found end of input",
        1,
        9,
    )
    assert (err.file_line, err.file_column) == (12, 48)


def test_analyse_reports_equation_error_by_number() -> None:
    decl = _seed_decl(equations=("f x = ", "f = g"))
    a = analyse_declaration(decl, KnownNames())
    assert [e.part for e in a.errors] == ["equation 1"]
    assert len(a.equations) == 1


def test_round_trip_analysis_through_json() -> None:
    a = analyse_declaration(_seed_decl(), KnownNames())
    data = json.loads(json.dumps(a.to_json(), ensure_ascii=False))
    assert Analysis.from_json(data) == a
    broken = analyse_declaration(_seed_decl(binders="{N"), KnownNames())
    assert Analysis.from_json(json.loads(json.dumps(broken.to_json()))) == broken


def test_print_resolved_tree_uses_written_names() -> None:
    a = analyse_declaration(_seed_decl(), KnownNames())
    assert print_term(a.equations[0]) == (
        "Proofs.rowDense_weight_grad X dY i j = ∑ r : Fin N, X r i * dY r j"
    )


def test_hold_upstream_and_library_names_in_known_names() -> None:
    known = KnownNames()
    for name in (
        "Proofs.pdiv",
        "Proofs.dense",
        "Proofs.Mat.flatten",
        "Proofs.Mat.unflatten",
        "Proofs.Kernel4.flatten",
        "Proofs.Vec",
        "Proofs.layerNormForward",
        "Proofs.bnXhat",
        "Proofs.patchEmbed_flat",
        "finProdFinEquiv",
        "Equiv.symm",
        "Fin.succ",
        "Fin.castSucc",
        "Finset.sum",
        "Real.sqrt",
        "Real.exp",
    ):
        assert name in known
    assert "Proofs.rowDense_weight_grad" not in known
    known.add("Proofs.rowDense_weight_grad")
    assert "Proofs.rowDense_weight_grad" in known


def test_resolve_resolved_tree_unchanged() -> None:
    t = parse_term("pdiv")
    once = resolve(t, namespace="Proofs").term
    assert isinstance(once, Const)
    assert resolve(once, namespace="Proofs").term == once


def test_resolve_core_exports_at_the_root() -> None:
    r = _resolve("(some x = none) = (b = true ∨ b = false)", {"x", "b"})
    assert r.constants == ("Bool.false", "Bool.true", "Option.none", "Option.some")
    assert r.unknown == ()


def test_resolve_core_export_in_a_pattern_is_a_constant_not_a_variable() -> None:
    r = _resolve("match o with | none => 0 | some k => k", {"o"})
    assert r.constants == ("Option.none", "Option.some")
    assert r.unknown == ()


def test_free_names_leave_out_bound_and_field_names() -> None:
    from theorem_index.lean import free_names

    found = free_names(
        "(y : Vec n)",
        "∀ x, f x = W (k := 2) y + h.b",
        ["g a (j + 1) = fun z => z + a + j + c"],
    )
    # `g`, the head of the equation, is the declaration itself
    assert found == {"Vec", "n", "f", "W", "h", "c"}


def test_resolve_sqrt_prefix_to_real_sqrt() -> None:
    # Mathlib: `prefix:max "√" => Real.sqrt`, so `√x * y` is `(Real.sqrt x) * y`
    r = _resolve("√x * y", {"x", "y"})
    assert isinstance(r.term, BinOp) and r.term.op == "*"
    assert r.term.lhs == App(Const("Real.sqrt"), (Var("x"),))
    assert "Real.sqrt" in r.constants
    assert print_term(r.term) == "Real.sqrt x * y"


def test_resolve_mathlib_intervals_under_open_set() -> None:
    # Mathlib's intervals are known names: `Ioo` under `open Set` inside a modelled
    # namespace is Set.Ioo, not a guess at `Real.Ioo`
    known = KnownNames(models=["Real.exp"])
    for interval in ("Icc", "Ico", "Ioc", "Ioo", "Ici", "Ioi", "Iic", "Iio"):
        r = resolve(
            parse_term(f"{interval} a"), bound=("a",), namespace="Real", opens=("Set",), known=known
        )
        assert r.term.fn == Const(f"Set.{interval}"), interval
        assert r.unknown == ()
