"""Services over the database, one package per idea, each a facade that imports its
modules on first use (lazy.py), so that loading one part loads none of the others:

- `ingestion`: documents read from folders or uploads into sources, declarations and
  their revisions
- `runs`: check runs, from the selection they cover to their recorded results, executed
  in this process, in worker processes or by Celery workers
- `reading`: the reads and the I/O schemas the CLI and the HTTP API answer with
- `coverage`: which theorems get a checker, and which checker a theorem gets
- `ci`: what continuous integration sends (GitHub deliveries) and reads (JUnit XML)
"""

__all__: list[str] = []
