"""Binding forms and structures: `let`, `if`, projections, tuples, anonymous
constructors, `![..]`, lists, `xs[i]`, norms. Big operators and quantifiers are
in big_operators.py.

`if c then a else b` selects between two total branches (or evaluates only the
branch taken when c is a constant).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from checkers.language import arith as A
from checkers.language.axes import expand, union_axes
from checkers.language.coercion import TYPED_RANK, coerce, host_constant
from checkers.language.complex import modulus
from checkers.language.errors import EvalError, NotSupported, UntypedNumeral
from checkers.language.notation import INDEX_NOTATION, field_function
from checkers.language.types import (
    TFin,
    TFun,
    TList,
    TNat,
    TProd,
    Ty,
    const_name,
    head_and_args,
    kind_of,
)
from checkers.language.values import (
    Among,
    Arr,
    Builtin,
    Ctor,
    Lst,
    Pair,
    Proof,
    Struct,
    Sz,
    Unevaluated,
    as_array,
)
from checkers.lazyjax import jnp
from theorem_index.lean import syntax as S

# array types whose declared name says where their field notation looks (`A.det`)
DECLARED_NAMESPACES = frozenset({"Matrix"})

if TYPE_CHECKING:
    from checkers.language.host import Env, Host


def lambda_params(binders: tuple[S.Binder, ...]) -> tuple[tuple[Any, S.Term | None], ...]:
    """(name or pattern, type) for each parameter of a `fun` (patterns.py)."""
    out: list[tuple[Any, S.Term | None]] = []
    for b in binders:
        if b.kind == "inst":
            continue
        if b.pattern is not None:
            out.append((b.pattern, b.type))
        for n in b.names:
            out.append((n, b.type))
    return tuple(out)


class Forms:
    """The binding forms and structures of `Evaluator` (a mixin)."""

    def _tuple(self: Host, items: list[S.Term], env: Env, expected: Ty | None) -> Pair:
        e1 = expected.fst if isinstance(expected, TProd) else None
        e2 = expected.snd if isinstance(expected, TProd) else None
        a = self.eval(items[0], env, e1)
        b = self.eval(items[1], env, e2) if len(items) == 2 else self._tuple(items[1:], env, e2)
        return Pair(a, b)

    def _anon(self: Host, t: S.Anon, env: Env, expected: Ty | None) -> Any:
        if isinstance(expected, TFin) or (
            len(t.items) == 2
            and isinstance(t.items[1], S.Proj | S.By | S.Hole)
            and not isinstance(expected, TProd)
        ):
            v = self._arr(self.eval(t.items[0], env, TNat()), "Fin.mk")
            sz = expected.sz if isinstance(expected, TFin) else None
            v = coerce(v, "nat", self.ctx)
            if sz is not None and v.is_static and not 0 <= int(v.data) < sz.n:
                # `⟨k, h⟩ : Fin n` needs a proof h of k < n: no such term exists
                raise EvalError(f"⟨{v.data}, _⟩ is not an element of Fin {sz.n}")
            return v.with_(kind="fin", bound=sz)
        return self._tuple(list(t.items), env, expected)

    def _veclit(self: Host, t: S.VecLit, env: Env, expected: Ty | None = None) -> Arr:
        # the expected type of the vector, or (in an arithmetic tree) of its elements
        elem = expected.cod if isinstance(expected, TFun) else expected
        vals = [self._arr(self.eval(x, env, elem), "![..]") for x in t.items]
        if not vals:
            return Arr(jnp.zeros((0,)), "real", dom=(Sz(0),))
        kind = "num"
        for v in vals:
            if v.kind in TYPED_RANK:
                kind, _ = self._join(kind, None, v.kind, v.bound)
        if kind == "num":
            ek = kind_of(elem) if elem is not None else None
            if ek not in TYPED_RANK:
                raise UntypedNumeral("a vector of numerals whose element type is not fixed here")
            kind = ek or "real"
        kind = "real" if kind == "fin" else kind
        return stack(vals, kind, self.ctx)

    def _listlit(self: Host, t: S.ListLit, env: Env, expected: Ty | None) -> Lst:
        """`[a, b, c]`: each element at the element type the context gives."""
        elem = expected.elem if isinstance(expected, TList) else None
        if elem is None:
            return Lst(tuple(self.eval(x, env) for x in t.items))
        return Lst(tuple(self.coerce_to(self.eval(x, env, elem), elem) for x in t.items), elem)

    def _get_elem(self: Host, t: S.Index, env: Env) -> Any:
        """`xs[i]`, `xs[i]!`: Lean's `getElem` notation, through the library."""
        if t.suffix not in INDEX_NOTATION:
            raise NotSupported(f"the index notation xs[i]{t.suffix} (an Option) is not evaluated")
        xs = self.eval(t.term, env)
        i = self.eval(t.index, env, TNat())
        args = [xs, i] if t.suffix else [xs, i, Proof("the index is in range")]
        return self.apply(self.constant(INDEX_NOTATION[t.suffix]), args)

    def _norm(self: Host, t: S.Norm, env: Env) -> Arr:
        x = self._arr(self.eval(t.term, env), "‖·‖")
        if x.kind == "complex":  # the modulus, from the parts (library/complex)
            d = modulus(jnp.real(as_array(x)), jnp.imag(as_array(x)))
        else:
            d = jnp.abs(as_array(coerce(x, "real", self.ctx)))
        k = len(x.axes)
        if x.dom and x.l2:  # EuclideanSpace: √(∑ |xᵢ|²) (`EuclideanSpace.norm_eq`)
            red = tuple(range(k, d.ndim))
            d = jnp.sqrt(jnp.sum(d * d, axis=red))
        elif x.dom:  # a function `ι → ℝ` (Pi): the largest |xᵢ| (`Pi.norm_def`)
            red = tuple(range(k, d.ndim))
            d = jnp.max(d, axis=red, initial=0.0)
        return Arr(d, "real", x.axes)

    def _proj(self: Host, t: S.Proj, env: Env, expected: Ty | None) -> Any:
        base = t.term
        name = base.name if isinstance(base, S.Const | S.Ident) else None
        if name is not None and not (isinstance(base, S.Ident) and name in env):
            try:
                return self.constant(f"{name}.{t.field}")
            except NotSupported:
                pass  # field notation on the constant's value
        v = self.eval(base, env)
        f = t.field
        if isinstance(v, Pair):
            if f in ("1", "fst"):
                return v.fst
            if f in ("2", "snd"):
                return v.snd
            raise EvalError(f"a pair has no field {f}")
        if isinstance(v, Proof):
            return Proof(f)
        if isinstance(v, Struct):
            if f in v.fields:
                got = v.fields[f]
                if isinstance(got, Unevaluated):
                    raise NotSupported(f"the field {f} of {v.type_name}: {got.reason}")
                return got
            # generalized field notation: `M.add x y` is `FloatModel.add M x y`
            return self.apply(self.constant(f"{v.type_name}.{f}"), [v])
        if isinstance(v, Ctor):
            # `e.subst g` is `Back.subst e g`
            return self.apply(self.constant(f"{v.type_name}.{f}"), [v])
        if isinstance(v, Lst | Among):
            return self.apply(field_function(self.constant(f"List.{f}"), v), [v])
        if isinstance(v, Arr):
            if f == "isLt":
                return Proof("isLt")
            # the namespace of its declared type where a definition states it (`E₆.det` is
            # `Matrix.det E₆`: `def E₆ : Matrix …`), else the one its shape suggests
            declared = _declared_head(self, base)
            for ns in dict.fromkeys(n for n in (declared, self._namespace(v)) if n):
                try:
                    fn = self.constant(f"{ns}.{f}")
                except NotSupported:
                    if ns == declared:
                        continue
                    raise
                return self.apply(field_function(fn, v), [v])
        if isinstance(v, Builtin):
            return self.constant(f"{v.name}.{f}")
        if hasattr(v, "field"):  # a value that knows its own fields (a finset)
            return v.field(self, f)
        raise NotSupported(f"the field .{f} of a {type(v).__name__}")

    @staticmethod
    def _namespace(v: Arr) -> str:
        if v.dom:
            return {1: "Proofs.Vec", 2: "Proofs.Mat", 3: "Proofs.Tensor3", 4: "Proofs.Kernel4"}.get(
                len(v.dom), "Proofs.Vec"
            )
        names = {
            "fin": "Fin",
            "nat": "Nat",
            "int": "Int",
            "real": "Real",
            "nnreal": "NNReal",
            "angle": "Real.Angle",
            "complex": "Complex",
        }
        return names.get(v.kind, "Nat")

    def _let(self: Host, t: S.Let, env: Env, expected: Ty | None) -> Any:
        if t.pattern is not None:
            env2 = dict(env)
            self.bind_value(t.pattern, self.eval(t.value, env), env2)
            return self.eval(t.body, env2, expected)
        if t.binders:
            val = self.lam(lambda_params(t.binders), t.value, env, None)
        else:
            ty = self.type_of(t.type, env) if t.type is not None else None
            val = self.eval(t.value, env, ty)
            if ty is not None:
                val = self.coerce_to(val, ty)
        return self.eval(t.body, {**env, t.name: val}, expected)

    def _if(self: Host, t: S.If, env: Env, expected: Ty | None) -> Any:
        c = self._arr(self.eval(t.cond, env), "if")
        env2 = {**env, t.hyp: Proof(t.hyp)} if t.hyp else env
        if c.kind != "bool":
            raise EvalError("the condition of an if is not a proposition")
        if c.is_static and not c.axes:
            return self.eval(t.then if bool(c.data) else t.els, env2, expected)
        a = self._arr(self.eval(t.then, env2, expected), "if")
        b = self._arr(self.eval(t.els, env2, expected), "if")
        ek = kind_of(expected) if expected is not None else None
        if ek in TYPED_RANK and "num" in (a.kind, b.kind):
            sz = expected.sz if isinstance(expected, TFin) else None
            a, b = (coerce(x, ek or "real", self.ctx, sz) for x in (a, b))
        return A.select(c, a, b, self.ctx)


