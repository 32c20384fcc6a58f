"""The registry of hand-written checkers: a validating decorator and its records.

    @register(
        "Proofs.sum_fin_prod",
        statement="{M : Type u_1} [AddCommMonoid M] (m n : ℕ) (f : Fin (m * n) → M) : "
        "∑ idx : Fin (m * n), f idx = ∑ r : Fin m, ∑ k : Fin n, f (finProdFinEquiv (r, k))",
        dims=("m", "n"),
        inputs={"f": real("m*n")},
        version="1",
    )
    def sum_fin_prod(dims, dtype):
        ...                      # returns the function of one trial's inputs -> (lhs, rhs)

Registration validates everything it can at once (the name, the statement
the checker was written for, the dimension names, the input shapes against
the dimensions, the dtypes, the tolerance) and refuses a second checker for
the same theorem. The statement is the theorem's Lean text, binders and
`: statement`, as a doc page prints it; it is parsed now with the project's
Lean parser, and a check compares it with the statement ingested under the
checker's name (`checkers.registry.binding`): a hand-written checker answers only for
the statement it was written for. `definitions` names the Lean text of each
definition the checker computes by hand (`checkers.registry.definition_binding`): it
answers only while those are the definitions ingested. Each entry is a
`RegisteredChecker`, which implements the `Checker` protocol and whose `repr`
is the registration that produced it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from checkers.core import (
    REAL,
    DimConstraint,
    Evaluation,
    InputSpec,
    ToleranceOverride,
    is_identifier,
)
from checkers.inputs.sampling import SAMPLERS
from checkers.registry.definition_binding import RegisteredDefinition, parse_definitions
from checkers.registry.templates import InputTemplate
from checkers.registry.templates import fin as fin  # the registration helpers, re-exported
from checkers.registry.templates import index_map as index_map
from checkers.registry.templates import nat as nat
from checkers.registry.templates import real as real
from checkers.tolerance import DTYPES, validate_override
from theorem_index.lean import Binder, LeanParseError, Term, parse_signature

BuildFn = Callable[[Mapping[str, int], Any], Evaluation]
InputsFn = Callable[[Mapping[str, int]], dict[str, InputSpec]]
LocateFn = Callable[[Mapping[str, int], Mapping[str, Any]], "str | None"]


class RegistrationError(ValueError):
    """A checker registration that cannot be accepted; the message says why."""


@dataclass(frozen=True, eq=False)
class RegisteredChecker:
    """One registry entry; implements the `Checker` protocol.

    `statement` is the Lean text of the theorem the checker was written for and
    `signature` its parsed binders and statement; a check runs the entry only
    where that statement is the one ingested under `name` (or none is).
    """

    name: str
    function: BuildFn
    inputs: Mapping[str, InputTemplate] | InputsFn
    dims: tuple[str, ...] = ()
    dtypes: tuple[str, ...] = DTYPES
    tolerance: ToleranceOverride | None = None
    version: str = "1"
    fixed_dims: Mapping[str, int] = field(default_factory=dict)
    constraints: tuple[DimConstraint, ...] = ()
    assumptions: tuple[str, ...] = ()
    dependencies: tuple[str, ...] = ()
    locate: LocateFn | None = None
    # the Lean text of the statement the checker was written for ("" when none was named)
    statement: str = ""
    signature: tuple[tuple[Binder, ...], Term] | None = field(default=None, repr=False)
    # the definitions the checker reimplements, each with the Lean text it was written for
    definitions: tuple[RegisteredDefinition, ...] = ()
    kind: str = field(default="registered", init=False)

    @property
    def dim_names(self) -> tuple[str, ...]:
        return self.dims

    @property
    def description(self) -> str:
        fn = self.function
        return f"hand-written checker {fn.__module__}.{fn.__qualname__} (version {self.version})"

    def dim_constraints(self) -> Sequence[DimConstraint]:
        return self.constraints

    def input_specs(self, dims: Mapping[str, int]) -> dict[str, InputSpec]:
        if callable(self.inputs):
            return dict(self.inputs(dims))
        return {n: t.resolve(dims) for n, t in self.inputs.items()}

    def build(self, dims: Mapping[str, int], dtype: Any) -> Evaluation:
        return self.function(dims, dtype)

    def locate_nonfinite(self, dims: Mapping[str, int], inputs: Mapping[str, Any]) -> str | None:
        return None if self.locate is None else self.locate(dims, inputs)

    def __repr__(self) -> str:
        def qual(fn: Any) -> str:
            return f"{fn.__module__}.{fn.__qualname__}"

        inputs = qual(self.inputs) if callable(self.inputs) else repr(dict(self.inputs))
        parts = [
            repr(self.name),
            f"dims={self.dims!r}",
            f"inputs={inputs}",
            f"dtypes={self.dtypes!r}",
            f"tolerance={self.tolerance!r}",
            f"version={self.version!r}",
        ]
        if self.fixed_dims:
            parts.append(f"fixed_dims={dict(self.fixed_dims)!r}")
        if self.constraints:
            parts.append(f"constraints={self.constraints!r}")
        if self.assumptions:
            parts.append(f"assumptions={self.assumptions!r}")
        if self.dependencies:
            parts.append(f"dependencies={self.dependencies!r}")
        if self.locate is not None:
            parts.append(f"locate={qual(self.locate)}")
        if self.definitions:
            parts.append(f"definitions={ {d.name: d.text for d in self.definitions}!r}")
        if self.statement:
            parts.append(f"statement={self.statement!r}")
        return f"register({', '.join(parts)})({qual(self.function)})"


def validate_name(name: Any) -> str:
    """A fully qualified Lean name: `Namespace.name`, every component an identifier."""
    if not isinstance(name, str):
        raise RegistrationError(f"checker name must be a string, got {name!r}")
    parts = name.split(".")
    if len(parts) < 2 or not all(is_identifier(p) for p in parts):
        raise RegistrationError(
            f"checker name {name!r} is not a fully qualified Lean name "
            "(expected Namespace.name, e.g. 'Proofs.sum_fin_prod')"
        )
    return name


def _parse_statement(
    where: str, statement: Any
) -> tuple[str, tuple[tuple[Binder, ...], Term] | None]:
    """The statement text (whitespace collapsed) and its parsed binders and statement."""
    if statement is None:
        return "", None
    if not isinstance(statement, str) or not statement.strip():
        raise RegistrationError(
            f"{where}: statement must be the theorem's Lean text, got {statement!r}"
        )
    text = " ".join(statement.split())
    try:
        return text, parse_signature(statement)
    except LeanParseError as e:
        raise RegistrationError(f"{where}: its statement does not parse: {e}") from None


def _probe_dims(dims: Sequence[str], fixed: Mapping[str, int]) -> dict[str, int]:
    probe = {d: 2 + k for k, d in enumerate(dims)}
    probe.update(fixed)
    return probe


class Registry:
    """Theorem name -> RegisteredChecker; `register` is its validating decorator."""

    def __init__(self) -> None:
        self._entries: dict[str, RegisteredChecker] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, name: str) -> RegisteredChecker | None:
        return self._entries.get(name)

    def __getitem__(self, name: str) -> RegisteredChecker:
        return self._entries[name]

    def names(self) -> list[str]:
        return sorted(self._entries)

    def prose_claims(self) -> dict[str, str]:
        """Theorem name -> how a module doc's prose writes it, for every checker of a
        theorem stated in prose (`checkers.registry.prose`)."""
        return {
            name: mention
            for name, entry in sorted(self._entries.items())
            if isinstance(mention := getattr(entry, "mention", None), str)
        }

    def register(
        self,
        name: str,
        *,
        inputs: Mapping[str, InputTemplate] | InputsFn,
        dims: Sequence[str] = (),
        dtypes: Sequence[str] = DTYPES,
        tolerance: Any = None,
        version: str = "1",
        fixed_dims: Mapping[str, int] | None = None,
        constraints: Sequence[DimConstraint] = (),
        assumptions: Sequence[str] = (),
        dependencies: Sequence[str] = (),
        locate: LocateFn | None = None,
        statement: str | None = None,
        definitions: Mapping[str, str] | None = None,
    ) -> Callable[[BuildFn], RegisteredChecker]:
        """Validate a registration now; the decorated build function becomes the entry.

        `statement` is the Lean text (binders, then `: statement`) of the theorem
        the checker implements. A checker that names none checks only where
        nothing is ingested under its name: it cannot be matched with an
        ingested statement. `definitions` maps each project definition the
        checker reimplements to its Lean text (`binders : type := body`).
        """
        entry_fields = self._validate(
            name,
            statement=statement,
            definitions=definitions or {},
            inputs=inputs,
            dims=dims,
            dtypes=dtypes,
            tolerance=tolerance,
            version=version,
            fixed_dims=fixed_dims or {},
            constraints=constraints,
            assumptions=assumptions,
            dependencies=dependencies,
            locate=locate,
        )

        def decorate(function: BuildFn) -> RegisteredChecker:
            if not callable(function):
                raise RegistrationError(f"checker for {name!r} must decorate a function")
            entry = RegisteredChecker(name=name, function=function, **entry_fields)
            self.add(entry)
            return entry

        return decorate

    def add(self, entry: RegisteredChecker) -> None:
        self._refuse_duplicate(entry.name)
        self._entries[entry.name] = entry

    def _refuse_duplicate(self, name: str) -> None:
        existing = self._entries.get(name)
        if existing is not None:
            fn = existing.function
            raise RegistrationError(
                f"a checker for {name!r} is already registered "
                f"(version {existing.version!r}, {fn.__module__}.{fn.__qualname__})"
            )

    def _validate(
        self,
        name: str,
        *,
        statement: Any,
        definitions: Any,
        inputs: Any,
        dims: Any,
        dtypes: Any,
        tolerance: Any,
        version: Any,
        fixed_dims: Any,
        constraints: Any,
        assumptions: Any,
        dependencies: Any,
        locate: Any,
    ) -> dict[str, Any]:
        validate_name(name)
        self._refuse_duplicate(name)
        where = f"checker {name!r}"
        if isinstance(dims, str) or not all(isinstance(d, str) and is_identifier(d) for d in dims):
            raise RegistrationError(f"{where}: dims must be a sequence of names, got {dims!r}")
        dims = tuple(dims)
        if len(set(dims)) != len(dims):
            raise RegistrationError(f"{where}: dims must be distinct, got {dims!r}")
        if not isinstance(fixed_dims, Mapping):
            raise RegistrationError(f"{where}: fixed_dims must be a dict, got {fixed_dims!r}")
        for k, v in fixed_dims.items():
            if not (isinstance(k, str) and is_identifier(k)):
                raise RegistrationError(f"{where}: fixed dim {k!r} is not a name")
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise RegistrationError(
                    f"{where}: fixed dim {k!r} must be a non-negative int, got {v!r}"
                )
            if k in dims:
                raise RegistrationError(f"{where}: dim {k!r} is both free and fixed")
        known = set(dims) | set(fixed_dims)
        for c in constraints:
            if not isinstance(c, DimConstraint):
                raise RegistrationError(f"{where}: constraints must be DimConstraint, got {c!r}")
            for n in c.names:
                if n not in known:
                    raise RegistrationError(f"{where}: constraint {c} uses unknown dimension {n!r}")
        self._validate_inputs(where, inputs, dims, dict(fixed_dims))
        if isinstance(dtypes, str) or not dtypes or any(d not in DTYPES for d in dtypes):
            raise RegistrationError(
                f"{where}: dtypes must be a non-empty subset of {DTYPES!r}, got {dtypes!r}"
            )
        if "float64" not in dtypes:
            raise RegistrationError(f"{where}: dtypes must include 'float64' (the reference)")
        try:
            override = validate_override(tolerance)
        except ValueError as e:
            raise RegistrationError(f"{where}: {e}") from None
        if not isinstance(version, str) or not version.strip():
            raise RegistrationError(f"{where}: version must be a non-empty string, got {version!r}")
        for label, names in (("assumptions", assumptions), ("dependencies", dependencies)):
            if isinstance(names, str) or not all(isinstance(x, str) and x for x in names):
                raise RegistrationError(f"{where}: {label} must be a sequence of strings")
        if locate is not None and not callable(locate):
            raise RegistrationError(f"{where}: locate must be callable, got {locate!r}")
        text, signature = _parse_statement(where, statement)
        try:
            parsed = parse_definitions(definitions)
        except ValueError as e:
            raise RegistrationError(f"{where}: {e}") from None
        return {
            "statement": text,
            "signature": signature,
            "definitions": parsed,
            "inputs": inputs if callable(inputs) else dict(inputs),
            "dims": dims,
            "dtypes": tuple(dtypes),
            "tolerance": override,
            "version": version,
            "fixed_dims": dict(fixed_dims),
            "constraints": tuple(constraints),
            "assumptions": tuple(assumptions),
            "dependencies": tuple(dependencies),
            "locate": locate,
        }

    def _validate_inputs(
        self, where: str, inputs: Any, dims: tuple[str, ...], fixed: dict[str, int]
    ) -> None:
        known = set(dims) | set(fixed)
        if callable(inputs):
            probe = _probe_dims(dims, fixed)
            try:
                specs = inputs(probe)
            except Exception as e:
                raise RegistrationError(
                    f"{where}: inputs({probe}) raised {type(e).__name__}: {e}"
                ) from None
            if not isinstance(specs, Mapping) or not all(
                isinstance(s, InputSpec) for s in specs.values()
            ):
                raise RegistrationError(
                    f"{where}: inputs(dims) must return a dict of InputSpec, got {specs!r}"
                )
            items: list[tuple[Any, InputSpec | InputTemplate]] = list(specs.items())
        elif isinstance(inputs, Mapping):
            items = list(inputs.items())
        else:
            raise RegistrationError(
                f"{where}: inputs must be a dict of input templates or a function of dims"
            )
        for iname, spec in items:
            if not (isinstance(iname, str) and is_identifier(iname)):
                raise RegistrationError(f"{where}: input name {iname!r} is not an identifier")
            if isinstance(spec, InputTemplate):
                try:
                    used = spec.names()
                except ValueError as e:
                    raise RegistrationError(f"{where}: input {iname!r}: {e}") from None
                for n in used:
                    if n not in known:
                        raise RegistrationError(
                            f"{where}: input {iname!r} uses unknown dimension {n!r} "
                            f"(dims: {', '.join(sorted(known)) or 'none'})"
                        )
                try:
                    spec = spec.resolve(_probe_dims(dims, fixed))
                except ValueError as e:
                    raise RegistrationError(f"{where}: input {iname!r}: {e}") from None
            elif not isinstance(spec, InputSpec):
                raise RegistrationError(
                    f"{where}: input {iname!r} must be real(...), fin(...), nat(...) or "
                    f"index_map(...), got {spec!r}"
                )
            if spec.kind == REAL and spec.distribution not in SAMPLERS:
                raise RegistrationError(
                    f"{where}: input {iname!r} has unknown distribution {spec.distribution!r} "
                    f"(known: {', '.join(sorted(SAMPLERS))})"
                )


REGISTRY = Registry()
register = REGISTRY.register
