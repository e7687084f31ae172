"""The lifecycle both simulators share: an aiohttp app bound to 127.0.0.1, started and stopped
explicitly (``async with``), never ``run_app`` inside library code.

The listening socket is ours (not an aiohttp site), so a simulator can stop listening and listen again
on the same port while it runs (:meth:`LocalServer.close_listener` / :meth:`LocalServer.open_listener`):
a connect to a closed port is refused by the kernel (ECONNREFUSED), which is what an endpoint that is
down looks like to a client -- unlike a reset, which a client cannot tell from a request that broke.
"""

from __future__ import annotations

import asyncio
import socket
from abc import ABC, abstractmethod
from typing import Any

from aiohttp import web

from mediadesk.platform.sockets import allow_port_reuse


class LocalServer(ABC):
    """Subclasses give their routes (:meth:`_routes`) and end their own long requests in
    :meth:`_before_stop`, so that :meth:`stop` is prompt even with hung streams in flight."""

    #: Extra ``web.AppRunner`` options of a subclass.
    runner_options: dict[str, Any] = {}
    #: A start after a stop binds the port the server had (True), or the requested one again (False:
    #: with port 0, a new free port).
    restart_on_same_port: bool = False

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self._requested_port = port
        self._port: int | None = None
        self._runner: web.AppRunner | None = None
        #: True while stopping: handlers check it to end what they are doing.
        self._stopping = False
        #: The listening socket while listening, and the asyncio server accepting on it.
        self._sock: socket.socket | None = None
        self._listener: asyncio.Server | None = None
        self._serving: asyncio.Task[None] | None = None

    @abstractmethod
    def _routes(self) -> list[web.RouteDef]:
        """The subclass's endpoints."""

    def _middlewares(self) -> list[Any]:
        """aiohttp middlewares of a subclass (e.g. a simulated outage answering every request)."""
        return []

    @abstractmethod
    def _before_stop(self) -> None:
        """Wake or end requests that would otherwise keep the server from stopping."""

    @property
    def started(self) -> bool:
        """Started and not stopped since (its port is ours; a stopped server's port may be anyone's)."""
        return self._runner is not None

    async def start(self) -> None:
        if self._runner is not None:
            raise RuntimeError(f"{type(self).__name__} already started")
        app = web.Application(middlewares=self._middlewares())
        app.add_routes(self._routes())
        self._stopping = False
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0, **self.runner_options)
        await runner.setup()
        self._runner = runner
        if not self.restart_on_same_port:
            self._port = None  # a restart binds the requested port again, as the first start did
        try:
            self.open_listener()
            assert self._serving is not None
            await self._serving
        except BaseException:
            self._runner = None
            self.close_listener()
            await runner.cleanup()
            raise

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._stopping = True
        self.close_listener()
        self._before_stop()
        await runner.cleanup()

    # ------------------------------------------------------------------ the listening socket
    @property
    def listening(self) -> bool:
        """The port accepts connections now."""
        return self._sock is not None

    def open_listener(self) -> None:
        """Listen (again) on the server's port: on return, connects are accepted by the kernel (the
        loop starts serving them a moment later). Raises OSError if the port cannot be bound (e.g.
        another process took it meanwhile). Call it from the server's event loop."""
        if self._runner is None or self._sock is not None:
            return
        port = self._port if self._port is not None else self._requested_port
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            allow_port_reuse(sock)
            sock.bind((self.host, port))
            sock.listen(128)
            sock.setblocking(False)
        except BaseException:
            sock.close()
            raise
        self._sock = sock
        self._port = int(sock.getsockname()[1])
        self._serving = asyncio.get_running_loop().create_task(self._serve(sock), name=f"{type(self).__name__}:listen")

    async def _serve(self, sock: socket.socket) -> None:
        runner = self._runner
        assert runner is not None and runner.server is not None
        listener = await asyncio.get_running_loop().create_server(runner.server, sock=sock)
        if self._sock is sock:
            self._listener = listener
        else:  # closed while starting
            listener.close()

    def close_listener(self) -> None:
        """Stop listening now: on return, a connect to the port is refused. Connections already open
        are left alone (requests under way finish); what a request arriving on one of them gets is
        the subclass's choice."""
        sock, self._sock = self._sock, None
        listener, self._listener = self._listener, None
        serving, self._serving = self._serving, None
        if sock is None:
            return
        if listener is not None:
            listener.close()  # closes the socket
        else:
            if serving is not None:
                serving.cancel()
            sock.close()

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

