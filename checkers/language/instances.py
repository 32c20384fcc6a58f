"""Type variables and their classes: the modelled types a generic statement is checked at.

A statement over a type variable with classes (`{R : Type*} [CommRing R]`) claims to
hold at every type that is an instance of those classes, so each modelled type that is
one is a legitimate place to test it, and one that is not is never sampled in its place.
`INSTANCES` is the table: each modelled type with the classes it is an instance of, in
Lean's meaning of each operation at that type (total.py: ℤ divides Euclidean, as
`Int.ediv`; ℕ subtracts truncating). Adding a type is one entry.

- `instantiate(binders, statement)` gives one `Variant` per assignment of modelled types
  to the type variables that meets every class on them: the type variables' binders and
  the class binders they meet are removed and each variable is replaced by its type
  (`R := ℤ`), so the rest of the derivation sees a statement over ℤ. Each variant is
  checked on its own and the result names it (instanced.py).
- A class on a type variable that no modelled type is an instance of (`SeminormedGroup`:
  a multiplicative group with a norm; `Subsingleton`, `IsEmpty`: ℝ, ℤ and ℕ have two
  elements and more) makes the statement unsupported, naming the class.
- A class on a modelled type (`[DecidableEq (Fin n)]`, `[NormedSpace ℝ ℝ]`) holds or not
  by the same table (`holds`); `Fact P` is the hypothesis P (binders.py).

A type variable with a finiteness class (`[Fintype ι]`, `[Finite ι]`), or written as a
`Matrix`'s rows or columns or as the elements of a `Finset`, is a finite type of
indices: it is checked at `Fin k`, k a dimension of the check drawn like any other
(several k across the dims draws; the draws name it after the variable, `ι = 3` for
`ι := Fin 3`).
Its other classes must be ones every `Fin k` with k ≥ 1 has (`FINITE_INDEX`: decidable
equality, a linear order, `Nonempty`); one it may lack (`Zero`, `Add`: `Fin 0` has no
zero) makes the statement unsupported, naming it.

Not modelled: ℚ (the evaluator computes it as ℝ's subfield, so it refutes nothing ℝ does
not), `ZMod n` (no modular arithmetic), ℂ and matrices (no values for them yet).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from checkers.language.errors import NotSupported
from checkers.language.substitute import substitute
from checkers.language.types import INT_NAMES, NAT_NAMES, REAL_NAMES, const_name, head_and_args
from checkers.language.values import Arr
from theorem_index.lean import syntax as S

__all__ = [
    "ANY_TYPE",
    "FINITE_INDEX",
    "INSTANCES",
    "MAX_VARIANTS",
    "Instance",
    "Variant",
    "argument_type",
    "class_name",
    "holds",
    "instantiate",
    "modelled_name",
]

# Classes every type is an instance of: decidability (classical logic decides every
# proposition, and an instance agrees with the proposition's truth).
ANY_TYPE = frozenset(
    {"Decidable", "DecidableEq", "DecidablePred", "DecidableRel", "DecidableLE", "DecidableLT"}
)
# ℝ, ℤ and ℕ alike: nontrivial, linearly ordered commutative semirings of characteristic 0.
_SEMIRING = frozenset(
    {
        "Zero", "One", "Add", "Mul", "Sub", "Div", "Pow", "NatCast", "Nonempty", "Inhabited",
        "Nontrivial", "AddSemigroup", "AddCommSemigroup", "Semigroup", "CommSemigroup",
        "AddZeroClass", "MulOneClass", "MulZeroClass", "MulZeroOneClass", "AddMonoid",
        "AddCommMonoid", "Monoid", "CommMonoid", "MonoidWithZero", "CommMonoidWithZero", "Distrib",
        "LeftDistribClass", "RightDistribClass",
        "AddMonoidWithOne", "AddCommMonoidWithOne", "NonUnitalNonAssocSemiring",
        "NonUnitalSemiring", "NonUnitalCommSemiring", "NonAssocSemiring", "Semiring",
        "CommSemiring", "AddCancelMonoid", "AddCancelCommMonoid", "IsCancelAdd",
        "IsLeftCancelAdd", "IsRightCancelAdd", "NoZeroDivisors", "CharZero", "LE", "LT", "Max",
        "Min", "Preorder", "PartialOrder", "LinearOrder", "Lattice", "SemilatticeSup",
        "SemilatticeInf", "DistribLattice", "NoMaxOrder", "ZeroLEOneClass", "OrderedSub",
        "OrderedAddCommMonoid", "OrderedCancelAddCommMonoid", "LinearOrderedAddCommMonoid",
        "LinearOrderedCancelAddCommMonoid", "OrderedSemiring", "OrderedCommSemiring",
        "StrictOrderedSemiring", "StrictOrderedCommSemiring", "LinearOrderedSemiring",
        "LinearOrderedCommSemiring", "IsOrderedAddMonoid", "IsOrderedCancelAddMonoid",
        "IsOrderedRing", "IsStrictOrderedRing", "Archimedean",
        # the trivial star (`TrivialStar`): `star x = x`, so a matrix's conjugate
        # transpose is its transpose
        "Star", "InvolutiveStar", "StarMul", "StarAddMonoid", "StarRing", "TrivialStar",
        "StarOrderedRing", "StarModule",
    }
)  # fmt: skip
# ℝ and ℤ: ordered commutative rings (ℕ has no negation), normed by |·|.
_RING = frozenset(
    {
        "Neg", "IntCast", "AddGroup", "AddCommGroup", "SubtractionMonoid",
        "SubtractionCommMonoid", "InvolutiveNeg", "HasDistribNeg", "AddGroupWithOne",
        "AddCommGroupWithOne", "NonUnitalNonAssocRing", "NonUnitalRing", "NonUnitalCommRing",
        "NonAssocRing", "Ring", "CommRing", "IsDomain", "NoMinOrder", "OrderedAddCommGroup",
        "LinearOrderedAddCommGroup", "OrderedRing", "OrderedCommRing", "StrictOrderedRing",
        "StrictOrderedCommRing", "LinearOrderedRing", "LinearOrderedCommRing", "Norm",
        "SeminormedAddGroup", "SeminormedAddCommGroup", "NormedAddGroup", "NormedAddCommGroup",
        "NonUnitalSeminormedRing", "SeminormedRing", "SeminormedCommRing", "NormedRing",
        "NormedCommRing", "NormOneClass",
    }
)  # fmt: skip
# ℝ alone: a complete linearly ordered field, a normed space and algebra over itself.
_FIELD = frozenset(
    {
        "Inv", "DivInvMonoid", "DivisionMonoid", "DivisionCommMonoid", "GroupWithZero",
        "CommGroupWithZero", "DivisionSemiring", "DivisionRing", "Semifield", "Field",
        "LinearOrderedSemifield", "LinearOrderedField", "NormedDivisionRing", "NormedField",
        "NontriviallyNormedField", "DenselyNormedField", "RCLike", "DenselyOrdered",
        "ConditionallyCompleteLinearOrder", "TopologicalSpace", "UniformSpace",
        "PseudoMetricSpace", "MetricSpace", "CompleteSpace", "SMul", "Module", "NormedSpace",
        "InnerProductSpace", "Algebra", "NormedAlgebra",
    }
)  # fmt: skip


# The classes that make a type variable a finite type of indices (checked at `Fin k`).
_FINITE = frozenset({"Fintype", "Finite"})
# What every `Fin k`, k ≥ 1, is an instance of (a dims draw takes k ≥ 1).
FINITE_INDEX = _FINITE | frozenset(
    {
        "Nonempty", "Inhabited", "LE", "LT", "Max", "Min", "Preorder", "PartialOrder",
        "LinearOrder", "Lattice", "SemilatticeSup", "SemilatticeInf", "DistribLattice",
        "Countable", "Encodable",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Instance:
    """A modelled type: how it is written (what replaces the type variable) and the
    classes it is an instance of, each with Lean's meaning of its operations there."""

    name: str
    classes: frozenset[str]

    def term(self) -> S.Term:
        return S.Const(self.name, written=self.name)


