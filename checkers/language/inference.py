"""Types of binders written without one, from how they are used, as Lean's elaborator
infers them.

`settle_types(binders, statement, sem)` gives every untyped binder (`∑ j, ..`,
`∀ a b, ..`, `fun q => ..`, a signature binder `(x)`) whose uses settle its type
that type, written into the tree; the rest of the checker then reads it like
a written one. An untyped binder starts as a metavariable, and each use is a
unification, as in the elaborator:

- an argument of a function takes the function's parameter type: an index
  applied to a `Vec n` is a `Fin n`, to a `W : Mat m n` at its second place a
  `Fin n`; an argument of a definition (`dense W b x`) has the type of its
  parameter, with the definition's implicit dimensions solved from the other
  arguments (`{m n : ℕ} (W : Mat m n)`) and its explicit ones substituted
  (`softmax n z k`: `k : Fin n`);
- the leaves of an arithmetic tree and the two sides of a relation are
  elaborated at one type, as `binop%` and `binrel%` do: a variable added to
  or compared with a real is real, one added to an `ℕ` is an `ℕ`;
- `(e : T)` gives `e` the type `T`.

A binder with two different types from two uses (`W j` with `W : Vec m` and
`v j` with `v : Vec n`) or with none (`∀ a b, a + b = b + a`, where Lean itself
needs a default or fails) stays untyped, and `reasons` says why; the derived
checker is then `unsupported` with that reason. Nothing here evaluates a
term: the inference is over the tree and the declared types alone.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from checkers.language.types import const_name
from checkers.language.unify import (
    Base,
    Fin,
    Fun,
    Meta,
    Prod,
    ground,
    join,
    resolve,
    signature,
    strip,
    to_type,
    unify,
)
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

_ARITH = frozenset({"+", "-", "*", "/", "%"})
_RELATIONS = frozenset({"=", "≠", "≤", "<", "≥", ">"})
_LOGIC = frozenset({"∧", "∨", "→", "↔"})
_PASSES = 2  # a later use can settle what an earlier one needs: walk twice


class Inference:
    """One statement's untyped binders and the unification of their uses."""

    def __init__(self, sem: Any) -> None:
        self.sem = sem
        self.metas: dict[tuple[int, int], Meta] = {}  # (id(binder), name index) -> meta

    # --- binders -------------------------------------------------------------

    def bind(self, binders: tuple[S.Binder, ...], scope: dict[str, Any]) -> dict[str, Any]:
        scope = dict(scope)
        for b in binders:
            if b.kind == "inst" or b.pattern is not None:
                for n in b.names:
                    scope[n] = None
                continue
            for k, n in enumerate(b.names):
                if b.type is not None:
                    scope[n] = to_type(b.type, {}) if n != "_" else None
                else:
                    scope[n] = self.metas.setdefault((id(b), k), Meta(owner=n))
        return scope

    # --- unification ------------------------------------------------------------

    @staticmethod
    def unify(a: Any, b: Any) -> bool:
        return unify(a, b)

    def use(self, m: Meta, ty: Any) -> None:
        """A binder used at `ty`; two different types make it ambiguous."""
        before = ground(m)
        if not self.unify(m, ty):
            m.conflict = m.conflict or (
                f"it is used both as {print_term(before) if before is not None else '?'} and "
                f"as {print_term(g) if (g := ground(ty)) is not None else 'another type'}"
            )

    # --- walking ----------------------------------------------------------------

    def check(self, t: S.Term, expected: Any, scope: dict[str, Any]) -> None:
        t = strip(t)
        expected = resolve(expected)
        if isinstance(t, S.Var | S.Ident) and isinstance(scope.get(t.name), Meta):
            self.use(scope[t.name], expected)
            return
        if isinstance(t, S.Num | S.Decimal):
            return
        if isinstance(t, S.Lam) and isinstance(expected, Fun):
            inner = self.bind(t.binders, scope)
            ty: Any = expected
            for b in t.binders:
                for n in b.names:
                    if isinstance(ty, Fun):
                        self.use_or_unify(inner.get(n), ty.dom)
                        ty = resolve(ty.cod)
                    else:
                        ty = None
            self.check(t.body, ty, inner) if ty is not None else self.synth(t.body, inner)
            return
        if (isinstance(t, S.BinOp) and t.op in _ARITH) or (isinstance(t, S.Prefix) and t.op == "-"):
            self.tree(t, scope, expected)
            return
        if isinstance(t, S.If):
            self.synth(t.cond, scope)
            self.check(t.then, expected, scope)
            self.check(t.els, expected, scope)
            return
        got = self.synth(t, scope)
        if got is not None and expected is not None:
            self.unify(got, expected)

    def use_or_unify(self, a: Any, b: Any) -> None:
        if isinstance(a, Meta) and a.owner:
            self.use(a, b)
        else:
            self.unify(a, b)

    def tree(self, t: S.Term, scope: dict[str, Any], expected: Any = None) -> Any:
        """An arithmetic tree (`binop%`) or both sides of a relation (`binrel%`): every
        leaf at one type, the largest of the leaves' (and the expected) types."""
        leaves: list[S.Term] = []
        _leaves(t, leaves)
        types = [(leaf, self.synth(leaf, scope)) for leaf in leaves]
        known = [resolve(ty) for _, ty in types if ty is not None]
        if expected is not None:
            known.append(expected)
        top = join([k for k in known if not isinstance(k, Meta)])
        if top is not None:
            for _, ty in types:
                if isinstance(resolve(ty), Meta):
                    self.use_or_unify(ty, top)
            if expected is not None and ground(expected) is None:
                # the tree is elaborated at the expected type: `dense W (x + δ)` solves
                # the definition's implicit dimensions from the leaves' type
                self.unify(expected, top)
        return top

    def synth(self, t: S.Term, scope: dict[str, Any]) -> Any:
        """The type of `t` where its form or declarations say it (else None), unifying
        the uses of binders inside it on the way."""
        t = strip(t)
        if isinstance(t, S.Var | S.Ident) and t.name in scope:
            return scope[t.name]
        if isinstance(t, S.Const) or (isinstance(t, S.Ident) and "." not in t.name):
            return self.apply(t, (), scope)
        if isinstance(t, S.App):
            return self.apply(t.fn, t.args, scope)
        if isinstance(t, S.BinOp):
            if t.op in _RELATIONS:
                self.tree(t, scope)
                return Base("prop")
            if t.op in _ARITH:
                return self.tree(t, scope)
            if t.op == "^":
                base = self.tree(t.lhs, scope)
                self.synth(t.rhs, scope)
                return base
            if t.op == "•":  # `c • v` is of `v`'s type (`SMul M α`)
                self.synth(t.lhs, scope)
                return self.synth(t.rhs, scope)
            self.synth(t.lhs, scope)
            self.synth(t.rhs, scope)
            return Base("prop") if t.op in _LOGIC else None
        if isinstance(t, S.Prefix):
            if t.op == "-":
                return self.tree(t, scope)
            inner = self.synth(t.arg, scope)
            return Base("prop") if t.op == "¬" else (None if t.op == "↑" else inner)
        if isinstance(t, S.Abs):
            return self.tree(t.term, scope)
        if isinstance(t, S.Typed):
            ty = to_type(t.type, {})
            self.check(t.term, ty, scope)
            return ty
        if isinstance(t, S.BigOp):
            if t.domain is not None:
                self.synth(t.domain, scope)
            inner = self.bind(t.binders, scope)
            body = self.synth(t.body, inner)
            return body if t.op in ("∑", "∏") else None
        if isinstance(t, S.Quant):
            if t.bound is None:
                self.synth(t.body, self.bind(t.binders, scope))
            return Base("prop")
        if isinstance(t, S.Lam):
            inner = self.bind(t.binders, scope)
            out = self.synth(t.body, inner)
            for b in reversed(t.binders):
                for n in reversed(b.names):
                    out = Fun(inner.get(n), out)
            return out
        if isinstance(t, S.If):
            self.synth(t.cond, {**scope, t.hyp: None} if t.hyp else scope)
            a = self.synth(t.then, scope)
            b = self.synth(t.els, scope)
            return a if ground(a) is not None else b
        if isinstance(t, S.Let):
            value = self.synth(t.value, scope) if not t.binders else None
            if t.pattern is not None:
                return None
            if t.type is not None:
                value = to_type(t.type, {})
            return self.synth(t.body, {**scope, t.name: value})
        if isinstance(t, S.VecLit):
            elems = [self.synth(x, scope) for x in t.items]
            top = join([e for e in map(resolve, elems) if e is not None])
            return Fun(Fin(S.Num(str(len(t.items)))), top)
        if isinstance(t, S.Tuple | S.Anon):
            items = [self.synth(x, scope) for x in t.items]
            return Prod(items[0], items[1]) if len(items) == 2 else None
        if isinstance(t, S.Match):
            for s in t.scrutinees:
                self.synth(s, scope)
            return None
        if isinstance(t, S.Proj):
            pair = resolve(self.synth(t.term, scope))
            if isinstance(pair, Prod) and t.field in ("1", "2", "fst", "snd"):
                return pair.fst if t.field in ("1", "fst") else pair.snd
            return None
        if isinstance(t, S.Norm):
            self.synth(t.term, scope)
            return None
        # other binding forms (`∫`, set-builders, `match` alternatives) are not
        # entered: a name they bind must not be taken for an outer binder
        return None

    def apply(self, fn: S.Term, args: tuple[S.Term, ...], scope: dict[str, Any]) -> Any:
        """The type of `fn args`, each argument checked against its parameter's type."""
        fn = strip(fn)
        if any(isinstance(a, S.NamedArg) for a in args) or (
            isinstance(fn, S.Prefix) and fn.op == "@"
        ):
            for a in args:
                self.synth(a.value if isinstance(a, S.NamedArg) else a, scope)
            return None
        rest = list(args)
        ty: Any
        name = const_name(fn) if not (isinstance(fn, S.Ident) and fn.name in scope) else None
        if isinstance(fn, S.Proj) and isinstance(strip(fn.term), S.Const):
            name = f"{const_name(strip(fn.term))}.{fn.field}"  # `finProdFinEquiv.symm`
        sig = signature(self.sem, name) if name is not None else None
        if sig is not None and sig.kinds:
            for k, a in enumerate(rest):
                kind = sig.kinds[k] if k < len(sig.kinds) else None
                self.check(a, Base(kind) if kind in ("real", "nat", "int") else None, scope)
            return None
        if sig is not None:
            subst: dict[str, Any] = {}
            for p in sig.params:
                if not p.explicit:
                    subst[p.name] = Meta()
                    continue
                if not rest:
                    return None  # partially applied: not needed by any use so far
                a = rest.pop(0)
                self.check(a, to_type(p.type, subst), scope)
                a0 = strip(a)
                free = isinstance(a0, S.Num) or (
                    isinstance(a0, S.Var | S.Ident) and not isinstance(scope.get(a0.name), Meta)
                )
                subst[p.name] = a0 if free else Meta()
            ty = to_type(sig.result, subst)
        elif name is None or isinstance(fn, S.Var):
            ty = self.synth(fn, scope)
        else:
            ty = None
        for a in rest:
            ty = resolve(ty)
            if isinstance(ty, Fun):
                self.check(a, ty.dom, scope)
                ty = ty.cod
            else:
                self.synth(a, scope)
                ty = None
        return ty


