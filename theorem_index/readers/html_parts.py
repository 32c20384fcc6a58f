"""Pieces of doc-gen4 markup: the declaration header and rendered markdown.

Shared by the HTML page reader and the JSON reader (whose `header` field
is the same `decl_header` markup). Headers follow doc-gen4's templates:
`span.decl_kind`, `span.decl_name`, one `span.decl_args` per binder
(wrapped in `span.impl_arg` when implicit), `span.decl_args` " :", then
`div.decl_type`; every referenced constant is an `<a href="...#Full.Name">`.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

from lxml import etree
from lxml import html as lxml_html
from lxml.html import HtmlElement

from theorem_index.readers import prose
from theorem_index.readers.signature import normalize

_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_LISTS = frozenset({"ul", "ol"})
_BLOCKS = frozenset({"p", "ul", "ol", "pre", "blockquote", "table", "hr", "div"} | _HEADINGS)


def parse_html(data: bytes | str, *, whole: bool) -> tuple[HtmlElement | None, bool]:
    """lxml's tree of a page (`whole`) or of one element's markup, and whether lxml gave
    part of it up: markup nested more than 256 elements deep is dropped, the rest of a
    page with it, without an exception. None when lxml cannot read it at all."""
    parser = lxml_html.HTMLParser(encoding="utf-8") if whole else lxml_html.HTMLParser()
    try:
        if whole:
            root = lxml_html.document_fromstring(data, parser=parser)
        else:
            root = lxml_html.fragment_fromstring(data, parser=parser)
    except (etree.ParserError, ValueError):
        return None, False
    cut = any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log)
    return root, cut


def classes(el: HtmlElement) -> list[str]:
    return (el.get("class") or "").split()


def text_of(el: HtmlElement) -> str:
    """An element's text as displayed: whitespace runs collapsed to one space."""
    return normalize(el.text_content())


def fragment(href: str | None) -> str | None:
    """The declaration name an `href="…#Name"` points at, or None."""
    if not href or "#" not in href:
        return None
    frag = unquote(href.rsplit("#", 1)[1])
    return frag or None


@dataclass(frozen=True)
class Header:
    kind_text: str
    name: str
    binders: str
    statement: str | None
    links: tuple[tuple[str, str], ...]
    type_element: HtmlElement | None
    # doc-gen4's mark on the name of a declaration whose proof uses `sorry`
    # (`title="declaration uses 'sorry'"`)
    uses_sorry: bool = False


def _collect_links(el: HtmlElement, out: dict[tuple[str, str], None]) -> None:
    for a in el.iter("a"):
        target = fragment(a.get("href"))
        if target:
            out.setdefault((text_of(a), target), None)


def read_header(header: HtmlElement) -> Header:
    """Read a `div.decl_header`; `statement` is None when it has no `div.decl_type`."""
    kind_text = ""
    name = ""
    binders: list[str] = []
    statement: str | None = None
    type_el: HtmlElement | None = None
    links: dict[tuple[str, str], None] = {}
    parents: list[str] | None = None
    uses_sorry = False
    for child in header:
        if not isinstance(child.tag, str):
            continue
        cls = classes(child)
        if "decl_kind" in cls:
            kind_text = text_of(child)
        elif "decl_name" in cls:
            uses_sorry = "uses 'sorry'" in (child.get("title") or "")
            anchor = next(child.iter("a"), None)
            target = fragment(anchor.get("href")) if anchor is not None else None
            name = target or "".join(child.text_content().split())
        elif "decl_type" in cls:
            statement = text_of(child)
            type_el = child
            _collect_links(child, links)
        elif "decl_extends" in cls:
            parents = []
        elif "decl_args" in cls or "impl_arg" in cls:
            text = text_of(child)
            if text != ":":
                binders.append(text)
                _collect_links(child, links)
        elif parents is not None:
            parents.append(text_of(child))
            _collect_links(child, links)
    if parents:
        binders.append("extends " + ", ".join(parents))
    return Header(kind_text, name, " ".join(binders), statement, tuple(links), type_el, uses_sorry)


def blocks_to_text(elements: list[HtmlElement]) -> str:
    """Rendered markdown back to plain text: paragraphs split by blank lines,
    list items as `• item` lines, code blocks verbatim, headings without the
    trailing anchor `#`."""
    parts = [part for el in elements if (part := _block(el))]
    return "\n\n".join(parts)


def _block(el: HtmlElement, depth: int = 0) -> str:
    tag = el.tag if isinstance(el.tag, str) else ""
    if tag == "pre":
        return el.text_content().strip("\n")
    if tag in _HEADINGS:
        return heading_text(el)
    if tag in _LISTS:
        lines = []
        for number, li in enumerate(el.iterchildren("li"), start=1):
            bullet = f"{number}. " if tag == "ol" else "• "
            lines.append("  " * depth + bullet + _list_item(li, depth))
        return "\n".join(lines)
    if tag in ("blockquote", "div") and any(c.tag in _BLOCKS for c in el):
        return blocks_to_text([c for c in el if isinstance(c.tag, str)])
    if tag == "table":
        rows = []
        for tr in el.iter("tr"):
            rows.append("\t".join(text_of(cell) for cell in tr if cell.tag in ("td", "th")))
        return "\n".join(rows)
    if tag == "hr":
        return ""
    return text_of(el)


def _list_item(li: HtmlElement, depth: int) -> str:
    if not any(isinstance(c.tag, str) and c.tag in _BLOCKS for c in li):
        return text_of(li)
    inline: list[str] = [li.text or ""]
    nested: list[str] = []
    for child in li:
        if not isinstance(child.tag, str):
            inline.append(child.tail or "")
        elif child.tag in _LISTS:
            nested.append(_block(child, depth + 1))
            inline.append(child.tail or "")
        elif child.tag in _BLOCKS:
            nested.append(_block(child, depth + 1))
            inline.append(child.tail or "")
        else:
            inline.append(child.text_content() + (child.tail or ""))
    first = normalize("".join(inline))
    lines = ([first] if first else []) + nested
    return "\n".join(lines)


def heading_text(el: HtmlElement) -> str:
    """A heading's text without doc-gen4's trailing anchor `#`."""
    text = text_of(el)
    stripped = prose.text_heading(text)
    if stripped is not None:
        return stripped
    return text[:-1].rstrip() if text.endswith("#") else text
