"""Property tests: any text parses or raises `LeanParseError` in linear work; printed trees reparse.

Work is counted, not timed: the parser's `leading` and `trailing` steps per token
stay under a constant, which a backtracking or quadratic parse would exceed on
the longer inputs, and which no machine load can change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from theorem_index.lean import LeanParseError, parse_binders, parse_term, print_term, resolve
from theorem_index.lean import parser as lean_parser
from theorem_index.lean.lexer import tokenize
from theorem_index.lean.precedence import INFIX
from theorem_index.lean.syntax import (
    Abs,
    Anon,
    App,
    BigOp,
    Binder,
    BinOp,
    By,
    CDot,
    Decimal,
    Do,
    EventuallyRel,
    Hole,
    Ident,
    If,
    Index,
    Lam,
    Let,
    ListLit,
    Match,
    MatchAlt,
    NamedArg,
    Norm,
    Num,
    Paren,
    Pi,
    Postfix,
    Prefix,
    Proj,
    Quant,
    SetBuilder,
    Sort,
    Term,
    Tuple,
    Typed,
    VecLit,
)

STEPS_PER_TOKEN = 8
"""Most parser steps (`leading` and `trailing` calls, both parses together) per token.

Measured on 20,000 random texts of the two alphabets below: at most 1.6.
"""

# Characters that make up Lean statements, plus a few that must be rejected.
LEAN_ALPHABET = (
    "abcxyzfgNWαβγεσℝℕ₁₂'0123456789 _.,:;()[]{}⟨⟩⦃⦄|‖!?@#$%^&*-+=<>/\\~"
    "∑∏∀∃¬↑⁻¹•∘∣≠≤≥∈∉∧∨→↔×∪∩⊆·λ↦⌊⌋∫∂ᶠ\"'\n\t«»¤−"
)
WORDS = st.sampled_from(
    "fun λ let have if then else match with by do Type Sort Prop := => ↦ ∑ ∀ ∃ -- /- -/ in "
    "=ᶠ[ ] for termination_by "
    "x y f ( ) ⟨ ⟩ , : 0 1.5 |".split()
)


@contextmanager
def _counted_steps() -> Iterator[list[int]]:
    """Count the parser's `leading` and `trailing` calls while the block runs."""
    steps = [0]
    originals = {name: getattr(lean_parser._Parser, name) for name in ("leading", "trailing")}

    def counting(method: Callable[..., object]) -> Callable[..., object]:
        def step(self: object, *args: object) -> object:
            steps[0] += 1
            return method(self, *args)

        return step

    for name, method in originals.items():
        setattr(lean_parser._Parser, name, counting(method))
    try:
        yield steps
    finally:
        for name, method in originals.items():
            setattr(lean_parser._Parser, name, method)


def _parse_either(text: str) -> None:
    with _counted_steps() as steps:
        try:
            tree = parse_term(text)
        except LeanParseError as err:
            assert 0 <= err.pos <= len(text)
            assert err.line >= 1 and err.column >= 1
        else:
            # nothing is silently left over: the tree spans the text up to its trailing blanks
            if "--" not in text and "/-" not in text:
                assert tree.span.end == len(text.rstrip(" \t\r\n\f\v")), text
        try:
            parse_binders(text)
        except LeanParseError:
            pass
    try:
        tokens = len(tokenize(text).kinds)
    except LeanParseError:
        tokens = 0
    assert steps[0] <= STEPS_PER_TOKEN * (tokens + 1), (text, steps[0], tokens)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=LEAN_ALPHABET, max_size=80))
def test_parse_lean_like_text_succeeds_or_raises_parse_error(text: str) -> None:
    _parse_either(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=30).map(" ".join))