# The order is the order of the checks: ℝ first, as before these types were modelled.
INSTANCES: tuple[Instance, ...] = (
    Instance("ℝ", _SEMIRING | _RING | _FIELD),
    Instance("ℤ", _SEMIRING | _RING | {"Mod"}),
    Instance("ℕ", _SEMIRING | {"Mod", "CanonicallyOrderedAdd", "CanonicallyOrderedAddCommMonoid",
                              "CanonicallyOrderedCommSemiring", "LinearOrderedCommMonoidWithZero"}),
)  # fmt: skip
# Several type variables: at most this many assignments are checked (the first, in the
# order of `INSTANCES`), the rest named in the result as not checked.
MAX_VARIANTS = 4

_CANONICAL = {
    **dict.fromkeys(REAL_NAMES - {"ℚ", "Rat"}, "ℝ"),
    **dict.fromkeys(INT_NAMES, "ℤ"),
    **dict.fromkeys(NAT_NAMES, "ℕ"),
}
_BY_NAME = {i.name: i for i in INSTANCES}
# Scalar actions, and the numbers that act on each modelled type (the ones it contains:
# ℝ is a module over ℕ, ℤ, ℚ≥0 and ℚ, its `•` their product there)
_ACTIONS = frozenset({"SMul", "MulAction", "DistribMulAction", "Module"})
_SCALAR_ONLY = {"NNRat": "ℚ≥0", "ℚ≥0": "ℚ≥0", "Rat": "ℚ", "ℚ": "ℚ"}
_SCALARS_OF = {"ℝ": ("ℕ", "ℤ", "ℚ≥0", "ℚ", "ℝ"), "ℤ": ("ℕ", "ℤ"), "ℕ": ("ℕ",)}


