"""A corpus of hostile inputs, each in the four input forms and beside a good declaration.

Every case is one file: a hostile declaration (a lone surrogate, a NUL, control
characters, a right-to-left override, a quote inside «…», a 100,000-character name,
parentheses nested 10,000 deep, invalid UTF-8) followed by a good one, `good`, that must
survive whatever the hostile one does. The texts are written with `surrogateescape`, so
that U+DC80 to U+DCFF in a template become the raw bytes 0x80 to 0xFF.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

FORMS = ("lean", "json", "text", "html")
KINDS = (
    "surrogate",
    "nul",
    "control",
    "bidi",
    "guillemet_quote",
    "long_name",
    "deep_nesting",
    "invalid_utf8",
)
GOOD_STATEMENT = ("(x : ℝ)", "x + 0 = x")
LONG = 100_000
DEPTH = 10_000
# the UTF-8 encoding of U+D800 (not valid UTF-8), and two bytes that are never UTF-8
SURROGATE_BYTES = "\udced\udca0\udc80"
INVALID_BYTES = "\udcff\udcfe"


@dataclass(frozen=True)
class Hostile:
    """One declaration: its name's last part, binders, statement and docstring, as the
    form writes them (`raw`: already escaped for the form, e.g. an HTML character
    reference, else escaped by the form's writer)."""

    part: str
    binders: str = "(x : ℝ)"
    statement: str = "x = x"
    doc: str = "A hostile declaration."
    raw: bool = False
    markup: str | None = None  # the statement as doc-gen4 renders it, when not escaped text


# what no database may hold: the hostile declaration is refused with an error
REFUSED = frozenset({"surrogate", "nul", "long_name", "invalid_utf8"})


@dataclass(frozen=True)
class Case:
    kind: str
    form: str
    file: str
    data: bytes
    good: str  # the good declaration's full name
    hostile: str  # the hostile one's

    @property
    def kept(self) -> list[str]:
        """The names ingestion keeps: the hostile one too unless it breaks a storage rule
        (an HTML page's NUL or undecodable byte reads as U+FFFD, as in a browser) or its
        doc-gen4 markup nests deeper than the HTML parser reads."""
        html_replaced = self.form == "html" and self.kind in ("surrogate", "nul", "invalid_utf8")
        too_deep = self.form in ("html", "json") and self.kind == "deep_nesting"
        refused = (self.kind in REFUSED and not html_replaced) or too_deep
        return [self.good] if refused else [self.hostile, self.good]

    @property
    def id(self) -> str:
        return f"{self.form}-{self.kind}"


def _hostile(kind: str, form: str) -> Hostile:
    quoted = form in ("lean", "text", "html")  # names there are Lean identifiers
    if kind == "surrogate":
        doc = {"json": "lone \ud800 here", "html": "lone &#xD800; here"}.get(
            form, f"lone {SURROGATE_BYTES} here"
        )
        return Hostile("surrogate_doc", doc=doc, raw=form == "html")
    if kind == "nul":
        doc = "nul &#0; and \x00 here" if form == "html" else "nul \x00 here"
        return Hostile("nul_doc", doc=doc, raw=form == "html")
    if kind == "control":
        name = "ctl\x1b]0;retitled\x07\x1b[2J\x08\x7f\x9b"
        return Hostile(f"«{name}»" if quoted else name, doc="bell \x07 escape \x1b[31m red")
    if kind == "bidi":
        name = "bidi\u202eevil\u2066x"
        return Hostile(f"«{name}»" if quoted else name, doc="text \u202e reversed")
    if kind == "guillemet_quote":
        return Hostile('«a"b/c»')  # a slash too: the API's paths must reach it
    if kind == "long_name":
        return Hostile("n" * LONG)
    if kind == "deep_nesting":
        # doc-gen4 renders each application as a span of its own
        markup = '<span class="fn">(' * DEPTH + "x" + ")</span>" * DEPTH + " = x"
        return Hostile("deep", statement="(" * DEPTH + "x" + ")" * DEPTH + " = x", markup=markup)
    assert kind == "invalid_utf8"
    return Hostile("bad_bytes", statement=f"x{INVALID_BYTES} = x", doc=f"doc {INVALID_BYTES}")


def _lean(module: str, decls: list[tuple[str, Hostile]]) -> str:
    out = [f"namespace {module}\n"]
    for short, h in decls:
        out.append(f"/-- {h.doc} -/\ntheorem {short} {h.binders} : {h.statement} := by simp\n")
    out.append(f"end {module}\n")
    return "\n".join(out)


def _text(module: str, decls: list[tuple[str, Hostile]]) -> str:
    out = [f"Hostile page #\n\nmodule: {module}\n"]
    for short, h in decls:
        out.append(f"theorem {module}.{short} {h.binders} : {h.statement}\n\n{h.doc}\n")
    return "\n".join(out)


def _header(name: str, h: Hostile) -> str:
    esc = html.escape
    return (
        '<div class="decl_header"><span class="decl_kind">theorem</span>'
        f'<span class="decl_name"><a href="#">{esc(name)}</a></span>'
        f'<span class="decl_args">{esc(h.binders)}</span>'
        '<span class="decl_args"> :</span>'
        f'<div class="decl_type">{esc(h.statement) if h.markup is None else h.markup}</div></div>'
    )


def _json(module: str, decls: list[tuple[str, Hostile]]) -> str:
    entries = [
        {
            "info": {"name": f"{module}.{short}", "kind": "theorem", "doc": h.doc, "line": 1},
            "header": _header(f"{module}.{short}", h),
        }
        for short, h in decls
    ]
    text = json.dumps({"name": module, "declarations": entries}, indent=1, ensure_ascii=False)
    # a lone surrogate as doc-gen4 would spell it; U+DC80 to U+DCFF stay raw bytes
    return re.sub("[\ud800-\udc7f]", lambda m: f"\\u{ord(m.group()):04x}", text)


def _html(module: str, decls: list[tuple[str, Hostile]]) -> str:
    parts = [
        f'<!DOCTYPE html>\n<html><head><meta charset="UTF-8"><title>{module}</title>'
        f'<script>const MODULE_NAME="{module}";</script></head><body><main>\n'
    ]
    for short, h in decls:
        name = f"{module}.{short}"
        doc = h.doc if h.raw else html.escape(h.doc)
        parts.append(
            f'<div class="decl" id="{html.escape(name)}"><div class="theorem">\n'
            f"{_header(name, h)}\n<p>{doc}</p>\n</div></div>\n"
        )
    parts.append("</main></body></html>\n")
    return "".join(parts)


_WRITERS = {"lean": _lean, "text": _text, "json": _json, "html": _html}
_FILES = {
    "lean": "Hostile/{m}.lean",
    "text": "{m}.txt",
    "json": "declaration-data-{m}.bmp",
    "html": "Hostile/{m}.html",
}


def case(kind: str, form: str) -> Case:
    module = f"H_{form}_{kind}"
    hostile = _hostile(kind, form)
    good = Hostile("good", *GOOD_STATEMENT, doc="Adding zero changes nothing.")
    text = _WRITERS[form](module, [(hostile.part, hostile), ("good", good)])
    file = _FILES[form].format(m=module)
    data = text.encode("utf-8", "surrogateescape")
    return Case(kind, form, file, data, f"{module}.good", f"{module}.{hostile.part}")


CASES = [case(kind, form) for kind in KINDS for form in FORMS]
