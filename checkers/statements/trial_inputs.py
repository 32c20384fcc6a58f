"""A derived checker's binders as one trial's inputs.

Each binder of the plan (binders.py) is an input the harness draws: a real array
over `Fin` domains, within the bounds and constraints its hypotheses set (bounds.py);
an index, an index map or a ℕ; or a value a sampler builds (a structure:
structures.py; a function: drawn_functions.py; an integer or a list: drawn_lists.py).
`input_specs` says how each is drawn for one dims draw; `inputs_env` binds the drawn
inputs, with the dimensions, the type variables and the hypotheses, to the names the
statement uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from checkers.core import InputSpec
from checkers.evaluator.evaluate import Evaluator
from checkers.evaluator.finsets import drawn_finset
from checkers.language.complex import COMPLEX_PARTS, build
from checkers.language.errors import EvalError, NotSupported
from checkers.language.types import TFin, const_name, fin_domains, head_and_args, kind_of
from checkers.language.values import Arr, Proof, TypeValue, static_nat
from checkers.lazyjax import jnp
from checkers.library.semantics import Semantics
from checkers.library.structures import StructSampler, structure_sampler
from checkers.premises.binders import Input, Plan
from checkers.premises.bound_values import to_bound
from checkers.premises.drawn_functions import function_specs, function_value
from checkers.premises.drawn_lists import INT_RANGE, element_spec, int_value, list_specs, list_value
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

NAT_INPUT_RANGE = (0, 10)


class TrialInputs:
    """What a derived checker (checker.py) draws and binds in one trial: the inputs its
    binders are drawn as, and the values the drawn inputs give its statement's names."""

    plan: Plan
    semantics: Semantics
    _sizes: dict[tuple[tuple[str, int], ...], dict[str, Any]]

    def _base_env(self, dims: Mapping[str, int]) -> dict[str, Any]:
        missing = [d for d in self.plan.dims if d not in dims]
        if missing:
            raise EvalError(f"no value for the dimension(s) {', '.join(missing)}")
        env: dict[str, Any] = {d: static_nat(int(dims[d])) for d in self.plan.dims}
        for t in self.plan.type_vars:
            env[t] = TypeValue("ℝ")
        for h in self.plan.hyps:
            env[h.name] = Proof(h.name)
        return env

    def _types(self, dims: Mapping[str, int]) -> dict[str, Any]:
        key = tuple(sorted((k, int(v)) for k, v in dims.items()))
        if key not in self._sizes:
            ev = Evaluator(self.semantics)
            env = self._base_env(dims)
            self._sizes[key] = {
                i.name: ev.type_of(_finset_elements(i.type) if i.role == "finset" else i.type, env)
                for i in self.plan.inputs
                if i.role not in ("struct", "int", "list")
            }
        return self._sizes[key]

    def input_specs(self, dims: Mapping[str, int]) -> dict[str, InputSpec]:
        out: dict[str, InputSpec] = {}
        for inp in self.plan.inputs:
            if inp.role == "struct":
                for field_name, spec in sampler_of(inp).specs(inp.name).items():
                    bounds = tuple(
                        b
                        for p in self.plan.bounds
                        if p.target == field_name and (b := to_bound(p, dims, 0)) is not None
                    )
                    out[field_name] = replace(spec, bounds=bounds) if bounds else spec
                continue
            if inp.role == "int":
                out[inp.name] = InputSpec.integers(*INT_RANGE)
                continue
            if inp.role == "list":
                out.update(list_specs(inp.name, self.plan.lists.shapes[inp.name], dims))
                continue
            ty = self._types(dims)[inp.name]
            if inp.role == "finset":  # a subset of Fin k: whether each index is in it
                out[inp.name] = InputSpec.index_map(_finset_size(inp.name, ty), 2)
                continue
            if inp.role == "function":
                out.update(function_specs(inp.name, ty))
                continue
            doms, elem = fin_domains(ty)
            shape = tuple(d.n for d in doms)
            kind = kind_of(ty)
            if inp.role == "nat":
                out[inp.name] = InputSpec.nat(*NAT_INPUT_RANGE)
            elif kind == "fin" and not doms:
                assert isinstance(elem, TFin) and elem.sz is not None
                out[inp.name] = InputSpec.fin(elem.sz.n)
            elif kind == "fin" and len(doms) == 1:
                assert isinstance(elem, TFin) and elem.sz is not None
                out[inp.name] = InputSpec.index_map(shape[0], elem.sz.n)
            elif kind in ("real", "nnreal", "angle"):
                constraint = self.plan.constraints.get(inp.name)
                if kind == "nnreal":  # 0 ≤ x by its type; x ≠ 0 makes it positive
                    positive = constraint in ("positive", "nonzero")
                    constraint = "positive" if positive else "nonnegative"
                bounds = tuple(
                    b
                    for p in self.plan.bounds
                    if p.target == inp.name and (b := to_bound(p, dims, len(shape))) is not None
                )
                out[inp.name] = InputSpec.real(shape, constraint=constraint, bounds=bounds)
            elif kind == "complex":  # its parts, each a real input of the same shape
                for part in COMPLEX_PARTS:
                    key = f"{inp.name}.{part}"
                    bounds = tuple(
                        b
                        for p in self.plan.bounds
                        if p.target == key and (b := to_bound(p, dims, len(shape))) is not None
                    )
                    out[key] = InputSpec.real(shape, bounds=bounds)
            elif kind in ("int", "nat"):  # `Fin n → ℤ`, drawn as a list's elements are
                out[inp.name] = element_spec(kind, shape)
            else:
                raise NotSupported(
                    f"the binder {inp.name} : {print_term(inp.type)} is not a number, index "
                    "or array over Fin, so it cannot be sampled"
                )
        return out

    def inputs_env(
        self, dims: Mapping[str, int], inputs: Mapping[str, Any], dtype: Any
    ) -> dict[str, Any]:
        env = self._base_env(dims)
        types = self._types(dims)
        for inp in self.plan.inputs:
            if inp.role == "struct":
                env[inp.name] = sampler_of(inp).value(inp.name, inputs, dtype)
                continue
            if inp.role == "function":
                env[inp.name] = function_value(inp.name, types[inp.name], inputs, dtype)
                continue
            if inp.role == "int":
                env[inp.name] = int_value(inputs[inp.name])
                continue
            if inp.role == "list":
                shape = self.plan.lists.shapes[inp.name]
                env[inp.name] = list_value(inp.name, shape, dims, inputs, dtype)
                continue
            ty = types[inp.name]
            if kind_of(ty) == "complex":
                re, im = (jnp.asarray(inputs[f"{inp.name}.{p}"], dtype) for p in COMPLEX_PARTS)
                env[inp.name] = Arr(build(re, im), "complex", dom=fin_domains(ty)[0])
                continue
            x = inputs[inp.name]
            if inp.role == "finset":
                env[inp.name] = drawn_finset(jnp.asarray(x) == 1, _finset_size(inp.name, ty))
                continue
            doms, elem = fin_domains(ty)
            if inp.role == "nat":
                env[inp.name] = Arr(jnp.asarray(x), "nat")
            elif kind_of(ty) == "fin":
                assert isinstance(elem, TFin)
                env[inp.name] = Arr(jnp.asarray(x), "fin", dom=doms, bound=elem.sz)
            elif kind_of(ty) in ("int", "nat"):
                env[inp.name] = Arr(jnp.asarray(x, jnp.int64), str(kind_of(ty)), dom=doms)
            else:
                kind = str(kind_of(ty)) if kind_of(ty) in ("nnreal", "angle") else "real"
                l2 = const_name(head_and_args(inp.type)[0]) == "EuclideanSpace"
                env[inp.name] = Arr(jnp.asarray(x, dtype), kind, dom=doms, l2=l2)
        return env


def sampler_of(inp: Input) -> StructSampler:
    h, _ = head_and_args(inp.type)
    sampler = structure_sampler(const_name(h))
    assert sampler is not None, inp
    return sampler


def _finset_elements(ty: S.Term) -> S.Term:
    """The element type of `Finset T` (T)."""
    _, args = head_and_args(ty)
    return args[0]


def _finset_size(name: str, elements: Any) -> int:
    if not isinstance(elements, TFin) or elements.sz is None:
        raise NotSupported(f"the binder {name}: only a Finset of a Fin type is drawn")
    return elements.sz.n
