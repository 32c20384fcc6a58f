"""`python -m app` is the `proofbridge` command."""

import sys

from app.cli import main

if __name__ == "__main__":  # not when a check worker process (spawn) imports this module
    sys.exit(main())