@dataclass(frozen=True)
class Variant:
    """The statement at one assignment of modelled types to its type variables."""

    label: str  # `R := ℤ`, or `R := ℤ, M := ℤ`
    binders: tuple[S.Binder, ...]
    statement: S.Term


def class_name(t: S.Term) -> str:
    return (const_name(head_and_args(t)[0]) or "").rsplit(".", 1)[-1]


def holds(cls: str, types: Sequence[str]) -> bool:
    """Whether the class applied to these modelled types (by name) is an instance: every
    argument the same modelled type (`NormedSpace ℝ ℝ`, `Module ℤ ℤ`), which lists it, or
    a scalar action on a modelled type by numbers it contains (`Module ℚ≥0 ℝ`)."""
    if cls in ANY_TYPE:
        return True
    if cls in _ACTIONS and len(types) == 2 and types[0] in _SCALARS_OF.get(types[1], ()):
        return True
    if not types or len(set(types)) != 1 or types[0] not in _BY_NAME:
        return False
    return cls in _BY_NAME[types[0]].classes


def modelled_name(t: S.Term, scalar: bool = False) -> str | None:
    """The modelled type a type term names (`ℝ`, `Real`, `ℤ`, ...), or None; with
    `scalar`, also the numbers that only act on one (`ℚ≥0`, `ℚ`: `[Module ℚ≥0 M]`)."""
    while isinstance(t, S.Paren):
        t = t.term
    name = const_name(t) if isinstance(t, S.Const | S.Ident) else None
    if name is None:
        return None
    return _CANONICAL.get(name) or (_SCALAR_ONLY.get(name) if scalar else None)


def _type_variables(binders: Iterable[S.Binder]) -> list[str]:
    return [
        n
        for b in binders
        if isinstance(b.type, S.Sort) and b.type.kind != "Prop"
        for n in b.names
        if n != "_"
    ]


def _text(t: S.Term) -> str:
    from theorem_index.lean import print_term

    return str(print_term(t))


