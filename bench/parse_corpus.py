"""Parse rate over a folder of Lean 4 sources.

Extracts every `theorem` / `lemma` / `def` / `abbrev` signature (everything
after the name up to the top-level `:=`, a leading `|` of an equation or
`where`), splits it into binders and type at the first top-level `:`, parses
both, and reports the share that parse, the most common failure causes, a sample
of failures with their file, line and column, and any parsed part whose
printed form does not re-parse to an equal tree.

    python bench/parse_corpus.py ../lean4-mlir [--show 20]
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from theorem_index.lean import (  # noqa: E402
    LeanParseError,
    parse_binders,
    parse_term,
    print_binders,
    print_term,
)

_DECL = re.compile(
    r"^[ \t]*(?:@\[[^\n]*?\][ \t]*\n?[ \t]*)*"
    r"(?:(?:private|protected|noncomputable|partial|unsafe|nonrec|scoped)[ \t]+)*"
    r"(theorem|lemma|def|abbrev)[ \t]+(\S+)",
    re.MULTILINE,
)
_OPEN = "([{⟨⦃"
_CLOSE = ")]}⟩⦄"


@dataclass(frozen=True)
class Signature:
    file: str
    kind: str
    name: str
    binders: str
    binders_pos: int
    type: str
    type_pos: int


def mask_comments(text: str) -> str:
    """`text` with comments and string contents blanked (newlines kept), so
    offsets stay true and code inside strings is never taken for a declaration."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' and text[i - 1 : i] != "'":
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
        elif text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/-", i):
            depth, j = 0, i
            while j < n:
                if text.startswith("/-", j):
                    depth += 1
                    j += 2
                elif text.startswith("-/", j):
                    depth -= 1
                    j += 2
                    if depth == 0:
                        break
                else:
                    j += 1
            for k in range(i, min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def _signature_end(text: str, i: int) -> int:
    depth = 0
    pending_let = 0  # `let`/`have` in the type take the next top-level `:=`
    n = len(text)
    line_start = True
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            line_start = False
            continue
        if c == "\n":
            line_start = True
            i += 1
            if depth == 0 and _DECL.match(text, i):
                return i
            continue
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0:
            if text.startswith(":=", i):
                if pending_let == 0:
                    return i
                pending_let -= 1
                i += 2
                continue
            if c == "|" and line_start and text[i + 1 : i + 2].isspace():
                return i
            if (text.startswith("let ", i) or text.startswith("have ", i)) and (
                text[i - 1 : i].isspace()
            ):
                pending_let += 1
            if (
                text.startswith("where", i)
                and text[i - 1] in " \n"
                and not text[i + 5 : i + 6].isalnum()
            ):
                return i
        if not c.isspace():
            line_start = False
        i += 1
    return n


def _split_type(sig: str) -> int:
    """Offset of the first top-level ':' (not ':='), or -1."""
    depth = 0
    i = 0
    n = len(sig)
    while i < n:
        c = sig[i]
        if c == '"':
            j = i + 1
            while j < n and sig[j] != '"':
                j += 2 if sig[j] == "\\" else 1
            i = j + 1
            continue
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif c == ":" and depth == 0 and not sig.startswith(":=", i):
            return i
        i += 1
    return -1


def signatures(path: Path) -> list[Signature]:
    raw = path.read_text(encoding="utf-8", errors="replace")
    text = mask_comments(raw)
    out = []
    for m in _DECL.finditer(text):
        start = m.end()
        end = _signature_end(text, start)
        sig = text[start:end]
        colon = _split_type(sig)
        if colon < 0:
            binders, type_, tpos = sig, "", end
        else:
            binders, type_, tpos = sig[:colon], sig[colon + 1 :], start + colon + 1
        out.append(Signature(str(path), m.group(1), m.group(2), binders, start, type_, tpos))
    return out


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--show", type=int, default=15, help="failures to list")
    args = ap.parse_args(argv)
    files = sorted(args.folder.rglob("*.lean"))
    sigs = [s for f in files for s in signatures(f)]
    by_kind: collections.Counter[str] = collections.Counter()
    ok_kind: collections.Counter[str] = collections.Counter()
    causes: collections.Counter[str] = collections.Counter()
    examples: dict[str, str] = {}
    failures = []
    other = 0
    round_trip_failures: list[str] = []
    t0 = time.perf_counter()
    for s in sigs:
        kind = "theorem" if s.kind in ("theorem", "lemma") else "definition"
        by_kind[kind] += 1
        try:
            if s.binders.strip():
                try:
                    binders = parse_binders(s.binders)
                    if parse_binders(print_binders(binders)) != binders:
                        round_trip_failures.append(f"{s.file} {s.name}: binders")
                except LeanParseError as err:
                    raise _At(err, s.binders_pos) from None
            if s.type.strip():
                try:
                    stmt = parse_term(s.type)
                    if parse_term(print_term(stmt)) != stmt:
                        round_trip_failures.append(f"{s.file} {s.name}: statement")
                except LeanParseError as err:
                    raise _At(err, s.type_pos) from None
        except _At as at:
            text = Path(s.file).read_text(encoding="utf-8", errors="replace")
            line, col = _line_col(text, at.base + at.err.pos)
            cause = (
                re.sub(r"'[^']*'", "'…'", at.err.msg, count=0)
                if "found" in at.err.msg
                else at.err.msg
            )
            causes[cause] += 1
            where = f"{s.file}:{line}:{col}"
            examples.setdefault(cause, f"{where} {s.name}: {at.err.msg}")
            failures.append(f"{where} {s.name}: {at.err.msg}")
            continue
        except Exception as exc:  # anything but LeanParseError is a parser bug
            other += 1
            failures.append(f"{s.file} {s.name}: NOT A LeanParseError: {exc!r}")
            continue
        ok_kind[kind] += 1
    elapsed = time.perf_counter() - t0
    total = sum(by_kind.values())
    ok = sum(ok_kind.values())
    print(
        f"files: {len(files)}  signatures: {total}  parsed: {ok}  ({100 * ok / max(total, 1):.2f}%)"
    )
    for kind in sorted(by_kind):
        n, k = by_kind[kind], ok_kind[kind]
        print(f"  {kind:<11} {k}/{n}  ({100 * k / max(n, 1):.2f}%)")
    print(f"failures that are not LeanParseError: {other}")
    n_bad = len(round_trip_failures)
    print(f"parsed parts whose printed form does not re-parse to an equal tree: {n_bad}")
    for f in round_trip_failures[:5]:
        print("  " + f)
    print(f"parse + print + re-parse time: {elapsed:.2f} s")
    print("most common failure causes:")
    for cause, n in causes.most_common(12):
        print(f"  {n:5d}  {cause}\n         e.g. {examples[cause]}")
    if args.show:
        print(f"first {args.show} failures:")
        for f in failures[: args.show]:
            print("  " + f)
    return 0


class _At(Exception):
    def __init__(self, err: LeanParseError, base: int) -> None:
        self.err = err
        self.base = base


if __name__ == "__main__":
    raise SystemExit(main())