def _leaves(t: S.Term, out: list[S.Term]) -> None:
    t = strip(t)
    if isinstance(t, S.BinOp) and (t.op in _ARITH or t.op in _RELATIONS):
        _leaves(t.lhs, out)
        _leaves(t.rhs, out)
    elif isinstance(t, S.Prefix) and t.op == "-":
        _leaves(t.arg, out)
    else:
        out.append(t)


@dataclass(frozen=True)
class Settled:
    binders: tuple[S.Binder, ...]
    statement: S.Term
    reasons: dict[str, str]  # untyped binder -> why its type is not settled


def settle_types(binders: tuple[S.Binder, ...], statement: S.Term, sem: Any) -> Settled:
    """The binders and the statement with the types their uses settle written in."""
    if not _untyped(binders, statement):
        return Settled(binders, statement, {})  # a weight table's equation: nothing to do
    inf = Inference(sem)
    for _ in range(_PASSES):
        scope = inf.bind(binders, {})
        for b in binders:  # a hypothesis's proposition, a later binder's type
            if b.type is not None and b.kind != "inst":
                inf.synth(b.type, scope)
        inf.synth(statement, scope)
    reasons: dict[str, str] = {}
    for m in inf.metas.values():
        if m.conflict:
            reasons[m.owner] = f"its uses disagree: {m.conflict}"
        elif ground(m) is None:
            reasons.setdefault(m.owner, "its uses do not settle it")
    if all(m.conflict or ground(m) is None for m in inf.metas.values()):
        return Settled(binders, statement, reasons)
    rewrite = _Rewriter(inf.metas)
    return Settled(rewrite.binders(binders), rewrite.term(statement), reasons)


