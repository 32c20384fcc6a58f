"""One router per resource (imported by `app.api.main`)."""

__all__: list[str] = []
