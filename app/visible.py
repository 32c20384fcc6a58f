"""Control characters written visibly, for the outputs that must not carry them raw.

A theorem name may hold any character Lean accepts inside `«…»`, control characters
included. A terminal would obey them (`ESC ] 0 ; … BEL` retitles it, `\\x08` rubs out what
was printed), and XML 1.0 forbids most of them even as character references. Terminal
output and JUnit XML therefore show each one as the Python-style escape of its code point:
`\\x1b` for the C0 controls, DEL and the C1 controls, `\\ufffe` / `\\uffff` for the two
noncharacters XML forbids, `\\ud800` for a lone surrogate. JSON needs none of this: it
escapes what it must itself.
"""

from __future__ import annotations

import re
import shlex

__all__ = ["has_control", "shell_quote", "visible"]

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ufffe\uffff\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, keep: str = "") -> str:
    """`text` with every control character but those in `keep` (e.g. "\\n") written as its
    escape: "a\\x1bb" (with a real ESC) becomes the seven characters `a\\x1bb`."""
    if not keep:
        return _CONTROL.sub(_escape, text)
    return _CONTROL.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)


def has_control(text: str) -> bool:
    """Whether `text` holds a character that `visible` would write as an escape."""
    return _CONTROL.search(text) is not None


def _shell_escape(match: re.Match[str]) -> str:
    code = ord(match.group())  # `\xHH` is a byte to the shell: code points above 0x7f as `\u`
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def shell_quote(word: str) -> str:
    """`word` quoted for a POSIX shell, as `shlex.quote` does; a word holding control
    characters as a `$'…'` word with their escapes (bash, zsh, ksh), which is visible and
    still gives the shell the exact word: `$'a\\x1bb'`, `$'\\u009b'`."""
    if not has_control(word):
        return shlex.quote(word)
    body = word.replace("\\", "\\\\").replace("'", "\\'")
    return "$'" + _CONTROL.sub(_shell_escape, body) + "'"
