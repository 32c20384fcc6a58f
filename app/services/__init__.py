"""Services: ingestion and check runs over the database (imported by module, not here,
so that loading one does not load the others)."""

__all__: list[str] = []
