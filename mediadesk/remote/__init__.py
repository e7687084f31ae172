"""Watch and steer from elsewhere: the local HTTP API (FastAPI on uvicorn, in the scheduler's loop),
its token guard, the webhooks and command hooks, and the Prometheus metrics.

Sits above the scheduler and beside the faces: it talks to the :class:`~mediadesk.scheduler.Scheduler`
facade and the store's reader only, never to the providers, and imports no Qt. ``mediadesk serve``
runs it headless; the console starts it when ``[remote] enabled``.
"""

from mediadesk.remote.auth import RemoteSetupError
from mediadesk.remote.server import RemoteServer, check_binding, start_for_console

__all__ = ["RemoteServer", "RemoteSetupError", "check_binding", "start_for_console"]
