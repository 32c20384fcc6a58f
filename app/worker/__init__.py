"""Check workers on Celery with a Redis broker; results go to the SQL database.

With no broker configured nothing here is used: the server's in-process runner executes
the same task code (`app.services.runs.execution`).
"""

from app.worker.app import create_celery, default_queues, gpu_ids, run_worker
from app.worker.dispatch import CeleryDispatcher

__all__ = ["CeleryDispatcher", "create_celery", "default_queues", "gpu_ids", "run_worker"]
