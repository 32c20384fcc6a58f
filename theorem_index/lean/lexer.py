"""Tokens of Lean 4 terms: one precompiled regular expression, no per-character loop.

Identifiers follow Lean's rules (`isIdFirst`/`isIdRest`: ASCII and Latin
letters, Greek except `λ Π Σ`, letter-like symbols such as `ℝ ℕ`, subscripts, `'`,
`!`, `?`, and `«quoted»` parts), extended with combining marks so that
`x̂` is one name. A dotted name (`Mat.flatten`, `n.succ`) is one token; a
`.1` or `.name` written right after a closing bracket or a name is a field
token (projection); `.name` elsewhere is a leading-dot name.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .errors import LeanParseError

_LATIN = "\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_GREEK = "\u03b1-\u03ba\u03bc-\u03c9\u0391-\u039f\u03a1\u03a4-\u03a9\u03ca-\u03fb\u1f00-\u1ffe"
_LETTERLIKE = "\u2100-\u214f\U0001d49c-\U0001d59f"
_SUBSCRIPT = "\u2080-\u2089\u2090-\u209c\u1d62-\u1d6a\u2c7c"
_COMBINING = "\u0300-\u036f"
ID_FIRST = f"A-Za-z_{_LATIN}{_GREEK}{_LETTERLIKE}"
ID_REST = f"{ID_FIRST}0-9'!?{_SUBSCRIPT}{_COMBINING}"
_PART = f"(?:[{ID_FIRST}][{ID_REST}]*|«[^»\\n]*»)"
ID_RE = re.compile(f"{_PART}(?:\\.{_PART})*\\Z")
ID_REST_RE = re.compile(f"[{ID_REST}]")

KEYWORDS = frozenset(
    (
        "fun at by do else from have if in let match show then with where Type Sort Prop "
        "forall exists calc suffices nomatch nofun deriving termination_by decreasing_by "
        "open return mut for unless theorem lemma def instance structure class inductive "
        "namespace section end variable universe example abbrev noncomputable private "
        "protected"
    ).split()
)

# Notation tokens made of letter-like characters, which could also begin a name.
LETTERLIKE_TOKENS = ("𝔼",)

# Every symbol token, longest first so that the alternation picks the longest match.
SYMBOLS = sorted(
    set(
        (
            "( ) [ ] { } ⟨ ⟩ ⦃ ⦄ ⟦ ⟧ ![ #[ , ; := : => ↦ · . .. @ @& ? ← <- | ‖ ‖₊ ⌊ ⌋ ⌋₊ ⌈ ⌉ ⌉₊ "
            "∑ ∏ ∑' ∏' 𝔼 ∀ ∃ ∃! ∀ᶠ ∃ᶠ λ Π Σ Σ' ∫ ∂ ∞ ⊤ ⊥ ∅ // ⋃ ⋂ ⨆ ⨅ ⟪ ⟫ !![ # "
            "∘ × ×' ∣ ||| ^^^ &&& + - * / % <<< >>> ^ ++ • <= ≤ < >= ≥ > = == ≍ ≠ != "
            "/\\ ∧ \\/ ∨ && || ∈ ∉ :: <$> >>= <|> >> <*> ↔ <-> → -> <| $ |> ≃ ≈ ∪ ∩ \\ "
            "≡ ⊆ ⊂ ⊇ ⊃ ×ˢ '' ⁻¹' ⬝ᵥ *ᵥ ᵥ* ⊙ ∆ ⊔ ⊓ ⊗ ≪ ▸ ¬ ! ↑ ⇑ ↥ √ ~~~ ⁻¹ ᵀ ᴴ ᶜ =ᶠ[ ≤ᶠ["
        ).split()
    ),
    key=lambda s: (-len(s), s),
)

_TOKEN = re.compile(
    r"(?>(?:[ \t\r\n\f\v]+|--[^\n]*)*)(?:"
    + "|".join(
        (
            r"(?P<special>ℝ≥0∞|ℝ≥0|ℚ≥0|ℕ∞)",
            r"(?P<sort>Type\*|Sort\*)",
            # a letter-like notation token is a token, not a name, where no name character
            # follows it (Lean reads the longer of a name and a token, the token at a tie)
            f"(?P<letterlike>(?:{'|'.join(LETTERLIKE_TOKENS)})(?![{ID_REST}]))",
            f"(?P<id>{_PART}(?:\\.{_PART})*)",
            r"(?P<block>/-)",
            f"(?P<field>\\.(?:[0-9]+|{_PART}))",
            r"(?P<hex>0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+)",
            r"(?P<dec>[0-9]+(?:\.[0-9]+(?:[eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+))",
            r"(?P<num>[0-9]+)",
            r'(?P<str>"(?:[^"\\]|\\.)*")',
            r"(?P<char>'(?:[^'\\\n]|\\[^\n]+?)')",
            r"(?P<sym>\S)",
        )
    )
    + ")"
)
_SKIP = re.compile(r"(?:[ \t\r\n\f\v]+|--[^\n]*)*")

# Symbols by their first character, longest first: one dictionary lookup and a
# few `startswith` per symbol instead of a long regular-expression alternation.
_SYMBOLS_BY_FIRST: dict[str, tuple[str, ...]] = {}
for _sym in SYMBOLS:
    _SYMBOLS_BY_FIRST[_sym[0]] = (*_SYMBOLS_BY_FIRST.get(_sym[0], ()), _sym)
_KIND = {
    "special": "id",
    "letterlike": "sym",
    "sort": "kw",
    "sym": "sym",
    "hex": "num",
    "num": "num",
    "dec": "dec",
    "str": "str",
    "char": "char",
}

# Tokens after which a `.name`/`.1` written without a space is a projection (the
# postfix operators too: Mathlib's `Mᵀ.det` is `(Mᵀ).det`).
_CLOSERS = frozenset(")]}⟩⦄·") | frozenset({"ᵀ", "ᴴ", "⁻¹", "ᶜ"})


class Tokens(NamedTuple):
    """Parallel lists, one entry per token, plus a final `eof` token.

    kind: "id" | "kw" | "num" | "dec" | "str" | "char" | "sym" | "field" | "dot" | "eof"
    ws:   whitespace (or a comment) precedes the token
    """

    kinds: list[str]
    texts: list[str]
    starts: list[int]
    ends: list[int]
    ws: list[bool]


def _skip_block_comment(text: str, pos: int) -> int:
    """`pos` is at `/-`; return the offset just after the matching `-/` (they nest)."""
    depth = 0
    i = pos
    n = len(text)
    while i < n:
        if text.startswith("/-", i):
            depth += 1
            i += 2
        elif text.startswith("-/", i):
            depth -= 1
            i += 2
            if depth == 0:
                return i
        else:
            i += 1
    raise LeanParseError("unterminated comment", text, pos)


_G = _TOKEN.groupindex
_G_ID, _G_SYM, _G_FIELD, _G_BLOCK = _G["id"], _G["sym"], _G["field"], _G["block"]
_KIND_BY_INDEX = {_G[name]: kind for name, kind in _KIND.items()}


# prefixes of an interpolated string literal
_INTERPOLATED = frozenset({"s!", "f!", "m!"})


def tokenize(text: str) -> Tokens:
    kinds: list[str] = []
    texts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    wss: list[bool] = []
    n = len(text)
    pos = 0
    ws_pending = True  # the start of the text counts as whitespace
    tok = _TOKEN.match
    kw = KEYWORDS
    kind_of = _KIND_BY_INDEX
    by_first = _SYMBOLS_BY_FIRST
    g_id, g_sym, g_field, g_block = _G_ID, _G_SYM, _G_FIELD, _G_BLOCK
    while True:
        m = tok(text, pos)
        if m is None:  # blanks and comments up to the end, or a blank Lean does not allow
            rest = _SKIP.match(text, pos).end()  # type: ignore[union-attr]
            if rest < n:
                raise LeanParseError(f"unexpected character {text[rest]!r}", text, rest)
            break
        gi = m.lastindex
        start = m.start(gi)  # type: ignore[arg-type]
        ws = ws_pending or start > pos
        ws_pending = False
        if gi == g_id:
            end = m.end()
            s = text[start:end]
            kind = "kw" if s in kw else "id"
        elif gi == g_sym:
            for s in by_first.get(text[start], ()):
                if text.startswith(s, start):
                    break
            else:
                ch = text[start]
                if ch == '"':
                    raise LeanParseError("unterminated string literal", text, start)
                raise LeanParseError(f"unexpected character {ch!r}", text, start)
            kind = "sym"
            end = start + len(s)
        elif gi == g_field:
            end = m.end()
            s = text[start + 1 : end]
            if not ws and kinds and (kinds[-1] in ("id", "field", "dot") or texts[-1] in _CLOSERS):
                kind = "field"
            elif s[0].isdigit():
                raise LeanParseError(f"unexpected field '.{s}'", text, start)
            else:
                kind = "dot"
        elif gi == g_block:
            pos = _skip_block_comment(text, start)
            ws_pending = True
            continue
        else:
            end = m.end()
            s = text[start:end]
            kind = kind_of[gi]  # type: ignore[index]
        if kind == "str" and not ws and kinds and kinds[-1] == "id" and texts[-1] in _INTERPOLATED:
            # `s!"…{x}…"`: one interpolated string literal, not a function applied to one
            kinds.pop()
            texts.pop()
            start = starts.pop()
            ends.pop()
            ws = wss.pop()
            s = text[start:end]
        kinds.append(kind)
        texts.append(s)
        starts.append(start)
        ends.append(end)
        wss.append(ws)
        pos = end
    kinds.append("eof")
    texts.append("")
    starts.append(n)
    ends.append(n)
    wss.append(True)
    return Tokens(kinds, texts, starts, ends, wss)


def is_identifier(name: str) -> bool:
    """Whether `name` lexes as one (possibly dotted) identifier that is not a keyword."""
    return bool(ID_RE.match(name)) and name not in KEYWORDS
