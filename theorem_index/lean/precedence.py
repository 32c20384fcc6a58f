"""Lean 4 / Mathlib precedences, as data: the one table the parser and printer share.

Numbers are Lean's own (`Init/Notation.lean`, `Init/Core.lean`, Mathlib's
`Order`, `Algebra` and `BigOperators` notation files). In Lean's Pratt parser
every trailing parser has a precedence `prec` (it applies only while parsing
at a level <= `prec`), a requirement on the precedence of its left operand
(`lhs`) and a level at which its right operand is parsed (`rhs`):

- `infixl:p`  -> (p, p,     p + 1)
- `infixr:p`  -> (p, p + 1, p)
- `infix:p`   -> (p, p + 1, p + 1)
- `notation:p a:l " op " b:r` -> (p, l, r)
"""

from __future__ import annotations

from typing import NamedTuple

MAX = 1024  # identifiers, parentheses, projections
ARG = 1023  # application arguments
LEAD = 1022  # terms that may not be arguments (`∀`, `let`, `by`, ...); application itself
MIN = 10  # `<|`, `$`, `|>`
INF = 10**6  # "closed": nothing that follows can attach inside


class Infix(NamedTuple):
    prec: int
    lhs: int
    rhs: int


def _l(p: int) -> Infix:
    return Infix(p, p, p + 1)


def _r(p: int) -> Infix:
    return Infix(p, p + 1, p)


def _n(p: int) -> Infix:
    return Infix(p, p + 1, p + 1)


INFIX: dict[str, Infix] = {
    # Init/Notation.lean
    "∘": _r(90),
    "×": _r(35),
    "×'": _r(35),
    "∣": _n(50),
    "|||": _l(55),
    "^^^": _l(58),
    "&&&": _l(60),
    "+": _l(65),
    "-": _l(65),
    "*": _l(70),
    "/": _l(70),
    "%": _l(70),
    "<<<": _l(75),
    ">>>": _l(75),
    "^": _r(80),
    "++": _l(65),
    "•": _r(73),
    "<=": _n(50),
    "≤": _n(50),
    "<": _n(50),
    ">=": _n(50),
    "≥": _n(50),
    ">": _n(50),
    "=": _n(50),
    "==": _n(50),
    "≍": _n(50),
    "≠": _n(50),
    "!=": _n(50),
    "/\\": _r(35),
    "∧": _r(35),
    "\\/": _r(30),
    "∨": _r(30),
    "&&": _l(35),
    "||": _l(30),
    "∈": Infix(50, 50, 50),
    "∉": Infix(50, 50, 50),
    "::": _r(67),
    "<$>": _r(100),
    ">>=": _l(55),
    "<|>": Infix(20, 21, 20),
    ">>": Infix(60, 61, 60),
    "<*>": Infix(60, 60, 61),
    "↔": _n(20),
    "<->": _n(20),
    # the arrow is built into the term parser: `a → b` at 25, right-associative
    "→": _r(25),
    "->": _r(25),
    # pipes: `syntax:min term " <| " term:min`, `syntax:min term " |> " term:min1`
    "<|": Infix(MIN, MIN, MIN),
    "$": Infix(MIN, MIN, MIN),
    "|>": Infix(MIN, MIN, MIN + 1),
    # Mathlib
    "≃": _l(25),
    "≈": _n(50),
    "∪": _l(65),
    "∩": _l(70),
    "\\": _n(70),
    "⊆": _n(50),
    "⊂": _n(50),
    "⊇": _n(50),
    "⊃": _n(50),
    "×ˢ": _r(82),
    "''": _l(80),
    "⁻¹'": _l(80),
    "⬝ᵥ": _l(72),
    "*ᵥ": _r(73),
    "ᵥ*": _l(73),
    "⊙": _l(100),  # Matrix.hadamard
    "∆": _l(100),
    "⊔": _l(68),
    "⊓": _l(69),
    "⊗": _r(100),
    "≪": _n(50),
    "▸": _r(75),
}

