"""Lean 4 source files: commands, scopes, variables and declarations.

A command starts on a line whose first token is a command keyword. Scope
commands (`namespace`, `section`, `end`, `open`, `variable`, …) are
recognised at column 0 only; declarations (with their attributes and
modifiers) at any indentation, since `mutual` blocks indent them. Each
command runs to the next one. Comments and literals never count: the
lexer (`lean_lexer`) has blanked them first.

Scopes and `variable` binders are kept by `lean_scope`; one declaration
command is parsed by `lean_decl`. `cmd in …` (`open X in`, `omit [C n] in`,
`variable (x) in`) runs `cmd` in a scope of its own that ends with the
command after it, as Lean does.
"""

from __future__ import annotations

import re

from theorem_index.model import PROVED, UNPROVED, Declaration, Document, ModuleDoc, SourceLocation
from theorem_index.readers import errors, prose
from theorem_index.readers.errors import LineIndex, ReadError
from theorem_index.readers.lean_ctors import constructors, fields
from theorem_index.readers.lean_decl import BinderGroup, DeclParser, ParsedDecl, parse_group
from theorem_index.readers.lean_lexer import DocComment, doc_text, mask
from theorem_index.readers.lean_scope import (
    Scope,
    add_variables,
    declaration_mentions,
    instance_name,
    omit,
    open_directives,
    variables_for,
)
from theorem_index.readers.signature import OPENERS, close_group, split_attributes

DECL_KINDS = frozenset(
    "theorem lemma def abbrev instance structure inductive class axiom opaque example".split()
)
MODIFIERS = frozenset(
    "private protected noncomputable partial unsafe nonrec scoped local meta".split()
)
SCOPE_COMMANDS = frozenset("namespace section end open variable include omit mutual".split())
OTHER_COMMANDS = frozenset(
    """import set_option attribute notation infix infixl infixr prefix postfix macro
    macro_rules syntax elab elab_rules declare_syntax_cat deriving initialize
    builtin_initialize run_cmd export irreducible_def alias add_decl_doc library_note
    assert_not_exists suppress_compilation register_simp_attr compile_inductive universe
    unseal seal theory_note
    package require lean_lib lean_exe extern_lib target script input_file input_dir""".split()
)
_CANDIDATE = re.compile(r"^([ \t]*)(@\[|#[a-z_]+|[a-z_]+(?![\w'!?]))", re.M)
_STARTS = DECL_KINDS | MODIFIERS | SCOPE_COMMANDS | OTHER_COMMANDS
_WORD = re.compile(r"[^\W\d][\w'!?]*")
_NAME_TOKEN = re.compile(r"(?<![\w'.!?])[^\W\d][\w'!?]*(?:\.[^\W\d][\w'!?]*)*")
_IN = re.compile(r"(?<![\w'.!?])in(?![\w'!?])")
# what leaves a proof incomplete in Lean itself (a project's own stand-ins are a setting
# of the ingestion: `theorem_index.proofs.with_markers`); an `axiom` has no proof at all,
# so what rests on it is not fully proved either
SORRY_MARKERS = frozenset({"sorry", "admit", "sorryAx"})
_SPACE = re.compile(r"\s*")


def _skip_space(text: str, pos: int) -> int:
    """The first offset at or after `pos` that is not white space."""
    m = _SPACE.match(text, pos)
    return m.end() if m else pos


def module_from_path(rel: str) -> str:
    """`LeanMlir/Proofs/Foo.lean` -> `LeanMlir.Proofs.Foo`."""
    stem = rel.replace("\\", "/")
    if stem.endswith(".lean"):
        stem = stem[:-5]
    return ".".join(part for part in stem.split("/") if part and part != ".")


