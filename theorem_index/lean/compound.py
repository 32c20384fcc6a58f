"""The compound nodes of the Lean term tree: those built of subterms.

Applications and operators, brackets and collection literals, projections and indexing,
binder groups and the constructs that bind (`fun`, `∀`/`∃`, `∑`/`∏`, `∫`, `→`, `let`,
`match`), and `if`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .atoms import Term


@dataclass(frozen=True)
class App(Term):
    fn: Term
    args: tuple[Term, ...]


@dataclass(frozen=True)
class NamedArg(Term):
    """`(x := e)` in an application."""

    name: str
    value: Term


@dataclass(frozen=True)
class BinOp(Term):
    """An infix operator (`+ - * / % ^ • ∘ ∣ = ≠ ≤ < ≥ > ∈ ∉ ∧ ∨ → ↔ ×` ...)."""

    op: str
    lhs: Term
    rhs: Term


@dataclass(frozen=True)
class EventuallyRel(Term):
    """Mathlib's `f =ᶠ[l] g` / `f ≤ᶠ[l] g`: `lhs op rhs` holds eventually along the filter
    `filter` (`Filter.EventuallyEq l f g` / `Filter.EventuallyLE l f g`); `op` is `=ᶠ` or `≤ᶠ`."""

    op: str
    filter: Term
    lhs: Term
    rhs: Term


@dataclass(frozen=True)
class ModEq(Term):
    """Mathlib's congruences `a ≡ b [ZMOD n]` (`Int.ModEq n a b`), `[MOD n]` (`Nat.ModEq`),
    `[PMOD p]` (`AddCommGroup.ModEq p a b`) and `[SMOD U]` (`SModEq U a b`); `kind` is the
    word in the brackets."""

    kind: str
    modulus: Term
    lhs: Term
    rhs: Term


@dataclass(frozen=True)
class Prefix(Term):
    """A prefix operator: `-`, `¬`, `↑`, `⇑`, `↥`, `!`."""

    op: str
    arg: Term


@dataclass(frozen=True)
class Postfix(Term):
    """A postfix operator: `⁻¹`, `!` (factorial)."""

    op: str
    arg: Term


@dataclass(frozen=True)
class Typed(Term):
    """A type ascription `(e : T)`."""

    term: Term
    type: Term


@dataclass(frozen=True)
class Paren(Term):
    """Kept only where the parentheses change the meaning Lean gives (none so far);
    the parser does not produce it for ordinary grouping."""

    term: Term


@dataclass(frozen=True)
class Tuple(Term):
    """`(a, b, c)`."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class Anon(Term):
    """The anonymous constructor `⟨a, b⟩`."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class VecLit(Term):
    """`![a, b, c]`."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class ListLit(Term):
    """`[a, b, c]`."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class SetBuilder(Term):
    """`{x | p x}` or `{x : T | p x}`; `binder` is the bound pattern."""

    binder: Binder
    body: Term


@dataclass(frozen=True)
class Abs(Term):
    """`|x|`."""

    term: Term


@dataclass(frozen=True)
class Norm(Term):
    """`‖x‖`."""

    term: Term


@dataclass(frozen=True)
class Proj(Term):
    """Projection / generalised field notation: `(p).1`, `W.flatten` after a
    non-identifier, `e.symm`. `field` is the name or the number as text."""

    term: Term
    field: str


@dataclass(frozen=True)
class Binder(Term):
    """One binder group.

    kind: "explicit" `(x : T)`, "implicit" `{x : T}`, "strict" `⦃x : T⦄`,
    "inst" `[C M]` / `[inst : C M]`, "plain" (no brackets, as in `fun x => ..`
    or `∑ x : T, ..`). `names` may be empty for an anonymous instance binder.
    `pattern` is set instead of `names` for `fun (r, k) => ..` / `fun ⟨a, b⟩ ↦ ..`.
    """

    kind: str
    names: tuple[str, ...]
    type: Term | None = None
    default: Term | None = None
    pattern: Term | None = None


@dataclass(frozen=True)
class Lam(Term):
    """`fun binders => body` (also `λ`, `↦`)."""

    binders: tuple[Binder, ...]
    body: Term


@dataclass(frozen=True)
class MatchAlt(Term):
    patterns: tuple[Term, ...]
    rhs: Term


@dataclass(frozen=True)
class LamMatch(Term):
    """`fun | pat => e | ...`."""

    alts: tuple[MatchAlt, ...]


@dataclass(frozen=True)
class Match(Term):
    """`match e1, e2 with | p1, p2 => rhs ...`."""

    scrutinees: tuple[Term, ...]
    alts: tuple[MatchAlt, ...]


@dataclass(frozen=True)
class BigOp(Term):
    """`∑ x : T, body`, `∑ x ∈ s, body`, `∏ ...`; op is "∑" or "∏".

    `domain` is the `∈ s` finset when present; the body is parsed at
    precedence 67 (Mathlib's `bigOpBinders`)."""

    op: str
    binders: tuple[Binder, ...]
    domain: Term | None
    body: Term


@dataclass(frozen=True)
class Quant(Term):
    """`∀ binders, body` / `∃ binders, body` / `∃! ...`; `bound` holds a binder
    predicate such as `∀ ε > 0, ..` as (op, rhs)."""

    q: str
    binders: tuple[Binder, ...]
    body: Term
    bound: tuple[str, Term] | None = None


@dataclass(frozen=True)
class Pi(Term):
    """A dependent arrow `(x : A) → B` or `{x : A} → B`."""

    binders: tuple[Binder, ...]
    body: Term


@dataclass(frozen=True)
class Let(Term):
    """`let x : T := v; body` (also `have`); `keyword` is "let" or "have"."""

    keyword: str
    name: str
    type: Term | None
    value: Term
    body: Term
    binders: tuple[Binder, ...] = ()
    pattern: Term | None = None  # `let ⟨a, b⟩ := v; body` (then `name` is "")


@dataclass(frozen=True)
class If(Term):
    """`if c then a else b`; `hyp` is the name in `if h : c then ..`."""

    cond: Term
    then: Term
    els: Term
    hyp: str | None = None


@dataclass(frozen=True)
class SetLit(Term):
    """`{a, b, c}` (and `{}`)."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class Subtype(Term):
    """`{x : T // p x}`; the binder holds the name and the optional type."""

    binder: Binder
    body: Term


@dataclass(frozen=True)
class StructInst(Term):
    """`{ x := 1, y := 2 }` or `{ s with x := 1 }`."""

    fields: tuple[tuple[str, Term], ...]
    base: Term | None = None


@dataclass(frozen=True)
class ArrayLit(Term):
    """`#[a, b, c]`."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class Integral(Term):
    """Mathlib's `∫ x, f x ∂μ` and `∫ x in s, f x`: body at precedence 60, measure at 70."""

    binders: tuple[Binder, ...]
    domain: Term | None
    body: Term
    measure: Term | None = None


@dataclass(frozen=True)
class Index(Term):
    """`xs[i]`, `xs[i]!`, `xs[i]?` (Lean's `getElem` notation); `suffix` is "", "!" or "?"."""

    term: Term
    index: Term
    suffix: str = ""
