"""`python -m app` is the `proofbridge` command."""

import sys

from app.cli import main

sys.exit(main())