def _untyped(binders: tuple[S.Binder, ...], statement: S.Term) -> bool:
    """Whether a binder in the signature or the statement has no type."""

    def bare(b: S.Binder) -> bool:
        return b.type is None and b.pattern is None and b.kind != "inst"

    if any(bare(b) for b in binders):
        return True
    for u in S.subterms((statement, tuple(b.type for b in binders if b.type is not None))):
        if isinstance(u, S.BigOp | S.Quant | S.Lam) and any(bare(b) for b in u.binders):
            return True
    return False


class _Rewriter:
    def __init__(self, metas: dict[tuple[int, int], Meta]) -> None:
        self.metas = metas

    def binders(
        self, bs: tuple[S.Binder, ...], *, scalars_only: bool = False
    ) -> tuple[S.Binder, ...]:
        """`scalars_only` for a `fun`: the evaluator gives an index parameter its domain
        and the body its type from what the function is passed to, so only a number
        parameter (`fun x => x * c` with `c : ℝ`) is written."""
        out: list[S.Binder] = []
        for b in bs:
            if b.type is not None or b.pattern is not None or b.kind == "inst":
                out.append(self.term(b))
                continue
            types = [self._type(b, k) for k in range(len(b.names))]
            if scalars_only:
                types = [t if isinstance(t, S.Const) else None for t in types]
            if all(t is None for t in types):
                out.append(b)
                continue
            for n, ty in zip(b.names, types, strict=True):
                out.append(dataclasses.replace(b, names=(n,), type=ty))
        return tuple(out)

    def lam_typed(self, t: S.Lam) -> S.Lam:
        """A `fun` with every settled binder type written, index types included."""
        return dataclasses.replace(t, binders=self.binders(t.binders), body=self.term(t.body))

    def _type(self, b: S.Binder, k: int) -> S.Term | None:
        m = self.metas.get((id(b), k))
        return None if m is None or m.conflict else ground(m)

    def term(self, t: Any) -> Any:
        if isinstance(t, S.App) and any(isinstance(a, S.Lam) for a in t.args) and _filters(t):
            # `s.filter (fun k => …)` over `Finset.univ`: nothing else gives k's domain
            args = tuple(
                self.lam_typed(a) if isinstance(a, S.Lam) else self.term(a) for a in t.args
            )
            return dataclasses.replace(t, fn=self.term(t.fn), args=args)
        if isinstance(t, S.BigOp | S.Quant | S.Lam):
            bs = self.binders(t.binders, scalars_only=isinstance(t, S.Lam))
            t = dataclasses.replace(t, binders=bs)
        if isinstance(t, S.Term):
            changes = {}
            for f in S.node_fields(type(t)):
                if f == "binders" and isinstance(t, S.BigOp | S.Quant | S.Lam):
                    continue
                old = getattr(t, f)
                new = self.term(old)
                if new is not old:
                    changes[f] = new
            return dataclasses.replace(t, **changes) if changes else t
        if isinstance(t, tuple):
            items = tuple(self.term(x) for x in t)
            return items if any(a is not b for a, b in zip(items, t, strict=True)) else t
        return t


def _filters(t: S.App) -> bool:
    """`Finset.filter p s` or `s.filter p`."""
    fn = t.fn
    return const_name(fn) == "Finset.filter" or (isinstance(fn, S.Proj) and fn.field == "filter")
