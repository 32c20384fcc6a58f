"""Applications evaluated once per trace.

The evaluator is a function of (term, the values of the names it mentions, the type
expected of it): within one trace, an application evaluated again with the same values
bound to its names gives the same value. Some terms are: the size of an untyped index
variable (`fun j => relu n (dense W b x) j`) is found by evaluating the function it is
applied to, which the body then evaluates again, and each nested lambda below does the
same, so a deep network was traced several times over for one statement. `Applications`
keeps, for one evaluator (one trace), the value of each application it evaluated,
keyed by the term and the identities of the values its names were bound to; the term
and those values stay referenced by the entry, so an identity is never reused while
it is a key.

The meter (measure.py) records each addition's operands for the comparison's scale, a
maximum over what it recorded: a value taken from here was recorded when it was
computed, so what it records is unchanged, provided it was computed with the meter in
the same state (running, or paused for a hypothesis), which is part of the key.
Values that hold more than `MAX_HOST_ENTRIES` numbers outside the trace are not kept
(they would live to the end of the trace instead of being freed when used).

The names a term mentions depend on the term alone, and most applications evaluated
are terms of the ingested definitions, evaluated again at every dims draw: they are
kept across evaluators, for the last `MAX_TERMS_NAMED` terms (then forgotten at once).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from checkers.language.values import Arr
from checkers.lazyjax import jax
from theorem_index.lean import syntax as S

MAX_HOST_ENTRIES = 1 << 16
MAX_TERMS_NAMED = 1 << 14

_ABSENT = object()

# id(term) -> (term, the names it mentions); the term is kept so its id stays its own
_NAMES: dict[int, tuple[S.Term, tuple[str, ...]]] = {}


class Applications:
    def __init__(self) -> None:
        self._names = _NAMES  # shared by every evaluator (see the module)
        self._values: dict[tuple[Any, ...], tuple[S.Term, tuple[Any, ...], Arr]] = {}

    def key(self, t: S.Term, env: Mapping[str, Any], expected: Any, metered: bool) -> Any:
        """The key of `t` evaluated in `env` (None where there is none to give)."""
        bound = tuple(env.get(n, _ABSENT) for n in self.names(t))
        try:
            hash(expected)
        except TypeError:
            return None
        return (id(t), expected, metered, tuple(id(v) for v in bound)), bound

    def get(self, key: Any) -> Arr | None:
        got = self._values.get(key[0])
        return None if got is None else got[2]

    def put(self, t: S.Term, key: Any, value: Any) -> None:
        if isinstance(value, Arr) and _small_or_traced(value.data):
            self._values[key[0]] = (t, key[1], value)

    def names(self, t: S.Term) -> tuple[str, ...]:
        """Every name `t` mentions (bound ones too: a key may be finer than it needs)."""
        got = self._names.get(id(t))
        if got is not None:
            return got[1]
        found: set[str] = set()
        stack: list[Any] = [t]
        while stack:
            u = stack.pop()
            if isinstance(u, tuple):
                stack.extend(u)
            elif isinstance(u, S.Term):
                known = self._names.get(id(u)) if u is not t else None
                if known is not None:
                    found.update(known[1])  # an application inside, evaluated before
                    continue
                if isinstance(u, S.Var | S.Ident):
                    found.add(u.name)
                    found.add(u.name.partition(".")[0])  # `x.field` reads x
                stack.extend(getattr(u, n) for n in S.node_fields(type(u)))
        names = tuple(sorted(found))
        if len(self._names) >= MAX_TERMS_NAMED:
            self._names.clear()
        self._names[id(t)] = (t, names)
        return names


def _small_or_traced(data: Any) -> bool:
    size = getattr(data, "size", None)
    if size is None:
        return True  # a Python number or an exact numeral
    return isinstance(data, jax.core.Tracer) or int(size) <= MAX_HOST_ENTRIES