def test_parse_keyword_soup_succeeds_or_raises_parse_error(text: str) -> None:
    _parse_either(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_parse_arbitrary_unicode_succeeds_or_raises_parse_error(text: str) -> None:
    _parse_either(text)


# --- generated trees ---------------------------------------------------------

NAMES = st.sampled_from(["x", "y", "f", "g", "n", "W₁", "γ'", "x̂", "ε"])
DOTTED = st.sampled_from(["Mat.flatten", "n.succ", "finProdFinEquiv.symm", "Real.sqrt"])
OPS = st.sampled_from(
    sorted(op for op in INFIX if op not in ("->", "<->", "<=", ">=", "/\\", "\\/", "$"))
)


def _binder_names() -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(NAMES, min_size=1, max_size=3).map(tuple)


def _trees(leaf: st.SearchStrategy[Term]) -> st.SearchStrategy[Term]:
    def extend(sub: st.SearchStrategy[Term]) -> st.SearchStrategy[Term]:
        explicit = st.builds(lambda ns, t: Binder("explicit", ns, t), _binder_names(), sub)
        plain = st.builds(lambda ns: Binder("plain", ns), _binder_names())
        plain_typed = st.builds(lambda ns, t: Binder("plain", ns, t), _binder_names(), sub)
        binder_groups = st.one_of(
            plain.map(lambda b: (b,)),
            plain_typed.map(lambda b: (b,)),
            st.lists(explicit, min_size=1, max_size=2).map(tuple),
        )
        fn = st.one_of(NAMES.map(Ident), DOTTED.map(Ident), sub.map(lambda t: Proj(t, "1")))
        args = st.lists(
            st.one_of(sub, st.builds(NamedArg, NAMES, sub)), min_size=1, max_size=3
        ).map(tuple)
        return st.one_of(
            st.builds(App, fn, args),
            st.builds(BinOp, OPS, sub, sub),
            st.builds(Prefix, st.sampled_from(["-", "¬", "↑", "√"]), sub),
            st.builds(Postfix, st.sampled_from(["⁻¹", "ᵀ"]), sub),
            st.builds(Proj, sub, st.sampled_from(["1", "2", "symm", "succ"])),
            st.builds(Typed, sub, sub),
            st.lists(sub, min_size=2, max_size=3).map(lambda xs: Tuple(tuple(xs))),
            st.lists(sub, max_size=3).map(lambda xs: Anon(tuple(xs))),
            st.lists(sub, max_size=3).map(lambda xs: VecLit(tuple(xs))),
            st.lists(sub, max_size=3).map(lambda xs: ListLit(tuple(xs))),
            st.builds(Abs, sub),
            st.builds(Norm, sub),
            st.builds(Lam, binder_groups, sub),
            st.builds(
                Lam,
                st.lists(NAMES, min_size=2, max_size=2).map(
                    lambda ns: (Binder("plain", (), pattern=Tuple(tuple(map(Ident, ns)))),)
                ),
                sub,
            ),
            st.builds(
                lambda op, name, ty, dom, body: BigOp(
                    op, (Binder("plain", (name,), ty),), dom if ty is None else None, body
                ),
                st.sampled_from(["∑", "∏"]),
                NAMES,
                st.none() | sub,
                st.none() | sub,
                sub,
            ),
            st.builds(Quant, st.sampled_from(["∀", "∃"]), binder_groups, sub),
            st.builds(
                lambda q, name, op, rhs, body: Quant(
                    q, (Binder("plain", (name,)),), body, (op, rhs)
                ),
                st.sampled_from(["∀", "∃"]),
                NAMES,
                st.sampled_from([">", "≤", "∈"]),
                sub,
                sub,
            ),
            st.builds(lambda b, body: Pi((b,), body), explicit, sub),
            st.builds(lambda c, t, e, h: If(c, t, e, h), sub, sub, sub, st.none() | NAMES),
            st.builds(lambda n, v, b: Let("let", n, None, v, b), NAMES, sub, sub),
            st.builds(
                lambda s, alts: Match((s,), tuple(MatchAlt((p,), r) for p, r in alts)),
                sub,
                st.lists(
                    st.tuples(st.one_of(NAMES.map(Ident), st.just(Hole())), sub),
                    min_size=1,
                    max_size=2,
                ),
            ),
            st.builds(lambda n, body: SetBuilder(Binder("plain", (n,)), body), NAMES, sub),
            st.builds(lambda t: Paren(BinOp("+", CDot(), t)), sub),
            st.builds(Index, sub, sub, st.sampled_from(["", "!", "?"])),
            st.builds(EventuallyRel, st.sampled_from(["=ᶠ", "≤ᶠ"]), sub, sub, sub),
        )

    return st.recursive(leaf, extend, max_leaves=12)


LEAVES = st.one_of(
    NAMES.map(Ident),
    DOTTED.map(Ident),
    st.integers(0, 999).map(lambda n: Num(str(n))),
    st.sampled_from(["1.5", "0.044715", "1e-5"]).map(Decimal),
    st.just(Hole()),
    st.sampled_from([Sort("Type"), Sort("Prop"), Sort("Type", "u"), Sort("Type", "*")]),
    st.just(By("simp")),
    st.just(By("exact ∃ x")),
    st.just(By("intro x\n    simp [f,\n  g]\n    ring")),
    st.just(Do("let y ← g x\n  match a, b with\n  | p, q => pure y")),
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_trees(LEAVES))
def test_print_generated_tree_reparses_to_equal_tree(tree: Term) -> None:
    text = print_term(tree)
    assert parse_term(text) == tree, text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_trees(LEAVES))
def test_resolve_generated_tree_never_fails(tree: Term) -> None:
    resolved = resolve(tree, bound={"x", "n"}, namespace="Proofs")
    assert "Proofs.Mat.flatten" in resolved.constants or "Mat.flatten" not in print_term(tree)
