"""Names a statement may use before anything has been ingested.

`KnownNames` holds fully qualified constant names: a built-in table of Lean
core, Mathlib and upstream-project names that the project's statements use
(namespaces checked against their sources: the upstream project declares its
definitions inside `namespace Proofs`, matrices in `Proofs.Mat`, kernels in
`Proofs.Kernel4`), plus every name added as declarations are ingested.

The names are never all of Lean's: a namespace may hold constants nobody ingested
(`Circle.exp`, defined outside the tree). Inside such a namespace a short name that
only an `open` or the root resolves is a guess, since Lean looks in the enclosing
namespaces first (`exp` in `namespace Circle` is `Circle.exp`, however `open Real`).
`models` names the namespaces whose constants the caller knows as far as they matter
(the semantics library's): only there is an absent name taken as absent.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

# Lean core and Mathlib.
_CORE = """
Nat Nat.succ Nat.pred Nat.cast Nat.floor Nat.ceil Nat.sub Nat.add Nat.mul Nat.div Nat.mod Nat.zero
Int Int.floor Int.ceil Int.toNat Int.natAbs Int.cast Rat Real Complex NNReal ENNReal ENat
Fin Fin.succ Fin.castSucc Fin.val Fin.rev Fin.last Fin.mk Fin.cast Fin.castLE Fin.natAdd
Fin.addNat Fin.pred Fin.isLt
Finset Finset.sum Finset.prod Finset.univ Finset.range Finset.card Finset.filter Finset.Iio
Finset.Icc Finset.Ico Finset.Ioc Finset.Ioo Nat.choose Nat.factorial Nat.descFactorial
Fintype Fintype.card DecidableEq Decidable
Real.sqrt Real.exp Real.log Real.tanh Real.cosh Real.sinh Real.cos Real.sin Real.pi Real.rpow
Real.logb Real.arctan
Equiv Equiv.symm Equiv.trans Equiv.refl finProdFinEquiv finSumFinEquiv
Prod Prod.fst Prod.snd Prod.mk Sigma Subtype Subtype.val
Function.comp Function.update Function.const id
Eq Ne Not And Or Iff True False Exists ite dite HEq
Bool Bool.true Bool.false Unit PUnit Option Option.some Option.none
List List.map List.length List.sum Array String Float
Set Set.univ Membership.mem
Set.Icc Set.Ico Set.Ioc Set.Ioo Set.Ici Set.Ioi Set.Iic Set.Iio
AddCommMonoid AddCommGroup AddMonoid CommRing Ring Field Module Semiring LinearOrder
Top.top Bot.bot EmptyCollection.emptyCollection
max min abs norm inner
HAdd.hAdd HSub.hSub HMul.hMul HDiv.hDiv HMod.hMod HPow.hPow Neg.neg Inv.inv HSMul.hSMul
fderiv deriv Differentiable DifferentiableAt HasFDerivAt HasDerivAt ContinuousLinearMap
Continuous ContinuousAt
Matrix Matrix.transpose Matrix.mulVec Matrix.vecMul dotProduct Pi.single
Classical.choice
"""

# The upstream Lean project behind the seed pages.
_UPSTREAM = """
Proofs.Vec Proofs.Mat Proofs.Tensor3 Proofs.Kernel4
Proofs.pdiv Proofs.pdivMat Proofs.pdiv3 Proofs.basisVec Proofs.HasVJP Proofs.HasVJPAt
Proofs.HasVJPMat Proofs.HasVJP3
Proofs.Mat.flatten Proofs.Mat.unflatten Proofs.Mat.mul Proofs.Mat.transpose
Proofs.Tensor3.flatten Proofs.Tensor3.unflatten
Proofs.Kernel4.flatten Proofs.Kernel4.unflatten
Proofs.dense Proofs.relu Proofs.softmax Proofs.crossEntropy Proofs.oneHot
Proofs.layerNormForward Proofs.geluScalar Proofs.layerNormVec
Proofs.bnMean Proofs.bnVar Proofs.bnIstd Proofs.bnXhat Proofs.bnForward
Proofs.bn_grad_gamma Proofs.bn_grad_beta
Proofs.conv2d Proofs.depthwiseConv2d Proofs.globalAvgPool Proofs.maxPool2 Proofs.maxPoolFlat
Proofs.patchEmbed_flat
"""

BUILTIN_NAMES: frozenset[str] = frozenset((_CORE + _UPSTREAM).split())

# Constants whose type's head is known, for generalised field notation on them
# (`finProdFinEquiv.symm` is `Equiv.symm finProdFinEquiv`).
BUILTIN_TYPE_HEADS: dict[str, str] = {
    "finProdFinEquiv": "Equiv",
    "finSumFinEquiv": "Equiv",
}


# Names Lean's core exports to the root (`export Bool (false true)`,
# `export Option (none some)`): written name -> the constant it denotes.
BUILTIN_ALIASES: dict[str, str] = {
    "true": "Bool.true",
    "false": "Bool.false",
    "none": "Option.none",
    "some": "Option.some",
}


class KnownNames:
    """The fully qualified names that resolution may pick from.

    Every proper prefix of a known name is a namespace, as in Lean, where
    declaring `A.B.c` makes `A` and `A.B` namespaces (`open A.B` needs one).
    """

    def __init__(
        self,
        names: Iterable[str] = (),
        *,
        builtins: bool = True,
        models: Iterable[str] | None = None,
    ) -> None:
        self._names: set[str] = set()
        self._namespaces: set[str] = set()
        # namespaces whose unknown names are absent (see the module); None: every one
        self._modelled: frozenset[str] | None = None
        if models is not None:
            self._modelled = frozenset(n[:i] for n in models for i in range(len(n)) if n[i] == ".")
        self._type_heads: dict[str, str] = dict(BUILTIN_TYPE_HEADS) if builtins else {}
        self._aliases: dict[str, str] = dict(BUILTIN_ALIASES) if builtins else {}
        self.update(BUILTIN_NAMES if builtins else ())
        self.update(names)

    def add(self, name: str, type_head: str | None = None) -> None:
        """Record an ingested declaration (and, optionally, the head of its type)."""
        self.update((name,))
        if type_head:
            self._type_heads[name] = type_head

    def update(self, names: Iterable[str]) -> None:
        spaces = self._namespaces
        for name in names:
            if name in self._names:
                continue
            self._names.add(name)
            dot = name.rfind(".")
            while dot > 0:
                prefix = name[:dot]
                if prefix in spaces:
                    break
                spaces.add(prefix)
                dot = name.rfind(".", 0, dot)

    def alias(self, name: str) -> str | None:
        """The constant an exported name denotes (`some` -> `Option.some`), or None."""
        return self._aliases.get(name)

    def models(self, namespace: str) -> bool:
        """Whether a name absent from `namespace` is absent in Lean too (see the module)."""
        return self._modelled is None or namespace in self._modelled

    def is_namespace(self, name: str) -> bool:
        """Whether some known name lies inside the namespace `name`."""
        return name in self._namespaces

    def type_head(self, name: str) -> str | None:
        return self._type_heads.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._names))

    def __len__(self) -> int:
        return len(self._names)
