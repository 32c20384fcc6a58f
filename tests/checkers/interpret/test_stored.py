"""Interpreted programs stored on disk (checkers/interpret/stored.py): loaded without JAX,
they compute exactly what the program they were stored from computes."""

from __future__ import annotations

import pickle
import subprocess
import sys
import zlib
from pathlib import Path

import jax
import numpy as np
import pytest
from test_interpret import CASES, _batch_of, _bits

from checkers.interpret import Interpreted, InterpretError, Steps, stored
from checkers.interpret.jaxprs import _Step

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("case", sorted(CASES))
def test_stored_program_computes_bit_for_bit_what_it_was_stored_from(case):
    # every rule's parameters (gathers' dimension numbers and modes, scatters, rounding
    # methods, dtypes) survive the plain form
    f, args = CASES[case]
    closed = jax.make_jaxpr(f)(*args)
    steps = Steps(closed)
    program = Interpreted.__new__(Interpreted)
    program.steps, program.names = steps, ()
    again = stored.loads(stored.dumps(program))[0].steps
    whole = [np.asarray(_batch_of(a, 3)) for a in args]
    with np.errstate(all="ignore"):
        assert _bits(again.run(whole, batch=3)) == _bits(steps.run(whole, batch=3))
        assert _bits(again.run([np.asarray(a) for a in args])) == _bits(
            steps.run([np.asarray(a) for a in args])
        )


def test_stored_form_holds_no_jax_object():
    f, args = CASES["gather"]
    program = Interpreted.__new__(Interpreted)
    program.steps, program.names = Steps(jax.make_jaxpr(f)(*args)), ()
    seen = []

    def walk(x):
        seen.append(type(x).__module__)
        if isinstance(x, dict):
            for k, v in x.items():
                walk(k)
                walk(v)
        elif isinstance(x, tuple | list):
            for v in x:
                walk(v)

    walk(stored.record(program))
    assert not [m for m in seen if m.split(".")[0] in ("jax", "jaxlib")]


class _Foreign:
    """A parameter of a JAX type the stored form does not know."""


_Foreign.__module__ = "jax._src.lax.unknown"


def test_parameter_of_unknown_jax_type_is_not_stored():
    program = Interpreted.__new__(Interpreted)
    steps = Steps.__new__(Steps)
    steps.steps = [_Step("neg", np.negative, {"what": _Foreign()}, (0,), (1,), False, ((),))]
    steps.fixed, steps.inputs, steps.outputs, steps.checks = {}, [0], [1], {}
    steps.drop, steps.trial_bytes, steps._count = [()], 8, 2
    program.steps, program.names = steps, ("x",)
    with pytest.raises(stored.Unstorable, match="neg: parameter what"):
        stored.dumps(program)


def test_loading_refuses_anything_but_arrays_and_plain_data():
    class Evil:
        def __reduce__(self):
            return (print, ("ran",))

    with pytest.raises(pickle.UnpicklingError, match="may not name builtins.print"):
        stored.loads(zlib.compress(pickle.dumps({"format": stored.FORMAT, "x": Evil()})))

    class NumpyExec:  # NumPy has functions that run code: only its rebuilders are admitted
        def __reduce__(self):
            from numpy.testing._private import utils

            return (utils.runstring, ("raise SystemExit('ran')", {}))

    with pytest.raises(pickle.UnpicklingError, match="may not name numpy.testing"):
        stored.loads(zlib.compress(pickle.dumps({"format": stored.FORMAT, "x": NumpyExec()})))
    with pytest.raises(InterpretError, match="another format"):
        stored.loads(zlib.compress(pickle.dumps({"format": -1})))


def test_loading_and_running_a_stored_program_imports_no_jax(tmp_path):
    f, args = CASES["gather"]
    program = Interpreted.__new__(Interpreted)
    program.steps, program.names = Steps(jax.make_jaxpr(f)(*args)), ()
    (tmp_path / "p.bin").write_bytes(stored.dumps(program))
    np.savez(tmp_path / "args.npz", *[np.asarray(a) for a in args])
    want = program.steps.run([np.asarray(a) for a in args])
    code = (
        "import sys, numpy as np\n"
        "from checkers.interpret import stored\n"
        f"p, _ = stored.loads(open({str(tmp_path / 'p.bin')!r}, 'rb').read())\n"
        f"z = np.load({str(tmp_path / 'args.npz')!r})\n"
        "args = [z[f'arr_{k}'] for k in range(len(z.files))]\n"
        f"np.save({str(tmp_path / 'out.npy')!r}, p.steps.run(args)[-1])\n"
        "print('jax' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
    assert _bits([np.load(tmp_path / "out.npy")]) == _bits([want[-1]])
