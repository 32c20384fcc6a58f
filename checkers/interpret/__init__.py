"""Running a traced checker program with NumPy, without compiling it.

On the CPU, XLA spends 70 ms compiling even a trivial program and 100-250 ms on a
typical statement's, while running it takes well under a millisecond: over a corpus
of thousands of statements, each checked at four dims draws, compilation is most of
the time. A small float64 program is therefore traced to a jaxpr by JAX, as always
(vmapped over the batch of trials), and its equations are evaluated here, one NumPy
call each, on the whole batch at once.

Only the primitives in `RULES` are evaluated; a program using any other one (or a
jaxpr this package cannot read) is compiled by XLA as before (`interpretable` says
why not). Each rule follows XLA's semantics, not NumPy's where they differ: integer
division and remainder truncate toward zero (and `x / 0` is -1, `x % 0` is x for
integers, as XLA gives), float-to-integer conversion truncates and saturates (NaN
becomes 0), gather clamps its start indices unless its mode fills, scatter drops
windows that fall outside the operand, and reductions over no elements give the
operation's identity. One difference is left: XLA's CPU code flushes subnormal numbers
(below 2.2e-308 in float64) to zero, NumPy keeps them, so the two can differ there and
nowhere else; a comparison at that magnitude is undecided either way (tolerance.py
counts underflow). Every value is checked against the shape and dtype the jaxpr
declares, so a rule that goes wrong raises `InterpretError` instead of returning
a wrong number; tests/checkers/interpret/test_interpret.py compares every rule, and the
programs of the example pages, with XLA's compiled results.
"""

from checkers.interpret.jaxprs import Interpreted, Steps, evaluate, interpretable, largest_value
from checkers.interpret.rules import RULES, InterpretError

__all__ = [
    "RULES",
    "InterpretError",
    "Interpreted",
    "Steps",
    "evaluate",
    "interpretable",
    "largest_value",
]