class _SourceReader:
    def __init__(self, file: str, text: str, rel: str) -> None:
        self.file = file
        self.text = text
        self.index = LineIndex(text)
        masked = mask(text)
        self.scan = masked.scan
        self.code = masked.code
        self.parser = DeclParser(self.scan, self.code, self.index)
        self.module = module_from_path(rel)
        self.scopes = [Scope("file")]
        self.in_prefix = False  # the command just read was `… in`, on its own line
        self.doc = Document(file, "lean", self.module)
        for problem in masked.errors:
            self.doc.errors.append(problem.to_error(file, self.index))
        self.docs_at: dict[int, DocComment] = {}
        for dc in masked.docs:
            if dc.module_doc:
                self._module_doc(dc)
            else:
                self.docs_at[_skip_space(self.scan, dc.end)] = dc

    # --- commands ----------------------------------------------------------

    def read(self) -> Document:
        starts: list[tuple[int, tuple[str, int, tuple[str, ...], tuple[str, ...]]]] = []
        taken = 0
        for m in _CANDIDATE.finditer(self.scan):
            start = m.start(2)
            word = m.group(2)
            if start < taken or (word not in _STARTS and word[0] not in "@#"):
                continue
            try:
                head = self._head(start, indented=bool(m.group(1)))
            except ReadError as exc:
                self._error(exc)
                continue
            if head is not None:
                starts.append((start, head))
                taken = head[1]
        for i, (start, head) in enumerate(starts):
            end = starts[i + 1][0] if i + 1 < len(starts) else len(self.scan)
            self.in_prefix = False
            self._command(start, end, head)
            if not self.in_prefix:
                while self.scopes[-1].kind == "in":
                    self.scopes.pop()
        self.doc.errors.sort(key=lambda e: (e.line or 0, e.column or 0))
        return self.doc

    def _head(
        self, start: int, indented: bool
    ) -> tuple[str, int, tuple[str, ...], tuple[str, ...]] | None:
        """(keyword, offset past it, attributes, modifiers) when a command starts here."""
        scan = self.scan
        if scan.startswith("#", start):
            word = _WORD.match(scan, start + 1)
            return None if indented or word is None else ("#", word.end(), (), ())
        pos = start
        attrs: list[str] = []
        mods: list[str] = []
        while True:
            if scan.startswith("@[", pos):
                close = close_group(scan, pos + 1, len(scan), self.index)
                attrs.append(self.code[pos:close])
                pos = _skip_space(scan, close)
                continue
            word = _WORD.match(scan, pos)
            if word is None:
                return None
            kw = word.group()
            if kw in MODIFIERS:
                mods.append(kw)
                pos = _skip_space(scan, word.end())
                continue
            break
        if kw in DECL_KINDS:
            return kw, word.end(), tuple(attrs), tuple(mods)
        if indented:
            return None
        if kw == "section" or (not attrs and not mods and kw in SCOPE_COMMANDS):
            return kw, word.end(), (), ()
        if kw in OTHER_COMMANDS or attrs or mods:
            return "#", word.end(), (), ()
        return None

    def _command(
        self, start: int, end: int, head: tuple[str, int, tuple[str, ...], tuple[str, ...]]
    ) -> None:
        kw, pos, attrs, mods = head
        try:
            if kw in DECL_KINDS:
                if kw != "example":
                    self._declaration(start, end, kw, pos, attrs, mods)
            elif kw in ("namespace", "section", "mutual"):
                name = self._rest_word(pos, end)
                self.scopes.append(self.scopes[-1].child(kw, name))
            elif kw == "end":
                self._end(start, pos, end)
            elif kw == "open":
                self._open(pos, end)
            elif kw in ("variable", "include", "omit"):
                self._scope_command(kw, pos, end)
            elif kw == "#" or kw == "set_option":
                self._maybe_in(pos, end)
        except ReadError as exc:
            self._error(exc)

    def _rest_word(self, pos: int, end: int) -> str:
        words = self.code[pos:end].split(None, 1)  # `scan` masks the insides of «…»
        return words[0] if words else ""

    def _end(self, start: int, pos: int, end: int) -> None:
        name = self._rest_word(pos, end)
        written = f"end {name}".strip()
        if len(self.scopes) == 1:
            raise ReadError(errors.end_mismatch(written, ""), start)
        scope = self.scopes.pop()
        if scope.name != name:
            raise ReadError(errors.end_mismatch(written, f"end {scope.name}".strip()), start)

    def _open(self, pos: int, end: int) -> None:
        within = _IN.search(self.scan, pos, end)
        stop = within.start() if within else end
        scope = self._enter_in() if within else self.scopes[-1]
        scope.opens.extend(open_directives(self.code[pos:stop], self.scopes[-1].namespace))
        if within is not None:
            self._rest_as_command(within.end(), end)

    def _scope_command(self, kw: str, pos: int, end: int) -> None:
        """`variable`, `include` or `omit`, for the scope or (`… in`) the next command."""
        groups, names, pos = self._items(pos, end)
        within = _IN.match(self.scan, pos)
        scope = self._enter_in() if within else self.scopes[-1]
        if kw == "variable":
            add_variables(scope, groups)
        elif kw == "include":
            scope.includes.update(names)
            scope.includes.update(n for g in groups for n in g.names)
        else:
            omit(scope, groups, names)
        if within is not None:
            self._rest_as_command(within.end(), end)

    def _enter_in(self) -> Scope:
        """The scope of `cmd in …`, which ends with the command after it."""
        scope = self.scopes[-1].child("in")
        self.scopes.append(scope)
        return scope

    def _maybe_in(self, pos: int, end: int) -> None:
        line_end = self.scan.find("\n", pos, end)
        within = _IN.search(self.scan, pos, end if line_end < 0 else line_end)
        if within is not None:
            self._rest_as_command(within.end(), end)

    def _rest_as_command(self, pos: int, end: int) -> None:
        rest = _skip_space(self.scan, pos)
        if rest >= end:
            self.in_prefix = True  # it applies to the next command
            return
        head = self._head(rest, indented=False)
        if head is not None:
            self._command(rest, end, head)

    def _items(self, pos: int, end: int) -> tuple[list[BinderGroup], list[str], int]:
        """The binder groups and bare names that follow a scope command, and where
        they stop."""
        scan = self.scan
        groups: list[BinderGroup] = []
        names: list[str] = []
        while True:
            pos = _skip_space(scan, pos)
            if pos >= end:
                return groups, names, pos
            if scan[pos] in OPENERS:
                close = close_group(scan, pos, end, self.index)
                groups.append(parse_group(self.code[pos:close]))
                pos = close
                continue
            token = _NAME_TOKEN.match(scan, pos, end)
            if token is None or _IN.match(scan, pos):
                return groups, names, pos
            names.append(token.group())
            pos = token.end()

    # --- declarations ------------------------------------------------------

    def _declaration(
        self,
        start: int,
        end: int,
        kw: str,
        pos: int,
        attrs: tuple[str, ...],
        mods: tuple[str, ...],
    ) -> None:
        scope = self.scopes[-1]
        prefix = scope.namespace
        parsed = self.parser.parse(kw, pos, end, prefix)
        kind = "theorem" if kw == "lemma" else kw
        short = parsed.name or instance_name(parsed, scope)
        if short.startswith("_root_."):
            name = short[len("_root_.") :]
        else:
            name = f"{prefix}.{short}" if prefix else short
        binders: tuple[BinderGroup, ...] = parsed.binders
        if scope.variables:
            # a theorem takes the variables its header mentions; a definition also
            # those its body does
            body = self.parser.equations(parsed, name, binders)
            mentioned = declaration_mentions(scope, parsed, body)
            binders = (*variables_for(scope, parsed, mentioned), *binders)
        doc = self.docs_at.get(start)
        first = doc.start if doc is not None else start
        last = start + len(self.scan[start:end].rstrip())
        stmt_line = stmt_col = None
        if parsed.statement_start >= 0:
            stmt_line, stmt_col = self.index.line_col(parsed.statement_start)
        opens = [o for s in self.scopes for o in s.opens]
        attributes = tuple(a for text in attrs for a in split_attributes(text))
        # the proof (or body) as the lexer left it: comments and literals blanked
        uses = tuple(dict.fromkeys(_NAME_TOKEN.findall(self.scan, parsed.body_start, end)))
        self.doc.declarations.append(
            Declaration(
                name=name,
                kind=kind,
                module=self.module,
                binders=" ".join(g.text for g in binders),
                statement=parsed.statement,
                docstring=doc_text(doc.body) if doc is not None else None,
                equations=self.parser.equations(parsed, name, binders),
                attributes=attributes,
                modifiers=mods,
                location=SourceLocation(
                    self.file, self.index.line(first), self.index.line(max(last - 1, start))
                ),
                namespace=name.rpartition(".")[0],
                opens=tuple(dict.fromkeys(opens)),
                proof=UNPROVED if kind == "axiom" or SORRY_MARKERS.intersection(uses) else PROVED,
                proof_uses=uses,
                statement_line=stmt_line,
                statement_column=stmt_col,
            )
        )
        if kind == "inductive":
            self._constructors(parsed, name, opens)
        elif kind == "structure":
            self._fields(parsed, name, opens)

    def _fields(self, parsed: ParsedDecl, name: str, opens: list[str]) -> None:
        """Each field of the structure `name`, as its projection (a declaration without
        an equation: a value of the structure holds the field)."""
        for f in fields(self.parser, parsed):
            self.doc.declarations.append(
                Declaration(
                    name=f"{name}.{f.short}",
                    kind="def",
                    module=self.module,
                    binders=" ".join(g.text for g in f.binders),
                    statement=f.statement,
                    location=SourceLocation(self.file, self.index.line(f.start)),
                    namespace=name,
                    opens=tuple(dict.fromkeys(opens)),
                    proof=PROVED,
                )
            )

    def _constructors(self, parsed: ParsedDecl, name: str, opens: list[str]) -> None:
        """Each constructor of the inductive type `name`, as a declaration of its own."""
        for c in constructors(self.parser, parsed):
            line = col = None
            if c.statement_start >= 0:
                line, col = self.index.line_col(c.statement_start)
            self.doc.declarations.append(
                Declaration(
                    name=f"{name}.{c.short}",
                    kind="ctor",
                    module=self.module,
                    binders=" ".join(g.text for g in c.binders),
                    statement=c.statement,
                    location=SourceLocation(self.file, self.index.line(c.start)),
                    namespace=name,
                    opens=tuple(dict.fromkeys(opens)),
                    proof=PROVED,
                    statement_line=line,
                    statement_column=col,
                )
            )

    # --- module docs and errors --------------------------------------------

    def _module_doc(self, dc: DocComment) -> None:
        text = doc_text(dc.body)
        headings = tuple(
            h for line in text.split("\n") if (h := prose.markdown_heading(line)) is not None
        )
        self.doc.module_docs.append(
            ModuleDoc(
                module=self.module,
                text=text,
                headings=headings,
                mentions=prose.mentions(text),
                location=SourceLocation(
                    self.file, self.index.line(dc.start), self.index.line(dc.end - 1)
                ),
            )
        )

    def _error(self, exc: ReadError) -> None:
        self.doc.errors.append(exc.to_error(self.file, self.index))


def read_lean_source(file: str, text: str, rel: str) -> Document:
    """Read one `.lean` file; `rel` (its path below the root given) names the module."""
    return _SourceReader(file, text, rel).read()
