"""A definition's ingested equations as the parts of an unfoldable function (EqnFn).

`by_cases` turns equations by cases into one `match` on fresh argument variables;
`scalar_arguments` makes the arguments the type takes (`def natPred : ℕ → ℕ`, a size
matched by the equations of `def dot : {n : Nat} → Vec n → …`) parameters named by the
equations' variables; `fixed_variables` puts a section variable back into the recursive
calls that leave it out. semantics.py assembles them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from checkers.evaluator.equations import Param
from checkers.language.errors import NotSupported
from checkers.language.substitute import substitute
from checkers.language.types import (
    LIST_NAMES,
    NAT_NAMES,
    NUMBER_NAMES,
    array_rank,
    const_name,
    head_and_args,
)
from theorem_index.lean import syntax as S


def by_cases(
    name: str, equations: Sequence[S.Term]
) -> tuple[tuple[str, ...], S.Term] | NotSupported:
    """A definition's equations as (argument variables, right-hand side).

    One equation whose arguments are variables is that; equations by cases
    (`natPred 0 = 0`, `natPred (k + 1) = k`, `combZ n [] _ = …`) become one `match`
    on fresh argument variables, tried in order, which the evaluator computes as a
    select. A right-hand side may use the definition itself (structural recursion):
    it unfolds on the concrete values, as far as the evaluator's limits allow
    (equations.py).
    """
    parts: list[tuple[tuple[S.Term, ...], S.Term]] = []
    for eq in equations:
        if not (isinstance(eq, S.BinOp) and eq.op == "="):
            return NotSupported(f"the equation of {name} is not an equality")
        head, args = (eq.lhs.fn, eq.lhs.args) if isinstance(eq.lhs, S.App) else (eq.lhs, ())
        if not (isinstance(head, S.Const) and head.name == name):
            return NotSupported(f"the equation of {name} does not define {name}")
        parts.append((tuple(args), eq.rhs))
    if len(parts) == 1 and all(isinstance(a, S.Var) for a in parts[0][0]):
        args, rhs = parts[0]
        return tuple(a.name for a in args if isinstance(a, S.Var)), rhs
    arity = {len(args) for args, _ in parts}
    if len(arity) != 1:
        return NotSupported(f"the equations of {name} take different numbers of arguments")
    names = tuple(f"_case{k}" for k in range(arity.pop()))
    alts = tuple(S.MatchAlt(args, rhs) for args, rhs in parts)
    return names, S.Match(tuple(S.Var(n) for n in names), alts)


_SCALARS = NUMBER_NAMES


def _data_type(t: S.Term) -> bool:
    """ℕ, ℤ, ℝ, a list or an array (`Vec n`): a type whose arguments are values, not
    `Fin` indices."""
    if isinstance(t, S.Const | S.Ident):
        return t.name in _SCALARS
    head, args = head_and_args(t)
    name = const_name(head)
    if name in LIST_NAMES and len(args) == 1:
        return True
    return name is not None and array_rank(name) == len(args) and bool(args)


def _implicit_sizes(t: S.Term | None, extra: list[str], added: list[Param]) -> S.Term | None:
    """`{n : Nat} → Vec n → ℝ` defined by `dot M (n + 1) x = …`: the equations match the
    implicit size at its position, so it becomes a parameter named by the equation's
    variable there (inferred from the arguments, as an implicit one is), and the rest
    of the type speaks of that variable."""
    while isinstance(t, S.Pi) and extra:
        binders = t.binders
        if not all(b.kind == "implicit" and _is_nat_type(b.type) for b in binders):
            return t
        mapping: dict[str, S.Term] = {}
        for b in binders:
            for n in b.names:
                if not extra:
                    return t
                var = extra.pop(0)
                added.append(Param(var, b.type, "implicit"))
                mapping[n] = S.Var(var)
        t = substitute(t.body, mapping, set())
    return t


def _is_nat_type(t: S.Term | None) -> bool:
    return isinstance(t, S.Const | S.Ident) and t.name in NAT_NAMES


def scalar_arguments(
    params: tuple[Param, ...],
    result: S.Term | None,
    lhs_vars: tuple[str, ...],
    data: Callable[[S.Term], bool] | None = None,
) -> tuple[tuple[Param, ...], S.Term | None]:
    """`def natPred : ℕ → ℕ` with `natPred k = …`: arguments that the type takes (ℕ, ℤ, ℝ,
    lists, or a type `data` accepts, such as an inductive type; not `Fin` indices) become
    explicit parameters named by the equation's variables."""
    extra = list(lhs_vars[sum(p.kind == "explicit" for p in params) :])
    added: list[Param] = []
    t = _implicit_sizes(result, extra, added)
    for var in extra:
        while isinstance(t, S.Paren):
            t = t.term
        if not (isinstance(t, S.BinOp) and t.op == "→"):
            break
        dom = t.lhs
        if not (_data_type(dom) or (data is not None and data(dom))):
            break
        added.append(Param(var, dom, "explicit"))
        t = t.rhs
    return params + tuple(added), t


def fixed_variables(name: str, rhs: S.Term, arity: int) -> S.Term:
    """Recursive calls that leave out a leading section variable: in `variable (M :
    FloatModel)` … `dot M (n + 1) x y = M.add (dot x' y') …` the body's `dot` is `dot M`
    (a section variable is fixed inside the definition). A call of `name` given one
    argument fewer than it takes, in an alternative whose first pattern is a variable
    that the call does not pass first, gets that variable in front."""
    if not isinstance(rhs, S.Match):
        return rhs
    alts = []
    for alt in rhs.alts:
        first = alt.patterns[0] if alt.patterns else None
        if not isinstance(first, S.Var):
            alts.append(alt)
            continue

        def fix(t: Any, var: S.Var = first) -> Any:
            if isinstance(t, S.App):
                args = tuple(fix(a) for a in t.args)
                fn = fix(t.fn)
                if (
                    isinstance(fn, S.Const)
                    and fn.name == name
                    and len(args) == arity - 1
                    and not (args and args[0] == var)
                ):
                    return S.App(fn, (var, *args))
                return S.App(fn, args)
            if isinstance(t, S.Term):
                kw = {f: fix(getattr(t, f)) for f in S.node_fields(type(t))}
                return type(t)(**kw, span=t.span)
            if isinstance(t, tuple):
                return tuple(fix(x) for x in t)
            return t

        alts.append(S.MatchAlt(alt.patterns, fix(alt.rhs)))
    return S.Match(rhs.scrutinees, tuple(alts))
