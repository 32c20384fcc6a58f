"""Rendering the dashboard's pages: the Jinja2 environment, markdown, and the headers.

Every template is autoescaped, so Lean text (names, binders, statements, reasons) is
always printed as text, each name, statement and reason isolated in a `<bdi>` (so that a
right-to-left override in it cannot reverse the text after it). Docstrings and module docs
are markdown only where their input wrote markdown (doc-gen4 JSON and Lean source); those
of plain-text and HTML pages are already rendered text and are shown as such, line breaks
kept. Markdown-it-py parses markdown with raw HTML disabled (a `<script>` in a docstring
stays the text `<script>`), and its
output goes through nh3 with an allow-list of tags and attributes, links limited to
http, https and relative addresses. Pages are served with a Content-Security-Policy that
allows the dashboard's own script and style sheet only, so that anything that still got
through could not run.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

import nh3
from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, StrictUndefined
from markdown_it import MarkdownIt
from markupsafe import Markup

from app import __version__
from app.dashboard.login import current_login
from theorem_index.lean import hypotheses

__all__ = [
    "CSP",
    "MARKDOWN_FORMATS",
    "isolate",
    "module_url",
    "page",
    "render_doc",
    "render_markdown",
    "theorem_url",
    "with_hypotheses",
]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)

ALLOWED_TAGS = {
    "a", "p", "br", "hr", "em", "strong", "code", "pre", "blockquote", "ul", "ol", "li",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}
URL_SCHEMES = {"http", "https"}

# the input formats whose docstrings and module docs are markdown source; the others
# (`text`, `docgen-html`) hold text already rendered from markdown
MARKDOWN_FORMATS = frozenset({"docgen-json", "lean"})

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def render_markdown(text: str | None) -> Markup:
    """Markdown to sanitised HTML (raw HTML in the text is shown as text)."""
    if not text:
        return Markup("")
    html = _markdown.render(text)
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    return Markup(clean)  # sanitised by nh3 just above


def render_doc(text: str | None, source_format: str | None) -> Markup:
    """A docstring or module doc: markdown where its input wrote markdown, else its text
    as it is (escaped, line breaks kept by the style sheet's `.plain-doc`)."""
    if not text:
        return Markup("")
    if source_format in MARKDOWN_FORMATS:
        return render_markdown(text)
    return Markup('<div class="plain-doc">{}</div>').format(text)


def isolate(text: Any) -> Markup:
    """User text (a name, statement, reason) in a `<bdi>`: its bidirectional controls
    (U+202E RIGHT-TO-LEFT OVERRIDE) end with it instead of reordering what follows."""
    return Markup("<bdi>{}</bdi>").format("" if text is None else text)


def with_hypotheses(binders: str | None, statement: str) -> Markup:
    """A statement as the lists show it: after its hypotheses, the binders whose type is a
    proposition (`x ≤ 0 ⊢ Real.sqrt x = 0`), so that a statement true only under them
    does not read as false; each part isolated."""
    shown = isolate(statement)
    found = hypotheses(binders or "")
    if not found:
        return shown
    return Markup(", ").join(isolate(h) for h in found) + Markup(" ⊢ ") + shown


def theorem_url(name: str) -> str:
    return "/theorems/" + quote(name, safe="")


def module_url(module: str) -> str:
    return "/modules/" + quote(module, safe="")


def _number(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "–"
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return str(value)
    return f"{value:.{digits}g}"


def _number_cell(value: float | None, digits: int = 3) -> Markup:
    """A number for a table: `1e-10` must not break at its minus sign (`.num`: nowrap)."""
    return Markup('<span class="num">{}</span>').format(_number(value, digits))


def _when(value: datetime | None) -> str:
    return "–" if value is None else value.strftime("%Y-%m-%d %H:%M:%S UTC")


def _query(base: str, **params: Any) -> str:
    """`base` with the non-empty `params` as its query string."""
    kept = {k: v for k, v in params.items() if v not in (None, "")}
    return f"{base}?{urlencode(kept)}" if kept else base


_env = Environment(
    loader=PackageLoader("app", "templates/dashboard"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.filters["markdown"] = render_markdown
_env.filters["doc"] = render_doc
_env.filters["bdi"] = isolate
_env.filters["number"] = _number_cell
_env.filters["when"] = _when
_env.globals.update(
    theorem_url=theorem_url,
    module_url=module_url,
    query=_query,
    version=__version__,
    with_hypotheses=with_hypotheses,
)


def page(
    request: Request, template: str, context: dict[str, Any], *, status_code: int = 200
) -> HTMLResponse:
    """The template rendered with `context` (and who is logged in), with the page headers."""
    login = current_login(request)
    html = _env.get_template(template).render(
        request=request, login=login, path=request.url.path, **context
    )
    response = HTMLResponse(html, status_code=status_code)
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    return response
