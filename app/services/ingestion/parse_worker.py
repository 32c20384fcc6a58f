"""A parsing worker: reads a pickled `(names, declarations)` from stdin and writes the
pickled list of `ParseOutcome`s to stdout. Started by `parsing.Parser`."""

from __future__ import annotations

import gc
import pickle
import sys


def main() -> int:
    # A short-lived process building acyclic trees: the cyclic collector only costs time.
    gc.disable()
    from app.services.ingestion.parsing import analyse
    from theorem_index.lean import KnownNames

    names, decls = pickle.loads(sys.stdin.buffer.read())
    known = KnownNames(names)
    outcomes = [analyse(d, known) for d in decls]
    sys.stdout.buffer.write(pickle.dumps(outcomes, protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