def _declared_head(ev: Host, t: S.Term) -> str | None:
    """The head of the type a definition declares for `t`, where `t` is the definition
    (or its application to all its explicit arguments) and the type is an array's that
    names its own namespace (`Matrix (Fin 2) (Fin 2) ℤ`)."""
    head, args = head_and_args(t)
    if not isinstance(head, S.Const):
        return None
    try:
        fn = ev.lib.lookup(head.name)
    except NotSupported:
        return None
    result = getattr(fn, "result", None)
    if result is None or len(args) != fn.min_args() or getattr(fn, "extra", ()):
        return None
    name = const_name(head_and_args(result)[0])
    return name if name in DECLARED_NAMESPACES else None


def stack(vals: list[Arr], kind: str, ctx: Any) -> Arr:
    """Values of one type as one function of a new leading index (`![a, b, c]`, or a
    list's elements): the values at `kind`, on the union of their named axes."""
    host = _host_stack(vals, kind, ctx)
    if host is not None:
        return host
    vals = [coerce(v, kind, ctx) for v in vals]
    axes = union_axes(*vals)
    nd = max(len(v.dom) for v in vals)
    ds = [expand(v, axes, nd) for v in vals]
    shape = jnp.broadcast_shapes(*(d.shape for d in ds))
    data = jnp.stack([jnp.broadcast_to(d, shape) for d in ds], axis=len(axes))
    dom = (Sz(len(vals)),) + next((v.dom for v in vals if v.dom), ())
    return Arr(data, kind, axes, dom)


def _host_stack(vals: list[Arr], kind: str, ctx: Any) -> Arr | None:
    """A vector literal of constants (numerals, rows computed outside any trace) built on
    the host in one array: a weight table of thousands of numerals then costs one array
    constant, not an eager JAX operation per entry. None when an entry is not constant."""
    parts = []
    for v in vals:
        d = host_constant(v, kind, ctx)
        if d is None:
            return None
        parts.append((v, d))
    nd = max(len(v.dom) for v in vals)
    laid = [d.reshape(tuple(s.n for s in v.dom) if v.dom else (1,) * nd) for v, d in parts]
    shape = np.broadcast_shapes(*(d.shape for d in laid))
    data = np.stack([np.broadcast_to(d, shape) for d in laid], axis=0)
    dom = (Sz(len(vals)),) + next((v.dom for v in vals if v.dom), ())
    return Arr(jnp.asarray(data), kind, (), dom)
