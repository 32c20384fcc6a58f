"""Module-doc prose: its headings and the declaration names it mentions.

The mention rule (prose has no markup to tell a name from a word):

- an identifier is `[A-Za-z_][\\w.'₀-₉]*` (trailing dots are not part of
  it; one followed by a glob `*` is a pattern, not a name);
- it is a mention when it contains `_`, an inner `.` between two
  components (not a one-letter abbreviation such as `e.g`), or a lowercase
  letter followed by a capital (camelCase: `vitNetB`, `HasGradAt`);
- an identifier ending in `_` is a subscript in math (`X_(r,i)`), not a name,
  and one ending in a file extension (`Foo.lean`) is a file, not a name;
- a possessive `'s` or `s'` loses its apostrophe (`blkSaves'` -> `blkSaves`);
- text inside backticks counts whenever it is one identifier;
- mentions are deduplicated and kept in order of first appearance.

Mentions are candidates: which of them name ingested declarations is for
the caller to decide against what it has read.
"""

from __future__ import annotations

import re

_IDENT = re.compile(r"(?<![\w.'₀-₉])[A-Za-z_][\w.'₀-₉]*")
_CODE = re.compile(r"`([^`\n]+)`")
_CAMEL = re.compile(r"[a-z][A-Z]")
_ABBREV = re.compile(r"[A-Za-z](?:\.[A-Za-z])+")
_FILE_EXTENSIONS = frozenset({"lean", "md", "py", "mlir", "json", "txt", "html"})
_ONE_IDENT = re.compile(r"[A-Za-z_][\w.'₀-₉!?]*")


def _clean(token: str) -> str:
    token = token.rstrip(".")
    if token.endswith("'s"):
        token = token[:-2]
    elif token.endswith("s'"):
        token = token[:-1]
    return token


def _is_mention(token: str) -> bool:
    if not token or token.endswith("_") or _ABBREV.fullmatch(token):
        return False
    if token.rsplit(".", 1)[-1] in _FILE_EXTENSIONS and "." in token:
        return False
    return "_" in token or "." in token or _CAMEL.search(token) is not None


def mentions(text: str) -> tuple[str, ...]:
    """The identifiers in `text` that look like declaration names (see module doc)."""
    found: list[tuple[int, str]] = []
    for m in _CODE.finditer(text):
        code = m.group(1).strip().rstrip(".")
        if _ONE_IDENT.fullmatch(code):
            found.append((m.start(), code))
    plain = _CODE.sub(lambda m: " " * len(m.group()), text)
    for m in _IDENT.finditer(plain):
        token = m.group()
        if "_" not in token and "." not in token and _CAMEL.search(token) is None:
            continue
        if plain.startswith("*", m.end()):
            continue
        token = _clean(token)
        if _is_mention(token):
            found.append((m.start(), token))
    found.sort()
    return tuple(dict.fromkeys(name for _, name in found))


def text_heading(line: str) -> str | None:
    """A rendered heading line ends in ` #` (the anchor); return it without, else None."""
    stripped = line.rstrip()
    if stripped.endswith(" #") and len(stripped) > 2:
        return stripped[:-2].rstrip()
    return None


def markdown_heading(line: str) -> str | None:
    """A markdown heading line `## Title ##` -> `Title`, else None."""
    stripped = line.strip()
    if not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    if level > 6 or (len(stripped) > level and stripped[level] not in " \t"):
        return None
    title = stripped[level:].strip().rstrip("#").rstrip()
    return title or None
