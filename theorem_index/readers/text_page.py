"""The plain-text rendering of a doc-gen4 page (the seeds' form).

Layout, line by line:

- everything before the first declaration header is one module doc (title,
  prose, tables); an optional line `module: X` there names the module (else
  the file stem does);
- a header line `[modifiers] kind Name binders : statement` starts a
  declaration; the docstring is the prose after it, paragraphs split by
  blank lines;
- a line `Equations` starts the equations: `• Name args = rhs` lines, or
  the line saying they were not rendered;
- after the first declaration, a heading line (ending in ` #`), or prose
  after an equations block, starts a new module doc;
- `Instances For` blocks are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from theorem_index.model import Declaration, Document, IngestError, ModuleDoc, SourceLocation
from theorem_index.readers import errors, prose
from theorem_index.readers.errors import LineIndex, ReadError
from theorem_index.readers.signature import NAME, split_signature

MODIFIERS = ("private", "protected", "noncomputable", "partial", "unsafe", "nonrec", "scoped")
KINDS = (
    "theorem lemma def abbrev instance structure inductive class axiom opaque ctor example".split()
)
_HEADER = re.compile(
    rf"((?:(?:{'|'.join(MODIFIERS)})[ \t]+)*)({'|'.join(KINDS)})[ \t]+({NAME})"
    r"(?=[ \t]*$|[ \t]+[({\[⦃:]|[ \t]+extends\b)"
)
_MODULE_LINE = re.compile(rf"module:[ \t]*({NAME})[ \t]*")
_BULLET = ("• ", "· ", "- ", "* ")
_INSTANCES = ("Instances For", "Instances")


@dataclass
class _Block:
    """Lines of one module doc, or of one declaration after its header."""

    first_line: int
    lines: list[tuple[int, str]] = field(default_factory=list)
    decl: Declaration | None = None
    equations: list[str] = field(default_factory=list)
    rendered: bool = True
    mode: str = "doc"  # doc | equations | instances | broken
    last_line: int = 0


def _strip_bullet(line: str) -> str | None:
    for bullet in _BULLET:
        if line.startswith(bullet):
            return line[len(bullet) :].strip()
    return None


def _paragraphs(lines: list[tuple[int, str]]) -> str:
    paras: list[list[str]] = [[]]
    for _, line in lines:
        if line.strip():
            paras[-1].append(line.rstrip())
        elif paras[-1]:
            paras.append([])
    return "\n\n".join("\n".join(p) for p in paras if p)


class _PageReader:
    def __init__(self, file: str, text: str, stem: str) -> None:
        self.file = file
        self.text = text
        self.index = LineIndex(text)
        self.module = stem
        self.decls: list[Declaration] = []
        self.docs: list[ModuleDoc] = []
        self.errors: list[IngestError] = []

    def read(self) -> Document:
        text = self.text
        block = _Block(first_line=1)
        seen_decl = False
        pos = 0
        lineno = 0
        length = len(text)
        while pos <= length:
            nl = text.find("\n", pos)
            end = length if nl < 0 else nl
            line_end = end - 1 if end > pos and text[end - 1] == "\r" else end
            lineno += 1
            line = text[pos:line_end]
            header = _HEADER.match(text, pos, line_end) if line[:1].isalpha() else None
            if header is not None:
                self._finish(block)
                seen_decl = True
                block = _Block(first_line=lineno)
                block.decl = self._header(header, line_end, lineno)
                if block.decl is None:
                    block.mode = "broken"
            elif not seen_decl:
                module_line = _MODULE_LINE.fullmatch(line.strip())
                if module_line:
                    self.module = module_line.group(1)
                else:
                    block.lines.append((lineno, line))
            else:
                block = self._body_line(block, lineno, line)
            if line.strip():
                block.last_line = lineno
            if nl < 0:
                break
            pos = nl + 1
        self._finish(block)
        return Document(self.file, "text", self.module, self.decls, self.docs, self.errors)

    def _body_line(self, block: _Block, lineno: int, line: str) -> _Block:
        stripped = line.strip()
        if block.decl is None and block.mode != "broken":
            block.lines.append((lineno, line))
            return block
        if prose.text_heading(stripped) is not None:
            self._finish(block)
            return _Block(first_line=lineno, lines=[(lineno, line)])
        if block.mode == "broken":
            return block
        if stripped == "Equations":
            block.mode = "equations"
            return block
        if stripped in _INSTANCES:
            block.mode = "instances"
            return block
        if not stripped:
            if block.mode == "doc":
                block.lines.append((lineno, line))
            return block
        item = _strip_bullet(stripped)
        if block.mode == "equations":
            if item is None and stripped != errors.UNRENDERED_EQUATIONS:
                self._finish(block)
                return _Block(first_line=lineno, lines=[(lineno, line)])
            if (item or stripped) == errors.UNRENDERED_EQUATIONS:
                block.rendered = False
            else:
                block.equations.append(item or stripped)
            return block
        if block.mode == "instances":
            if item is None:
                self._finish(block)
                return _Block(first_line=lineno, lines=[(lineno, line)])
            return block
        block.lines.append((lineno, line))
        return block

    def _header(self, m: re.Match[str], line_end: int, lineno: int) -> Declaration | None:
        modifiers = tuple(m.group(1).split())
        kind, name = m.group(2), m.group(3)
        kind = "theorem" if kind == "lemma" else kind
        try:
            binders, s_start, s_end = split_signature(
                self.text, m.end(), line_end, name, self.index
            )
        except ReadError as exc:
            self.errors.append(exc.to_error(self.file, self.index))
            return None
        _, column = self.index.line_col(s_start)
        return Declaration(
            name=name,
            kind=kind,
            module=self.module,
            binders=binders,
            statement=" ".join(self.text[s_start:s_end].split()),
            modifiers=modifiers,
            namespace=name.rpartition(".")[0],
            location=SourceLocation(self.file, lineno, lineno),
            statement_line=lineno,
            statement_column=column,
        )

    def _finish(self, block: _Block) -> None:
        if block.mode == "broken":
            return
        content = [(n, line) for n, line in block.lines if line.strip()]
        if block.decl is None:
            if not content:
                return
            text = _paragraphs(block.lines)
            headings = tuple(
                h for _, line in content if (h := prose.text_heading(line.strip())) is not None
            )
            self.docs.append(
                ModuleDoc(
                    module=self.module,
                    text=text,
                    headings=headings,
                    mentions=prose.mentions(text),
                    location=SourceLocation(self.file, content[0][0], content[-1][0]),
                )
            )
            return
        decl = block.decl
        last = max(block.first_line, block.last_line)
        doc = _paragraphs(block.lines)
        self.decls.append(
            replace(
                decl,
                module=self.module,
                docstring=doc or None,
                equations=tuple(block.equations),
                equations_rendered=block.rendered,
                location=SourceLocation(self.file, block.first_line, last),
            )
        )


def read_text_page(file: str, text: str, stem: str) -> Document:
    """Read a plain-text doc page; `stem` names the module unless a `module:` line does."""
    return _PageReader(file, text, stem).read()
