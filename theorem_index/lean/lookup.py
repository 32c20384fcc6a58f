"""Name lookup: the constant a name denotes in one declaration context.

A name is looked up as Lean does: in the declaration's namespace and each
enclosing one (innermost first), then through the `open` directives (see
`open_scope`), then at the root; a doc-gen4 link gives the full name
directly. A name that only an `open` resolves, written inside a namespace whose
constants are not all known (`KnownNames.models`), is the unknown constant of that
namespace (`exp` in `namespace Circle` is `Circle.exp`, not the opened `Real.exp`):
Lean would take the namespace's own constant wherever it exists. A name found at the
root (`Fin`, `max`, `deriv`) is Lean's or Mathlib's global one: a namespace
declaring its own `Fin` is not guessed at, nor, for a qualified name
(`Real.exp`), a namespace nested under the enclosing one by that name
(`Circle.Real`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .known import KnownNames
from .open_scope import open_scope


def _unquote(name: str) -> str:
    return name.replace("«", "").replace("»", "") if "«" in name else name


class NameLookup:
    """The constants names denote in one declaration context: its namespaces, `open`
    directives and doc-gen4 links (a base of `Resolver`)."""

    def __init__(
        self,
        *,
        namespace: str = "",
        opens: Sequence[str] = (),
        known: KnownNames,
        links: Mapping[str, str] | None = None,
    ) -> None:
        self.known = known
        self.links = dict(links or {})
        chain = []
        ns = namespace
        while ns:
            chain.append(ns + ".")
            ns = ns.rpartition(".")[0]
        self.prefixes = tuple(chain)
        self.opened = open_scope(opens, known)
        self.constants: set[str] = set()
        self.unknown: set[str] = set()
        self._cache: dict[str, str | None] = {}

    # --- lookup --------------------------------------------------------------

    def lookup(self, name: str) -> str | None:
        """The fully qualified constant `name` denotes, or None."""
        cached = self._cache.get(name, "")
        if cached != "":
            return cached
        found: str | None = None
        if name in self.links:
            found = self.links[name]
        else:
            plain = _unquote(name)
            if plain.startswith("_root_."):
                found = plain[7:] if plain[7:] in self.known else None
            else:
                inside = [p + plain for p in self.prefixes]
                opened = self.opened.candidates(plain)
                candidates = [*inside, *opened, plain]
                found = next((c for c in candidates if c in self.known), None)
                if found is None:
                    found = self.known.alias(plain)
                elif "." not in plain and found not in inside and found in opened:
                    found = self._shadow(plain, found) or found
        self._cache[name] = found
        return found

    def _shadow(self, plain: str, found: str) -> str | None:
        """The innermost enclosing namespace's `N.plain` that may exist unknown to us
        (see the module) where an `open` resolved `plain` to `found`, or None: where
        every enclosing namespace is modelled, or lies under the same root namespace
        as `found` (a project opening its own modules, `open Proofs.StableHLO` inside
        `Proofs.CnnPoC`: a constant of the same project would have been ingested with
        it), or where `found` is the enclosing namespace's own declaration (`f` inside
        `namespace f`, where its lemmas live: Lean's libraries declare no `f.f`)."""
        if any(p[:-1] == found for p in self.prefixes):
            return None
        root = found.split(".", 1)[0]
        for p in self.prefixes:
            if not self.known.models(p[:-1]) and p.split(".", 1)[0] != root:
                self.unknown.add(p + plain)
                return p + plain
        return None

    def field_constant(self, head_type: str | None, field: str) -> None:
        """Record `T.field` for generalised field notation on a value of type `T`."""
        if head_type and not field.isdigit():
            full = f"{head_type}.{_unquote(field)}"
            if full in self.known:
                self.constants.add(full)
