"""The lifecycle both simulators share: an aiohttp app bound to 127.0.0.1, started and stopped
explicitly (``async with``), never ``run_app`` inside library code."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from aiohttp import web


class LocalServer(ABC):
    """Subclasses give their routes (:meth:`_routes`) and end their own long requests in
    :meth:`_before_stop`, so that :meth:`stop` is prompt even with hung streams in flight."""

    #: Extra ``web.AppRunner`` options of a subclass.
    runner_options: dict[str, Any] = {}

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self._requested_port = port
        self._port: int | None = None
        self._runner: web.AppRunner | None = None
        #: True while stopping: handlers check it to end what they are doing.
        self._stopping = False

    @abstractmethod
    def _routes(self) -> list[web.RouteDef]:
        """The subclass's endpoints."""

    @abstractmethod
    def _before_stop(self) -> None:
        """Wake or end requests that would otherwise keep the server from stopping."""

    async def start(self) -> None:
        if self._runner is not None:
            raise RuntimeError(f"{type(self).__name__} already started")
        app = web.Application()
        app.add_routes(self._routes())
        self._stopping = False
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0, **self.runner_options)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self._requested_port)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self._port = int(runner.addresses[0][1])

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._stopping = True
        self._before_stop()
        await runner.cleanup()

    async def __aenter__(self) -> Any:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return self._port
