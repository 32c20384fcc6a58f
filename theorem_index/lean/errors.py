"""The parser's one error type; line and column are computed here and nowhere else."""

from __future__ import annotations


def line_column(source: str, pos: int) -> tuple[int, int]:
    """1-based line and column (in characters) of offset `pos` in `source`."""
    pos = max(0, min(pos, len(source)))
    line = source.count("\n", 0, pos) + 1
    start = source.rfind("\n", 0, pos) + 1
    return line, pos - start + 1


class LeanParseError(ValueError):
    """A Lean term that does not parse: what was expected, and where.

    `pos` is the character offset into `source`; `line` and `column` are
    1-based. `str(err)` is ``"msg (at line L, column C)"``.
    """

    def __init__(self, msg: str, source: str, pos: int) -> None:
        self.msg = msg
        self.source = source
        self.pos = max(0, min(pos, len(source)))
        self.line, self.column = line_column(source, self.pos)
        super().__init__(f"{msg} (at line {self.line}, column {self.column})")

    def __reduce__(self) -> tuple[type, tuple[str, str, int]]:
        return (type(self), (self.msg, self.source, self.pos))