# Mathlib's relations along a filter, `f =ᶠ[l] g`: opening token -> the operator's
# binding powers. `notation:50 f " =ᶠ[" l:50 "] " g:50` leaves `f` without a
# level, so the left operand may be anything (0); the filter and `g` are at 50.
FILTER_RELS: dict[str, Infix] = {
    "=ᶠ[": Infix(50, 0, 50),
    "≤ᶠ[": Infix(50, 0, 50),
}
FILTER_LEVEL = 50

# Mathlib's congruences `a ≡ b [ZMOD n]`: `notation:50 a " ≡ " b " [ZMOD " n "]"`, the
# bracket's word -> the relation's constant
MOD_EQ: dict[str, str] = {
    "ZMOD": "Int.ModEq",
    "MOD": "Nat.ModEq",
    "PMOD": "AddCommGroup.ModEq",
    "SMOD": "SModEq",
}
MOD_EQ_PREC = 50

# Prefix operators: token -> (precedence of the node, level of the operand).
PREFIX: dict[str, tuple[int, int]] = {
    "-": (75, 75),  # prefix:75 "-"
    "¬": (MAX, 40),  # notation:max "¬" p:40
    "!": (MAX, 40),  # notation:max "!" b:40
    "↑": (MAX, MAX),  # syntax:max "↑" term:max
    "⇑": (MAX, MAX),
    "↥": (MAX, MAX),
    "√": (MAX, MAX),  # Mathlib: prefix:max "√"
    "#": (MAX, MAX),  # Mathlib: prefix "#" => Finset.card (scoped in Finset)
    "~~~": (100, 100),
    "@": (MAX, MAX),
    "@&": (MAX, MAX),  # borrowed-parameter annotation `@& T`
}

# Postfix operators: token -> precedence (all `postfix:max`, lhs at max).
POSTFIX: dict[str, int] = {
    "⁻¹": MAX,
    "ᵀ": MAX,
    "ᴴ": MAX,
    "ᶜ": MAX,
}

# Binders and notations that extend as far as possible to the right: the level
# at which their body is parsed, and the precedence of the whole node.
BIGOP_BODY = 67  # Mathlib: "∑ " bigOpBinders ", " term:67
BIGOP_PREC = MAX  # `syntax ... : term` without a precedence
FUN_PREC = MAX  # leading_parser:maxPrec
QUANT_PREC = LEAD  # ∀, ∃ (leadPrec)
LET_PREC = LEAD  # let, have (leadPrec)
IF_PREC = MAX  # `syntax "if " ... : term`
MATCH_PREC = LEAD
BY_PREC = LEAD
DO_PREC = ARG
INTEGRAL_BODY = 60  # Mathlib: "∫ "(...)", "r:60 " ∂"μ:70
INTEGRAL_MEASURE = 70
INTEGRAL_PREC = MAX
PI_PREC = 25  # `(x : A) → B`, body at 25
TYPED_PREC = MAX

# Notation identifiers: written form -> fully qualified constant.
NOTATION_CONSTANTS: dict[str, str] = {
    "ℝ": "Real",
    "ℕ": "Nat",
    "ℤ": "Int",
    "ℚ": "Rat",
    "ℂ": "Complex",
    "ℝ≥0": "NNReal",
    "ℚ≥0": "NNRat",
    "ℝ≥0∞": "ENNReal",
    "ℕ∞": "ENat",
    "π": "Real.pi",
    "∞": "Top.top",
    "⊤": "Top.top",
    "⊥": "Bot.bot",
    "∅": "EmptyCollection.emptyCollection",
}

# Prefix notations that stand for a function applied to the operand: token -> the
# function's fully qualified name (Mathlib: `prefix:max "√" => Real.sqrt`).
PREFIX_CONSTANTS: dict[str, str] = {
    "√": "Real.sqrt",
    "#": "Finset.card",
}
