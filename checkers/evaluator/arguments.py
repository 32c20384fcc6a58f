"""How arguments reach a function: `@f` (every parameter explicit) and named
arguments `(x := e)`.

For a definition unfolded through its equation the parameters are known (its
binders): `@f N a c X dY` passes the implicit dimensions N, a, c, which pin the
dimensions the unfolding would otherwise infer (and must agree with the
arguments), and `f (X := A) B` puts A at the parameter X and B at the first
explicit parameter left. A library function's implicit parameters are known
where its entry says how many lead its signature (`Builtin.implicit`, e.g.
`@Finset.sum (Fin n) ℝ _ s f`); a local function has none. Anything else is
unsupported, and the reason says which name and why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from checkers.evaluator.equations import EqnFn, Param
from checkers.language.coercion import nat_constant
from checkers.language.errors import EvalError, NotSupported
from checkers.language.types import NAT_NAMES, TNat, Ty
from checkers.language.values import Arr, Builtin, Closure, Partial, Sz
from theorem_index.lean import syntax as S

if TYPE_CHECKING:
    from checkers.language.host import Env, Host


@dataclass(frozen=True, eq=False)
class Pinned:
    """An equation-defined function some of whose implicit dimensions were given."""

    eqn: EqnFn
    dims: Mapping[str, Sz]

    def min_args(self) -> int:
        return self.eqn.min_args()

    def param_kind(self, k: int) -> str | None:
        return self.eqn.param_kind(k)

    def param_type(self, k: int) -> Ty | None:
        return self.eqn.param_type(k)

    def apply_args(self, ev: Host, args: tuple[Any, ...], expected: Any = None) -> tuple[Any, int]:
        return self.eqn.apply_args(ev, args, pinned=self.dims, expected=expected)


def is_explicit_application(t: S.App) -> bool:
    return isinstance(t.fn, S.Prefix) and t.fn.op == "@"


def arrange(ev: Host, fn: Any, t: S.App, env: Env) -> tuple[Any, list[S.Term]]:
    """The function to apply and its explicit argument terms, in order."""
    every = is_explicit_application(t)
    named = [a for a in t.args if isinstance(a, S.NamedArg)]
    if not every and not named:
        return fn, list(t.args)
    if isinstance(fn, EqnFn):
        return _definition(ev, fn, t.args, every, env)
    what = fn.name if isinstance(fn, Builtin) else "a local function"
    if named:
        raise NotSupported(
            f"the named argument ({named[0].name} := …) of {what}: "
            "its parameter names are not known here"
        )
    if isinstance(fn, Builtin):
        if fn.implicit is None:
            raise NotSupported(f"`@{fn.name}`: its implicit parameters are not known here")
        return fn, list(t.args[fn.implicit :])
    if isinstance(fn, Arr | Closure):
        return fn, list(t.args)  # a local function has no implicit parameters
    if isinstance(fn, Partial):
        raise NotSupported("`@` on a partially applied function")
    raise NotSupported(f"`@` on a {type(fn).__name__}")


def _is_nat(p: Param) -> bool:
    return isinstance(p.type, S.Const | S.Ident) and p.type.name in NAT_NAMES


def _definition(
    ev: Host, fn: EqnFn, args: tuple[S.Term, ...], every: bool, env: Env
) -> tuple[Any, list[S.Term]]:
    by_name = {p.name: p for p in fn.params if p.name}
    slots: dict[int, S.Term] = {}
    for a in args:
        if isinstance(a, S.NamedArg):
            p = by_name.get(a.name)
            if p is None:
                raise EvalError(f"{fn.name} has no parameter named {a.name}")
            slots[fn.params.index(p)] = a.value
    positional = [a for a in args if not isinstance(a, S.NamedArg)]
    order = [k for k, p in enumerate(fn.params) if every or p.kind == "explicit"]
    free = [k for k in order if k not in slots]
    for k, a in zip(free, positional, strict=False):
        slots[k] = a
    beyond = positional[len(free) :]  # applied to the definition's value (trailing indices)
    dims: dict[str, Sz] = {}
    explicit: list[S.Term] = []
    missing: str | None = None
    for k, p in enumerate(fn.params):
        given = slots.get(k)
        if p.kind != "explicit":
            if given is not None and _is_nat(p) and not isinstance(given, S.Hole):
                value = ev.eval(given, env, TNat())
                dims[p.name] = Sz(nat_constant(ev._arr(value, fn.name), fn.name))
            continue  # types, instances and `_` are inferred
        if given is None:
            missing = missing or p.name
            continue
        if missing is not None:
            raise NotSupported(
                f"{fn.name}: an argument for {p.name} while the earlier parameter "
                f"{missing} is left out"
            )
        explicit.append(given)
    if beyond and missing is not None:
        raise NotSupported(f"{fn.name}: more arguments than parameters left")
    head: Any = Pinned(fn, dims) if dims else fn
    return head, explicit + beyond
