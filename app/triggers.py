"""What the database keeps itself, by triggers: each declaration's newest result, and
(on PostgreSQL) a count of the statements that wrote to this database.

## Each declaration's newest result

`declarations.latest_result_id`, `latest_status` and `latest_checker` name the
declaration's result with the largest id, its status and its checker, so that "theorems
by newest status" (the list filters, the module summaries, the overview's counts) is a
read of one indexed table instead of a GROUP BY over every result. Triggers on `results`
keep them: an insert moves them forward (never back: of two concurrent inserts the
larger id wins, whatever the order of their commits), an update of the newest result's
status or checker follows it, and a deleted newest result hands over to the next newest.
Every way of writing a result (the ORM, a bulk `INSERT`, an upsert, a cascade) goes
through them.

The column has no foreign key: results already refer to declarations, and a cycle of
foreign keys would need deferred constraints on both backends for nothing the triggers do
not already ensure. SQLite drops a table's triggers when a migration rebuilds it
(`batch_alter_table` on `results`): such a migration must create them again.

## The write count (PostgreSQL)

Every statement that writes to one of the application's tables adds one to a row of
`data_generation`, in the writing transaction. The row is the writing backend's own
(`slot = pg_backend_pid()`): no two live backends share one, so no writer ever waits for
another's row, and no lock order between them can deadlock. The sum of the rows, as a
reader sees it, changes exactly when a write commits to this database and at no other
time: `app.generation` keys the page cache with it. (SQLite needs no triggers for this: its
`data_version` counts the commits of other connections to the file.)

`install(metadata)` attaches all of these to `create_all`; migrations 0005 and 0006 create
the same ones (their copies of this text are frozen, as migrations are).
"""

from __future__ import annotations

from sqlalchemy import DDL, MetaData, event
from sqlalchemy.engine import Connection

__all__ = ["NEWEST", "generation_triggers", "install"]

_SQLITE = [
    """CREATE TRIGGER results_newest_insert AFTER INSERT ON results BEGIN
  UPDATE declarations SET latest_result_id = NEW.id, latest_status = NEW.status,
         latest_checker = NEW.checker
   WHERE id = NEW.declaration_id
     AND (latest_result_id IS NULL OR latest_result_id <= NEW.id);
END""",
    """CREATE TRIGGER results_newest_update AFTER UPDATE OF status, checker ON results BEGIN
  UPDATE declarations SET latest_status = NEW.status, latest_checker = NEW.checker
   WHERE id = NEW.declaration_id AND latest_result_id = NEW.id;
END""",
    """CREATE TRIGGER results_newest_delete AFTER DELETE ON results BEGIN
  UPDATE declarations
     SET latest_result_id = (SELECT max(id) FROM results
                              WHERE declaration_id = OLD.declaration_id),
         latest_status = (SELECT status FROM results WHERE id =
                           (SELECT max(id) FROM results
                             WHERE declaration_id = OLD.declaration_id)),
         latest_checker = (SELECT checker FROM results WHERE id =
                            (SELECT max(id) FROM results
                              WHERE declaration_id = OLD.declaration_id))
   WHERE id = OLD.declaration_id AND latest_result_id = OLD.id;
END""",
]

_POSTGRESQL = [
    """CREATE OR REPLACE FUNCTION results_newest() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE declarations SET latest_result_id = NEW.id, latest_status = NEW.status,
         latest_checker = NEW.checker
     WHERE id = NEW.declaration_id
       AND (latest_result_id IS NULL OR latest_result_id <= NEW.id);
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE declarations SET latest_status = NEW.status, latest_checker = NEW.checker
     WHERE id = NEW.declaration_id AND latest_result_id = NEW.id
       AND (latest_status IS DISTINCT FROM NEW.status
            OR latest_checker IS DISTINCT FROM NEW.checker);
  ELSE
    UPDATE declarations AS d
       SET latest_result_id = n.id, latest_status = n.status, latest_checker = n.checker
      FROM (SELECT OLD.declaration_id AS declaration_id) AS o
      LEFT JOIN LATERAL (SELECT r.id, r.status, r.checker FROM results AS r
                          WHERE r.declaration_id = o.declaration_id
                          ORDER BY r.id DESC LIMIT 1) AS n ON true
     WHERE d.id = o.declaration_id AND d.latest_result_id = OLD.id;
  END IF;
  RETURN NULL;
END
$$""",
    """CREATE TRIGGER results_newest AFTER INSERT OR DELETE OR UPDATE OF status, checker ON results
FOR EACH ROW EXECUTE FUNCTION results_newest()""",
]

NEWEST = {"sqlite": _SQLITE, "postgresql": _POSTGRESQL}

_GENERATION_FUNCTION = """CREATE OR REPLACE FUNCTION data_generation_bump() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO data_generation AS g (slot, n)
       VALUES (pg_backend_pid(), 1)
  ON CONFLICT (slot) DO UPDATE SET n = g.n + 1;
  RETURN NULL;
END
$$"""


def generation_triggers(tables: list[str]) -> list[str]:
    """The PostgreSQL statements that make every write to `tables` count."""
    out = [_GENERATION_FUNCTION]
    for table in tables:
        out.append(f"DROP TRIGGER IF EXISTS {table}_generation ON {table}")
        out.append(
            f"CREATE TRIGGER {table}_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE "
            f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION data_generation_bump()"
        )
    return out


def install(metadata: MetaData) -> None:
    """Create the triggers whenever `create_all` creates the tables of `metadata`."""
    results = metadata.tables["results"]
    for dialect, statements in NEWEST.items():
        for statement in statements:
            event.listen(results, "after_create", DDL(statement).execute_if(dialect=dialect))

    def counted(target: MetaData, connection: Connection, **kw: object) -> None:
        if connection.dialect.name != "postgresql":
            return
        tables = [t.name for t in target.sorted_tables if t.name != "data_generation"]
        for statement in generation_triggers(tables):
            connection.exec_driver_sql(statement)

    event.listen(metadata, "after_create", counted)