def instantiate(
    binders: tuple[S.Binder, ...], statement: S.Term
) -> tuple[list[Variant], int] | None:
    """The statement at each assignment of modelled types that meets its classes (see the
    module) and how many more assignments meet them unchecked (`MAX_VARIANTS`), None
    where it has no type variable. Raises NotSupported naming a class no modelled type
    (or no assignment) meets."""
    tvars = _type_variables(binders)
    if not tvars:
        return None
    # each class binder on a type variable: its class and its arguments' types
    on_vars: list[tuple[S.Binder, str, tuple[str, ...]]] = []
    for b in binders:
        if b.kind != "inst" or b.type is None:
            continue
        _, args = head_and_args(b.type)
        if not any(isinstance(a, S.Var | S.Ident) and a.name in tvars for a in args):
            continue
        cls = class_name(b.type)
        names: list[str] = []
        for a in args:
            if isinstance(a, S.Var | S.Ident) and a.name in tvars:
                names.append(a.name)
            elif (m := modelled_name(a, scalar=cls in _ACTIONS)) is not None:
                names.append(f"={m}")  # a fixed type, not a variable
            else:
                raise NotSupported(f"the instance [{_text(b.type)}] is not modelled")
        on_vars.append((b, cls, tuple(names)))
    finite = _finite_variables(tvars, on_vars, _index_types(binders))
    finite_binders = {id(b) for b, _, args in on_vars if any(a in finite for a in args)}
    on_vars = [c for c in on_vars if id(c[0]) not in finite_binders]
    tvars = [v for v in tvars if v not in finite]
    candidates: dict[str, list[Instance]] = {}
    for v in tvars:
        own = [cls for _, cls, args in on_vars if v in args]
        fits = [i for i in INSTANCES if all(c in ANY_TYPE or c in i.classes for c in own)]
        if not fits:
            none = [c for c in own if not any(holds(c, [i.name]) for i in INSTANCES)]
            modelled = ", ".join(i.name for i in INSTANCES)
            if none:
                raise NotSupported(
                    f"no modelled type is an instance of [{none[0]} {v}] (modelled: {modelled})"
                )
            raise NotSupported(
                f"no modelled type is at once {', '.join(own)} for {v} (modelled: {modelled})"
            )
        candidates[v] = fits

    def meets(choice: dict[str, str]) -> bool:
        return all(
            holds(cls, [a[1:] if a.startswith("=") else choice[a] for a in args])
            for _, cls, args in on_vars
        )

    choices = [
        dict(zip(tvars, (i.name for i in combo), strict=True))
        for combo in itertools.product(*(candidates[v] for v in tvars))
    ]
    choices = [c for c in choices if meets(c)]
    if not choices:
        shown = "; ".join(f"[{_text(b.type)}]" for b, _, _ in on_vars if b.type is not None)
        raise NotSupported(f"no assignment of modelled types meets {shown}")
    resolved = {id(b) for b, _, _ in on_vars} | finite_binders
    kept = tuple(
        b
        for b in binders
        if id(b) not in resolved and not (isinstance(b.type, S.Sort) and b.type.kind != "Prop")
    )
    # each finite index type is `Fin k`, k a dimension named after it: `{ι : ℕ}`
    sizes = tuple(S.Binder("implicit", (v,), S.Const("Nat", written="ℕ")) for v in finite)
    fins = {v: S.App(S.Const("Fin", written="Fin"), (S.Var(v),)) for v in finite}
    out = []
    for choice in choices[:MAX_VARIANTS]:
        mapping = {**fins, **{v: _BY_NAME[t].term() for v, t in choice.items()}}
        label = ", ".join(
            [f"{v} := Fin {v}" for v in finite] + [f"{v} := {t}" for v, t in choice.items()]
        )
        out.append(
            Variant(
                label,
                sizes + tuple(substitute(b, mapping, set()) for b in kept),
                substitute(statement, mapping, set()),
            )
        )
    return out, len(choices) - len(out)


def _index_types(binders: Iterable[S.Binder]) -> set[str]:
    """The type variables written as a `Matrix`'s row or column type, or as the elements
    of a `Finset`, in a binder's type: types of indices."""
    out: set[str] = set()
    for b in binders:
        for u in S.subterms(b.type) if b.type is not None else ():
            head, args = head_and_args(u)
            if const_name(head) == "Matrix" and len(args) == 3:
                out |= {a.name for a in args[:2] if isinstance(a, S.Var | S.Ident)}
            if const_name(head) == "Finset" and len(args) == 1:
                out |= {a.name for a in args if isinstance(a, S.Var | S.Ident)}
    return out


def _finite_variables(
    tvars: Sequence[str],
    on_vars: Sequence[tuple[S.Binder, str, tuple[str, ...]]],
    indexing: set[str],
) -> list[str]:
    """The type variables with a finiteness class, and those that index a `Matrix`
    (`indexing`): finite types of indices, checked at `Fin k` (see the module). Raises
    NotSupported where one has a class some `Fin k` lacks."""
    finite = [v for v in tvars if any(cls in _FINITE and v in args for _, cls, args in on_vars)]
    finite += [v for v in tvars if v not in finite and v in indexing]
    for b, cls, args in on_vars:
        if not any(a in finite for a in args):
            continue
        if len(args) != 1 or not (cls in FINITE_INDEX or cls in ANY_TYPE):
            raise NotSupported(
                f"the instance [{_text(b.type) if b.type is not None else cls}] is not "
                f"modelled at a finite index type (checked at Fin k)"
            )
    return finite


def argument_type(tvar: str, types: Sequence[S.Term | None], args: Sequence[object]) -> str:
    """The modelled type a definition's type parameter takes at a call: the widest (ℝ, then
    ℤ, then ℕ) of the arguments whose parameter has it as its type or its entries' type
    (`x : α`, `v : Fin n → α`); ℝ where no argument says (equations.py)."""
    kinds = {"real": "ℝ", "int": "ℤ", "nat": "ℕ"}
    found = set()
    for t, a in zip(types, args, strict=False):
        while isinstance(t, S.BinOp) and t.op == "→":
            t = t.rhs
        if isinstance(t, S.Var | S.Ident) and t.name == tvar and isinstance(a, Arr):
            found.add(kinds.get(a.kind, "ℝ"))
    return next((k for k in ("ℝ", "ℤ", "ℕ") if k in found), "ℝ")
