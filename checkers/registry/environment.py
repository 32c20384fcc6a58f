"""The declarations a check may use, and which checker each theorem gets.

`Environment.from_declarations(decls)` indexes everything ingested (theorems
and the definitions whose equations give semantics) by fully qualified name.
`resolve(name)` picks the checker: a registered (hand-written) one first, else
the one derived from the statement by the hook `derive(name, env) -> Checker |
Unsupported`, which `checkers.statements.derive` provides. When that module is
not there, or it cannot handle the statement, the theorem is unsupported and
the reason says why. A registered checker is taken only for the statement it
was written for, and the definitions it reimplements (`binding(name)`, see
`checkers.registry.binding`): when the ingested statement or one of those definitions
differs, the derived checker is taken instead, or, when there is none, a
`StatementMismatch` (an error) that says where the two differ.

The checkers resolved are kept for the `MAX_RESOLVED` theorems resolved last:
a process that checks a whole corpus needs each one while it checks that
theorem, not for the rest of the run (a checker holds its statement's trees
and tables built for it). A theorem resolved again after its checker was
dropped is derived again, with the same result.
"""

from __future__ import annotations

import importlib
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from checkers.core import Checker, Unsupported
from checkers.registry.binding import StatementBinding, StatementMismatch, bind
from checkers.registry.lazy import LazyDeclarations, structure_candidate
from checkers.registry.registrations import REGISTRY, Registry
from checkers.runtime.jaxsetup import release_abandoned_traces
from theorem_index.lean import KnownNames

if TYPE_CHECKING:
    from theorem_index.model import Declaration

DeriveHook = Callable[[str, "Environment"], Any]
T = TypeVar("T")

DERIVED_MODULE = "checkers.statements"
THEOREM_KINDS = ("theorem", "lemma", "prose")
# checkers kept per environment (with the seconds each took to resolve), the least
# recently resolved dropped first
MAX_RESOLVED = 256


class UnknownTheorem(KeyError):
    """No declaration and no registered checker has this name."""

    def __str__(self) -> str:
        return f"no theorem named {self.args[0]!r}"


class DerivationError(Unsupported):
    """Deriving a checker raised: the checker machinery broke (a check reports 'error')."""


def _is_checker(value: Any) -> bool:
    return callable(getattr(value, "build", None)) and callable(getattr(value, "input_specs", None))


def load_derive_hook() -> DeriveHook | Unsupported:
    """`checkers.statements.derive`, imported on first use; Unsupported when it is not available."""
    try:
        module = importlib.import_module(DERIVED_MODULE)
    except ModuleNotFoundError as e:
        if e.name != DERIVED_MODULE:
            return DerivationError(f"importing {DERIVED_MODULE} failed: {e}")
        return Unsupported(f"no registered checker, and {DERIVED_MODULE} is not installed")
    except Exception as e:
        return DerivationError(f"importing {DERIVED_MODULE} failed: {type(e).__name__}: {e}")
    hook = getattr(module, "derive", None)
    if not callable(hook):
        return Unsupported(f"no registered checker, and {DERIVED_MODULE} has no derive()")
    return hook


_DEFAULT: Any = object()
_NO_REGISTERED = "no registered checker, and "


