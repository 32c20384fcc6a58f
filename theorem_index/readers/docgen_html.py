"""doc-gen4 HTML: one module page (`Proofs/Foo.html`) of a `doc/` output tree.

Each `div.decl` becomes a Declaration; each `div.mod_doc` a ModuleDoc; a
page with neither (the tree's index, navbar, search pages) has module "". The
page is parsed with lxml, whose parser repairs truncated markup silently, so
truncation is found separately: a scan of the raw `<div>` nesting reports
every declaration whose `</div>` never comes, and those declarations are
left out while every complete one is kept. So is nesting deeper than lxml
reads (256 elements), which would empty the whole page: each declaration
nested so deeply is reported and the page is read without it.
"""

from __future__ import annotations

import re

from lxml import etree

from theorem_index.model import (
    PROVED,
    UNPROVED,
    Declaration,
    Document,
    IngestError,
    ModuleDoc,
    SourceLocation,
)
from theorem_index.readers import errors
from theorem_index.readers.errors import LineIndex
from theorem_index.readers.html_parts import (
    HtmlElement,
    blocks_to_text,
    classes,
    fragment,
    heading_text,
    parse_html,
    read_header,
    text_of,
)
from theorem_index.readers.signature import NAME, split_attributes
from theorem_index.readers.storable import shown_name

_DIV_OR_SKIP = re.compile(
    r"<div\b([^>]*)>|</div\s*>|<!--.*?(?:-->|\Z)|<script\b.*?(?:</script\s*>|\Z)", re.S | re.I
)
_CLASS_ATTR = re.compile(r"""\bclass\s*=\s*["']([^"']*)["']""", re.I)
_ID_ATTR = re.compile(r"""\bid\s*=\s*["']([^"']*)["']""", re.I)
_MODULE_CONST = re.compile(r"""MODULE_NAME\s*=\s*["']([^"']+)["']""")
_SOURCE_LINES = re.compile(r"#L(\d+)(?:-L(\d+))?$")
_DECL_XPATH = etree.XPath("//div[contains(concat(' ', normalize-space(@class), ' '), ' decl ')]")
_MODDOC_XPATH = etree.XPath(
    "//div[contains(concat(' ', normalize-space(@class), ' '), ' mod_doc ')]"
)
_NAME_RE = re.compile(NAME)
_DOCSTRING_END = frozenset({"details"})
_NOT_NEWLINE = re.compile(r"[^\n]")
_NUL_OR_REFERENCE = re.compile(r"\x00|&#[xX]([0-9a-fA-F]{1,8});?|&#([0-9]{1,10});?")


def _decl_divs(text: str) -> tuple[list[tuple[int, int, str]], list[tuple[int, str]]]:
    """The `div.decl`s of a page's raw markup: (start, end, id) of each closed one, and
    (start, id) of each whose closing `</div>` is missing."""
    stack: list[tuple[int, str | None]] = []
    closed: list[tuple[int, int, str]] = []
    for m in _DIV_OR_SKIP.finditer(text):
        token = m.group()
        if token.startswith("<!") or token[:7].lower() == "<script":
            continue
        if token.startswith("</"):
            if stack:
                start, opened = stack.pop()
                if opened is not None:
                    closed.append((start, m.end(), opened))
            continue
        attrs = m.group(1)
        cls = _CLASS_ATTR.search(attrs)
        decl_id: str | None = None
        if cls and "decl" in cls.group(1).split():
            ident = _ID_ATTR.search(attrs)
            decl_id = ident.group(1) if ident else "(unnamed)"
        stack.append((m.start(), decl_id))
    return closed, [(offset, ident) for offset, ident in stack if ident is not None]


def unclosed_decls(text: str) -> list[tuple[int, str]]:
    """(offset, id) of every `div.decl` whose closing `</div>` is missing."""
    return _decl_divs(text)[1]


def _replaced_char(text: str) -> tuple[int, str] | None:
    """The first NUL, or character reference to no Unicode character (`&#0;`,
    `&#xD800;`), that HTML reads as U+FFFD: its offset and how it is written."""
    for m in _NUL_OR_REFERENCE.finditer(text):
        if m.group() == "\x00":
            return m.start(), "a NUL character"
        code = int(m.group(1), 16) if m.group(1) else int(m.group(2))
        if code == 0 or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
            return m.start(), f"the character reference {m.group()}"
    return None


