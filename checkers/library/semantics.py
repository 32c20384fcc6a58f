"""Where a constant's meaning comes from: an ingested equation or the library.

Precedence: a definition whose equation was ingested is unfolded through that
equation, so that a check tests what the page states; the library (Lean
core and Mathlib, lean_core.py, and each project's vocabulary pack, a plugin
loaded through an entry point: plugins.py) covers names with no usable equation
(none rendered, as for `patchRead`, or one that uses constants without
semantics). The derivative primitives (`pdiv`, `fderiv`, `deriv`) always use the
library: they are evaluated by automatic differentiation, not by unfolding
Mathlib's definitions.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

from checkers.evaluator.constructors import CtorFn, Leaf, constructor_fn
from checkers.evaluator.definitions import by_cases, fixed_variables, scalar_arguments
from checkers.evaluator.derivatives import BUILTINS as DERIVATIVES
from checkers.evaluator.equations import EqnFn, Param
from checkers.evaluator.finsets import FINSETS
from checkers.evaluator.inductives import STRING_NAMES, by_constructors, is_proposition, leaf_of
from checkers.evaluator.trees import Node, node_of
from checkers.language.errors import NotSupported
from checkers.language.inference import settle_types
from checkers.language.notation import STRUCTURE_FIELDS, FieldName, constants_in
from checkers.language.types import (
    ARRAY_TYPES,
    LIST_NAMES,
    NUMBER_NAMES,
    PROP_NAMES,
    const_name,
    head_and_args,
)
from checkers.language.values import Builtin, Proof
from checkers.library.complex import COMPLEX
from checkers.library.counting import COUNTING
from checkers.library.environment_access import (
    env_names,
    lookup_declaration,
    structure_candidates,
)
from checkers.library.lean_core import CORE
from checkers.library.lists import LISTS
from checkers.library.mathlib_algebra import UNITS
from checkers.library.mathlib_analysis import ANGLES, EUCLIDEAN, GAMMA, READINGS
from checkers.library.mathlib_linear_algebra import MATRICES, MATRIX_FUNCTIONS
from checkers.library.nnreal import NNREAL
from checkers.library.plugins import build_library, load_packs
from checkers.library.probability import PROBABILITY
from checkers.library.reach import Reach
from checkers.library.structures import is_structure_field, structure_sampler
from theorem_index.lean import KnownNames, analyse_declaration
from theorem_index.lean import syntax as S
from theorem_index.model import Declaration

# The language's own library: Lean core and Mathlib (numbers, lists, finite sets,
# counting, probability, ℂ, ℝ≥0, angles, matrices), and the derivatives.
BASE: tuple[Builtin, ...] = (
    *CORE,
    *LISTS,
    *FINSETS,
    *COUNTING,
    *PROBABILITY,
    *DERIVATIVES,
    *MATRICES,
    *COMPLEX,
    *NNREAL,
    *ANGLES,
    *GAMMA,
    *UNITS,
    *EUCLIDEAN,
)
# ... with every installed project's vocabulary pack (entry points, plugins.py).
_LOADED = build_library(BASE, load_packs())
LIBRARY: dict[str, Builtin] = dict(_LOADED.builtins)

# (Mathlib's matrix functions, ℂ, ℝ≥0, angles, Euclidean spaces and Gamma too: their ingested
# definitions go through linear maps, series, integrals, quotients (`Function.Periodic.lift`) and
# subtypes the evaluator does not model; the library computes them directly)
ALWAYS_LIBRARY = frozenset(
    {"Proofs.pdiv", "Proofs.pdivMat", "fderiv", "deriv", "IsUnit", *MATRIX_FUNCTIONS}
) | frozenset(b.name for b in (*COMPLEX, *NNREAL, *ANGLES, *EUCLIDEAN, *GAMMA) if "." in b.name)
# Lean core's proof terms, passed where a proof is expected (`correct := fun _ => rfl`)
# and Lean core's lemmas that the corpus passes as arguments (`Fin.cast (congrArg (N * ·)
# (Nat.mul_assoc oc h w))`)
PROOF_TERMS = frozenset(
    {
        "rfl",
        "trivial",
        "le_rfl",
        "Eq.refl",
        "Eq.symm",
        "Eq.trans",
        "le_refl",
        "True.intro",
        "congrArg",
        "congrFun",
        "Nat.mul_assoc",
        "Nat.mul_comm",
        "Nat.add_assoc",
        "Nat.add_comm",
        "Nat.mul_one",
        "Nat.one_mul",
        "Nat.zero_lt_one",
        "Nat.succ_pos",
    }
)
# Readings that are Mathlib's definitions verbatim, as declarations.
EXACT_READINGS = {r.name: r.declaration() for r in READINGS.values() if not r.note}
# Names that only occur as types or as the domain of a big operator.
TYPE_NAMES = frozenset(
    {"Fin", "Finset.univ", "Finset.range", "Type", "EuclideanSpace", "Matrix"}
    | set(ARRAY_TYPES)
    | {"Proofs.DepthwiseKernel"}
    | NUMBER_NAMES
    | PROP_NAMES
    | LIST_NAMES
    | STRING_NAMES
)
# Dependencies worth recording: the constants of the vocabulary packs, and the
# project's derivatives that are evaluated by automatic differentiation (`Proofs.pdiv`).
VOCABULARY_NAMES = frozenset(_LOADED.origins) | {n for n in ALWAYS_LIBRARY if "." in n}


class Semantics:
    """Constant lookup for one environment of ingested declarations."""

    def __init__(self, env: Any = None, library: Mapping[str, Builtin] | None = None) -> None:
        self.env = env
        self.library = LIBRARY if library is None else library
        self._known: KnownNames | None = None
        self._fields: frozenset[str] | None = None
        self._eqns: dict[str, EqnFn | NotSupported] = {}
        self._missing: dict[str, tuple[str, ...]] = {}
        # per definition, computed once for the corpus (`equation_constants`)
        self._rhs_constants: dict[str, frozenset[str]] = {}
        self._reach = Reach(self, VOCABULARY_NAMES)
        # values of closed definitions, by (name, dtype, int dtype): see Evaluator.constant
        self.values: dict[tuple[str, str, str], Any] = {}
        # applications of definitions to exact constants: see EqnFn.apply_args
        self.applications: OrderedDict[Any, Any] = OrderedDict()
        self._ctors: dict[str, tuple[str, ...]] | None = None
        self._fields_of: dict[str, tuple[str, ...]] = {}

    @property
    def known(self) -> KnownNames:
        if self._known is None:
            # a pack's constants resolve even where the project's declarations are not
            # ingested; an unknown name is taken as absent only in the library's
            # namespaces (known.py)
            self._known = KnownNames(
                [*self.library, *READINGS, *env_names(self.env)], models=self.library
            )
        return self._known

    def known_field(self, field: str) -> bool:
        """Whether `x.field` can mean something for some type of x: a component of a pair
        or structure, or a function `T.field` that the library or a declaration defines.
        Which T it is depends on x's type, which only the evaluation knows."""
        if self._fields is None:
            names = [*self.library, *env_names(self.env)]
            self._fields = frozenset(n.rsplit(".", 1)[-1] for n in names if "." in n)
        return field in self._fields or field in STRUCTURE_FIELDS or is_structure_field(field)

    def declaration(self, name: str) -> Declaration | None:
        """The ingested declaration of `name`, else a reading that is Mathlib's own
        definition (`Int.ModEq`: nothing left unchecked), so that it unfolds wherever the
        predicate stands, under `↔` or a `∀` as well."""
        found = lookup_declaration(self.env, name)
        if found is None and name in EXACT_READINGS:
            return EXACT_READINGS[name]
        return found

    # --- equations ----------------------------------------------------------

    def equation(self, name: str) -> EqnFn | NotSupported:
        """The definition's equation as an unfoldable function, or why not."""
        if name not in self._eqns:
            self._eqns[name] = self._load_equation(name)
        return self._eqns[name]

    def _load_equation(self, name: str) -> EqnFn | NotSupported:
        decl = self.declaration(name)
        if decl is not None and decl.kind == "ctor":
            return self._load_constructor(decl)
        if decl is None or not decl.equations:
            return NotSupported(f"{name} has no ingested equation")
        analysis = analyse_declaration(decl, self.known)
        if analysis.binders is None or analysis.errors:
            return NotSupported(
                f"the equation of {name} does not parse: "
                f"{'; '.join(str(e) for e in analysis.errors)}"
            )
        if not analysis.equations:
            return NotSupported(f"the equation of {name} is not rendered")
        cases = by_cases(name, analysis.equations)
        if isinstance(cases, NotSupported):
            return cases
        lhs_vars, rhs = cases
        # untyped binders of the right-hand side (`∑ j, W k j`) typed from their uses
        rhs = settle_types(analysis.binders, rhs, self).statement
        params = tuple(
            Param(n, b.type, b.kind) for b in analysis.binders for n in (b.names or ("",))
        )
        params, result = scalar_arguments(
            params, analysis.statement, lhs_vars, data=self._inductive_type
        )
        implicit = {p.name for p in params if p.kind == "implicit"}
        shown = tuple(v for v in lhs_vars if v not in implicit)  # sizes matched, not passed
        rhs = fixed_variables(name, rhs, len(shown))
        constants = frozenset(constants_in(rhs))
        try:
            fn = EqnFn(name, params, result, shown, rhs, recursive=name in constants)
        except NotSupported as e:
            return e
        self._rhs_constants[name] = constants  # walked once (`equation_constants`)
        return fn

    def _load_constructor(self, decl: Declaration) -> EqnFn | NotSupported:
        analysis = analyse_declaration(decl, self.known)
        if analysis.binders is None or analysis.statement is None or analysis.errors:
            return NotSupported(f"the constructor {decl.name} does not parse")
        return constructor_fn(decl.name, analysis.binders, analysis.statement)

    # --- inductive types ------------------------------------------------------

    def _constructor_index(self) -> dict[str, tuple[str, ...]]:
        """Every ingested constructor's full name, by its type's full name (and each
        structure's fields, by the structure's, in `self._fields_of`)."""
        if self._ctors is None:
            found: dict[str, list[str]] = {}
            fields: dict[str, list[str]] = {}
            for d in structure_candidates(self.env):
                n = d.name
                if d.kind == "ctor":
                    found.setdefault(n.rpartition(".")[0], []).append(n)
                elif _is_projection(d):
                    fields.setdefault(n.rpartition(".")[0], []).append(n)
            self._ctors = {k: tuple(v) for k, v in found.items()}
            self._fields_of = {k: tuple(v) for k, v in fields.items()}
        return self._ctors

    def constructors(self, type_name: str) -> tuple[str, ...]:
        """The constructors of the inductive type `type_name`, in declaration order."""
        return self._constructor_index().get(type_name, ())

    def constructors_named(self, short: str) -> tuple[str, ...]:
        """Every constructor called `short`, of any type (`.sub` with no expected type)."""
        return tuple(
            c for cs in self._constructor_index().values() for c in cs if c.endswith("." + short)
        )

    def is_inductive(self, name: str) -> bool:
        """Whether `name` is an inductive type whose constructors are ingested, or a
        structure whose fields are (its values are built by `{ f := … }`)."""
        index = self._constructor_index()
        return any(c in index or c in self._fields_of for c in self.candidates(name))

    def _inductive_type(self, t: S.Term) -> bool:
        name = const_name(head_and_args(t)[0])
        return name is not None and self.is_inductive(name)

    def type_params(self, type_name: str) -> int:
        """How many parameters (before its indices) the type `type_name` takes."""
        decl = self.declaration(type_name)
        if decl is None:
            return 0
        got = analyse_declaration(decl, self.known).binders
        return sum(len(b.names) for b in got or () if b.kind != "inst")

    def leaf(self, type_name: str) -> Leaf | None:
        """How a binder of the inductive type `type_name` is drawn (inductives.py)."""
        params = self.type_params(type_name)
        for c in self.constructors(type_name):
            fn = self.equation(c)
            if isinstance(fn, CtorFn) and not self.missing(c):
                found = leaf_of(fn, params)
                if found is not None:
                    return found
        return None

    def node(self, type_name: str) -> Node | None:
        """The constructor a binder of `type_name` is drawn as trees of (trees.py), if any."""
        for c in self.constructors(type_name):
            fn = self.equation(c)
            if isinstance(fn, CtorFn) and not self.missing(c):
                found = node_of(fn)
                if found is not None:
                    return found
        return None

    # --- lookup -------------------------------------------------------------

    def candidates(self, name: str) -> tuple[str, ...]:
        if name.startswith("_root_."):
            return (name[len("_root_.") :],)
        return (name, f"Proofs.{name}")

    def lookup(self, name: str) -> Any:
        for cand in self.candidates(name):
            src = self.source(cand)
            if src == "equation":
                return self.equation(cand)
            if src == "library":
                return self.library[cand]
            if src == "proof":
                return Proof(cand)
        raise NotSupported(f"no semantics for: {name}", (name,))

    def source(self, name: str) -> str | None:
        """'equation', 'library', 'proof' or None: where the meaning of `name` comes from
        (a theorem, or `rfl`, passed as an argument is a proof: it carries no data)."""
        if name not in ALWAYS_LIBRARY:
            eq = self.equation(name)
            if isinstance(eq, EqnFn) and not self.missing(name):
                return "equation"
        if name in self.library:
            return "library"
        if name in PROOF_TERMS:
            return "proof"
        decl = self.declaration(name)
        if decl is not None and decl.kind in ("theorem", "lemma"):
            return "proof"
        return None

    # --- static analysis ---------------------------------------------------------

    def missing(self, name: str) -> tuple[str, ...]:
        """Constants without semantics reached from `name`'s equation (itself, if none)."""
        if name in self._missing:
            return self._missing[name]
        self._missing[name] = ()  # a cycle contributes nothing missing
        eq = self.equation(name)
        if not isinstance(eq, EqnFn):
            out: tuple[str, ...] = (name,)
        else:
            found: set[str] = set()
            # a definition by cases on constructors (`den _ (.dotIn _ W e) = …`) needs only
            # the alternatives its arguments reach: an alternative's missing constant is
            # refused when evaluating reaches it, not for every use of the definition
            used = set() if by_constructors(eq.rhs) else self.equation_constants(name)
            for c in sorted(used | _param_type_constants(eq)):
                found.update(self.missing_in_names([c], exclude=name))
            out = tuple(sorted(found))
        self._missing[name] = out
        return out

    def missing_in_names(self, names: Iterable[str], exclude: str = "") -> set[str]:
        out: set[str] = set()
        for c in names:
            if (
                c == exclude
                or c in TYPE_NAMES
                or structure_sampler(c) is not None
                or self.is_inductive(c)
            ):
                continue
            if isinstance(c, FieldName):
                if any(self.source(x) is not None for x in self.candidates(c)):
                    continue
                if self.missing_in_names([c.base], exclude):
                    out.update(self.missing_in_names([c.base], exclude))
                    continue
                c = "." + c.field  # field notation on the constant's value
            if c.startswith("."):
                if not self.known_field(c[1:]):
                    out.add(c)
                continue
            if any(self.source(x) is not None for x in self.candidates(c)):
                continue
            eq = self.equation(c)
            if isinstance(eq, EqnFn):
                out.update(self.missing(c))
            else:
                out.add(c)
        return out

    def missing_in(self, terms: Iterable[Any]) -> tuple[str, ...]:
        names: set[str] = set()
        for t in terms:
            names |= constants_in(t)
        return tuple(sorted(self.missing_in_names(sorted(names))))

    def dependencies(self, terms: Iterable[Any]) -> tuple[str, ...]:
        """Definitions used, transitively through the equations that are unfolded
        (reach.py)."""
        return self._reach.dependencies(terms)

    def equation_constants(self, name: str) -> frozenset[str]:
        """The constants of the right-hand side of `name`'s equation (an `EqnFn`)."""
        out = self._rhs_constants.get(name)
        if out is None:
            eq = self.equation(name)
            assert isinstance(eq, EqnFn)
            out = self._rhs_constants[name] = frozenset(constants_in(eq.rhs))
        return out


def _param_type_constants(eq: EqnFn) -> set[str]:
    """The constants of the definition's parameter and result types: a value of a type
    without semantics (`def w : List ℤ := [..]`) cannot be evaluated either. A parameter
    that is a proof (`hf : Differentiable ℝ f`) carries no data: its type is not needed."""
    out: set[str] = set() if eq.result is None else constants_in(eq.result)
    for p in eq.params:
        if p.type is not None and p.kind != "inst" and not is_proposition(p.type):
            out |= constants_in(p.type)
    return out


def _is_projection(d: Declaration) -> bool:
    """A structure's field as the reader lists it: `S.f (self : S …) : T`, no equation."""
    return d.kind == "def" and not d.equations and "(self : " in d.binders