class Environment:
    """Declarations by name, plus the checker each theorem resolves to (cached)."""

    def __init__(
        self,
        declarations: Mapping[str, Declaration],
        *,
        registry: Registry | None = None,
        derive: DeriveHook | None = _DEFAULT,
        duplicates: tuple[str, ...] = (),
    ) -> None:
        # read when first used (lazy.py), or all of them at once
        self._declarations: Mapping[str, Declaration] = (
            declarations if isinstance(declarations, LazyDeclarations) else dict(declarations)
        )
        self._registry = REGISTRY if registry is None else registry
        self._derive = derive
        # (name, prefer) -> (checker or why not, seconds it took to resolve)
        self._resolved: OrderedDict[tuple[str, str], tuple[Checker | Unsupported, float]] = (
            OrderedDict()
        )
        self._bindings: dict[str, StatementBinding] = {}
        self._shared: dict[str, Any] = {}
        self.duplicates = duplicates

    @classmethod
    def from_declarations(
        cls,
        decls: Iterable[Declaration],
        *,
        registry: Registry | None = None,
        derive: DeriveHook | None = _DEFAULT,
    ) -> Environment:
        """Index declarations by name; of two with one name the first is kept.

        `derive` replaces the derived-checker hook (None: no derived checkers).
        """
        table: dict[str, Declaration] = {}
        duplicates: list[str] = []
        for decl in decls:
            if decl.name in table:
                duplicates.append(decl.name)
            else:
                table[decl.name] = decl
        return cls(table, registry=registry, derive=derive, duplicates=tuple(duplicates))

    # --- lookups -----------------------------------------------------------

    @property
    def declarations(self) -> Mapping[str, Declaration]:
        return MappingProxyType(self._declarations)

    @property
    def registry(self) -> Registry:
        return self._registry

    def __contains__(self, name: object) -> bool:
        return name in self._declarations

    def __getitem__(self, name: str) -> Declaration:
        return self._declarations[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._declarations)

    def __len__(self) -> int:
        return len(self._declarations)

    def get(self, name: str) -> Declaration | None:
        return self._declarations.get(name)

    def names(self) -> list[str]:
        return list(self._declarations)

    def theorems(self) -> list[Declaration]:
        return [d for d in self._declarations.values() if d.kind in THEOREM_KINDS]

    def definitions(self) -> list[Declaration]:
        return [d for d in self._declarations.values() if d.kind not in THEOREM_KINDS]

    @property
    def read_failure(self) -> BaseException | None:
        """The first failure to read declarations that are read when first used (None:
        none, or all were read at once): checks run since may have missed some."""
        if isinstance(self._declarations, LazyDeclarations):
            return self._declarations.failure
        return None

    def structure_candidates(self) -> list[Declaration]:
        """The constructors, and the definitions that may be structure fields
        (`lazy.structure_candidate`), in the declarations' order: all the constructor
        index reads."""
        if isinstance(self._declarations, LazyDeclarations):
            return self._declarations.structure_candidates()
        return [d for d in self._declarations.values() if structure_candidate(d)]

    def equations(self, name: str) -> tuple[str, ...]:
        decl = self._declarations.get(name)
        return () if decl is None else decl.equations

    def shared(self, key: str, build: Callable[[Environment], T]) -> T:
        """State computed from the declarations alone (the derived checkers' semantics
        tables: parsed equations, what each definition is missing), built once per
        environment and shared by every theorem; the declarations never change."""
        if key not in self._shared:
            self._shared[key] = build(self)
        return cast(T, self._shared[key])

    # --- checkers ----------------------------------------------------------

    def binding(self, name: str) -> StatementBinding | None:
        """How the registered checker of `name` relates to the statement ingested under
        that name (cached); None when no checker is registered for it."""
        entry = self._registry.get(name)
        if entry is None:
            return None
        if name not in self._bindings:
            defined = [d.name for d in getattr(entry, "definitions", ())]
            known = KnownNames([*self._declarations, *entry.dependencies, *defined])
            decl = self._declarations.get(name)
            self._bindings[name] = bind(entry, decl, known, self._declarations.get)
        return self._bindings[name]

    def resolve(self, name: str, *, prefer: str = "registered") -> Checker | Unsupported:
        """The checker of a theorem, or Unsupported with the reason.

        prefer='registered' (the default) takes a registered checker first when
        it was written for the ingested statement (or nothing is ingested under
        its name), else the derived one; prefer='derived' asks only the derive
        hook (to cross-check a registered checker against its derived twin).
        Raises UnknownTheorem when the name is neither declared nor registered.
        """
        if prefer not in ("registered", "derived"):
            raise ValueError(f"prefer must be 'registered' or 'derived', got {prefer!r}")
        key = (name, prefer)
        got = self._resolved.get(key)
        if got is not None:
            self._resolved.move_to_end(key)
            return got[0]
        start = time.perf_counter()
        target = self._resolve(name, prefer)
        self._resolved[key] = (target, time.perf_counter() - start)
        while len(self._resolved) > MAX_RESOLVED:
            self._resolved.popitem(last=False)
        return target

    def derive_seconds(self, name: str, *, prefer: str = "registered") -> float:
        """How long resolving `name` took when it was last resolved (0.0 when it has not
        been, or its checker was dropped since)."""
        got = self._resolved.get((name, prefer))
        return 0.0 if got is None else got[1]

    def _resolve(self, name: str, prefer: str) -> Checker | Unsupported:
        if prefer == "registered":
            entry = self._registry.get(name)
            binding = self.binding(name)
            if entry is not None and binding is not None:
                if binding.usable:
                    return entry
                derived = self.resolve(name, prefer="derived")
                if _is_checker(derived):
                    return derived
                assert isinstance(derived, Unsupported)
                why = derived.reason.removeprefix(_NO_REGISTERED)
                return StatementMismatch(
                    f"{binding.explain(full=True)}; no derived checker takes its place ({why})"
                )
        decl = self._declarations.get(name)
        if decl is None:
            if prefer == "registered":
                raise UnknownTheorem(name)
            return Unsupported(f"{name} is not declared: nothing to derive a checker from")
        if decl.kind == "prose":
            return Unsupported(
                f"{name} is stated in prose: there is no formal statement to derive a "
                "checker from, and no registered checker was written for this paragraph"
                if prefer == "registered"
                else f"{name} is stated in prose: no formal statement to derive a checker from"
            )
        if decl.kind not in THEOREM_KINDS:
            return Unsupported(
                f"{name} is a {decl.kind}, not a theorem: it states nothing to check"
            )
        hook: DeriveHook | Unsupported | None
        if self._derive is _DEFAULT:
            hook = load_derive_hook()
        elif self._derive is None:
            hook = Unsupported(f"{_NO_REGISTERED}derived checkers are switched off")
        else:
            hook = self._derive
        if isinstance(hook, Unsupported):
            return hook
        try:
            result = hook(name, self)
        except Exception as e:
            return DerivationError(f"deriving a checker raised {type(e).__name__}: {e}")
        finally:
            release_abandoned_traces()  # the traces a refusal ended would stay in memory
        if _is_checker(result):
            return result
        if isinstance(result, Unsupported):
            return result
        reason = getattr(result, "reason", None)
        if isinstance(reason, str):
            return Unsupported(reason, tuple(getattr(result, "missing", ()) or ()))
        return DerivationError(f"derive({name!r}) returned {type(result).__name__}, not a checker")