def module_from_path(rel: str) -> str:
    """`Proofs/Foo.html` -> `Proofs.Foo` (the path relative to the doc root)."""
    stem = rel.replace("\\", "/")
    for ext in (".html", ".htm", ".xhtml"):
        if stem.lower().endswith(ext):
            stem = stem[: -len(ext)]
            break
    return ".".join(part for part in stem.split("/") if part and part != ".")


def page_module(text: str, root: HtmlElement | None, rel: str) -> str:
    """The module a page documents: its MODULE_NAME script, else its title when
    that is a dotted name (`Proofs.Foo`), else its path below the doc root."""
    const = _MODULE_CONST.search(text)
    if const:
        return const.group(1)
    if root is not None:
        title = root.find(".//title")
        if title is not None:
            words = text_of(title)
            if "." in words and _NAME_RE.fullmatch(words):
                return words
    return module_from_path(rel)


class _Page:
    def __init__(self, file: str, text: str, rel: str) -> None:
        self.file = file
        self.text = text
        self.rel = rel
        self.index = LineIndex(text)
        self.errors: list[IngestError] = []

    def read(self) -> Document:
        text = self.text
        # undecodable bytes go back as they came: lxml decodes them as browsers do
        root, cut_deep = parse_html(text.encode("utf-8", "surrogateescape"), whole=True)
        if cut_deep:
            root = self._without_deep_decls(text)
        replaced = _replaced_char(text)
        if replaced is not None:
            line, col = self.index.line_col(replaced[0])
            self.errors.append(IngestError(self.file, line, col, errors.html_replaced(replaced[1])))
        module = page_module(text, root, self.rel)
        doc = Document(self.file, "docgen-html", module, errors=self.errors)
        end_line, end_col = self.index.line_col(len(text.rstrip()))
        cut: set[str] = set()
        for offset, ident in unclosed_decls(text):
            cut.add(ident)
            line, col = self.index.line_col(offset)
            self.errors.append(
                IngestError(
                    self.file, line, col, errors.truncated_decl(ident, line, col, end_line, end_col)
                )
            )
        lowered = text[:4096].lower()
        if not cut and "<html" in lowered and "</html" not in text[-4096:].lower():
            self.errors.append(
                IngestError(self.file, end_line, end_col, errors.truncated_page(end_line, end_col))
            )
        if root is None:
            return doc
        for el in _DECL_XPATH(root):
            ident = el.get("id") or ""
            if ident in cut:
                continue
            decl = self.declaration(el, module)
            if decl is not None:
                doc.declarations.append(decl)
        names = {d.name for d in doc.declarations}
        short = {d.short_name: d.name for d in doc.declarations}
        for el in _MODDOC_XPATH(root):
            doc.module_docs.append(self.module_doc(el, module, names, short))
        if not (doc.declarations or doc.module_docs or cut or _MODULE_CONST.search(text)):
            doc.module = ""  # not a module page: an index, the navbar, a search page
        return doc

    def _without_deep_decls(self, text: str) -> HtmlElement | None:
        """lxml gave up on markup nested too deeply: report each declaration that is, and
        read the page without them (blanked, so that lines stay where they were)."""
        kept = text
        for start, end, ident in _decl_divs(text)[0]:
            piece = text[start:end].encode("utf-8", "surrogateescape")
            if not parse_html(piece, whole=False)[1]:
                continue
            line, col = self.index.line_col(start)
            message = errors.too_deep(f"declaration {shown_name(ident)}")
            self.errors.append(IngestError(self.file, line, col, message))
            kept = kept[:start] + _NOT_NEWLINE.sub(" ", kept[start:end]) + kept[end:]
        root, cut = parse_html(kept.encode("utf-8", "surrogateescape"), whole=True)
        if cut:
            message = errors.too_deep("the page outside its declarations")
            self.errors.append(IngestError(self.file, None, None, message))
            return None
        return root

    def declaration(self, el: HtmlElement, module: str) -> Declaration | None:
        inner = next((c for c in el if c.tag == "div"), None)
        name = el.get("id") or ""
        header_el = None if inner is None else _child_with_class(inner, "decl_header")
        if inner is None or header_el is None:
            self.errors.append(
                IngestError(self.file, el.sourceline, None, errors.html_no_header(name))
            )
            return None
        header = read_header(header_el)
        name = name or header.name
        if header.statement is None:
            self.errors.append(
                IngestError(self.file, header_el.sourceline, None, errors.html_no_header(name))
            )
            return None
        words = header.kind_text.split()
        cls = classes(inner)
        kind = cls[0] if cls else (words[-1] if words else "")
        attributes: tuple[str, ...] = ()
        location = SourceLocation(self.file, el.sourceline)
        doc_blocks: list[HtmlElement] = []
        equations: list[str] = []
        rendered = True
        after_header = False
        for child in inner:
            if not isinstance(child.tag, str):
                continue
            ccls = classes(child)
            if child is header_el:
                after_header = True
            elif "gh_link" in ccls:
                location = _source_location(child, location)
            elif "attributes" in ccls:
                attributes = split_attributes(text_of(child))
            elif child.tag in _DOCSTRING_END or ccls:
                after_header = False
                for li in child.iter("li"):
                    if "equation" in classes(li):
                        eq = text_of(li)
                        if eq == errors.UNRENDERED_EQUATIONS:
                            rendered = False
                        else:
                            equations.append(eq)
            elif after_header:
                doc_blocks.append(child)
        line, column = self._type_position(header.type_element)
        docstring = blocks_to_text(doc_blocks)
        return Declaration(
            name=name,
            kind=kind,
            module=module,
            binders=header.binders,
            statement=header.statement,
            docstring=docstring or None,
            equations=tuple(equations),
            equations_rendered=rendered,
            attributes=attributes,
            modifiers=tuple(words[:-1]),
            location=location,
            namespace=name.rpartition(".")[0],
            proof=UNPROVED
            if "sorried" in classes(el) or header.uses_sorry or kind == "axiom"
            else PROVED,
            links=header.links,
            statement_line=line,
            statement_column=column,
        )

    def _type_position(self, el: HtmlElement | None) -> tuple[int | None, int | None]:
        if el is None or el.sourceline is None:
            return None, None
        start = self.index.line_start(el.sourceline)
        tag = self.text.find("decl_type", start)
        close = self.text.find(">", tag) if tag >= 0 else -1
        if close < 0:
            return el.sourceline, None
        return self.index.line_col(close + 1)

    def module_doc(
        self, el: HtmlElement, module: str, names: set[str], short: dict[str, str]
    ) -> ModuleDoc:
        blocks = [c for c in el if isinstance(c.tag, str)]
        headings = tuple(heading_text(c) for c in el.iter("h1", "h2", "h3", "h4", "h5", "h6"))
        found: dict[str, None] = {}
        for node in el.iter("a", "code"):
            if node.tag == "a":
                if "hover-link" in classes(node) or (node.get("href") or "").startswith("#"):
                    continue
                target = fragment(node.get("href"))
                if target and _NAME_RE.fullmatch(target):
                    found.setdefault(target, None)
            else:
                code = text_of(node)
                full = code if code in names else short.get(code)
                if full:
                    found.setdefault(full, None)
        last = max((c.sourceline or 0 for c in el.iter() if isinstance(c.tag, str)), default=0)
        return ModuleDoc(
            module=module,
            text=blocks_to_text(blocks),
            headings=headings,
            mentions=tuple(found),
            location=SourceLocation(self.file, el.sourceline, last or el.sourceline),
        )


def _child_with_class(el: HtmlElement, cls: str) -> HtmlElement | None:
    for child in el:
        if isinstance(child.tag, str) and cls in classes(child):
            return child
    return None


def _source_location(gh_link: HtmlElement, default: SourceLocation) -> SourceLocation:
    anchor = next(gh_link.iter("a"), None)
    href = anchor.get("href") if anchor is not None else None
    if not href:
        return default
    lines = _SOURCE_LINES.search(href)
    if lines is None:
        return SourceLocation(href.split("#", 1)[0], None, None)
    start = int(lines.group(1))
    end = int(lines.group(2)) if lines.group(2) else start
    return SourceLocation(href.split("#", 1)[0], start, end)


def read_html_page(file: str, text: str, rel: str) -> Document:
    """Read one doc-gen4 module page; `rel` is its path below the doc root."""
    return _Page(file, text, rel).read()
