"""The API server: uvicorn on the scheduler's own event loop (the console's qasync loop, the CLI's
``asyncio.run``), with uvicorn's signal handling and logging setup off: the face that embeds it
owns both. One :class:`RemoteServer` per scheduler; ``async with`` or ``start()`` / ``stop()``.

Binding: loopback by default; any other address only with TLS (``tls_cert`` + ``tls_key``) or an
explicit ``allow_remote``. The socket is bound before uvicorn starts, so a port that is taken is a
clear error at start and ``port = 0`` yields the port actually bound (:attr:`RemoteServer.url`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import time
from collections.abc import Iterator, MutableMapping

import uvicorn

from mediadesk.config.remote import RemoteConfig
from mediadesk.platform.sockets import allow_port_reuse
from mediadesk.remote.api import create_app
from mediadesk.remote.auth import FailureLimiter, RemoteSetupError, TokenGuard, read_token
from mediadesk.remote.context import RemoteContext
from mediadesk.remote.delivery import Outbox
from mediadesk.remote.metrics import RunTimes, Snapshot
from mediadesk.remote.outbound import EventRouter
from mediadesk.remote.stream import EventStreams
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import Notice

log = logging.getLogger(__name__)


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its signal handlers: Ctrl-C belongs to the console or the CLI."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve anywhere


def check_binding(host: str, *, tls: bool, allow_remote: bool) -> None:
    if is_loopback(host) or tls or allow_remote:
        return
    raise RemoteSetupError(
        f"refusing to listen on {host}: beyond this machine the token would travel in clear. Give [remote] tls_cert "
        "and tls_key, or pass --allow-remote (allow_remote = true) on a network you trust, or use 127.0.0.1")


class RemoteServer:
    def __init__(self, scheduler: Scheduler, cfg: RemoteConfig | None = None, *, host: str | None = None,
                 port: int | None = None, allow_remote: bool | None = None,
                 env: MutableMapping[str, str] | None = None) -> None:
        self.scheduler = scheduler
        self.cfg = cfg if cfg is not None else scheduler.config.remote
        self.host = host if host is not None else self.cfg.host
        self.port = port if port is not None else self.cfg.port
        self.allow_remote = self.cfg.allow_remote if allow_remote is None else allow_remote
        self._env = env
        self.ctx = RemoteContext(scheduler)
        self.run_times = RunTimes()
        self.limiter = FailureLimiter(self.cfg.auth_failures, self.cfg.auth_window_s)
        self.outbox: Outbox | None = None
        self.streams = EventStreams()
        self._unsubscribe_streams: object = None
        self._router: EventRouter | None = None
        self._server: _EmbeddedServer | None = None
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe_runs: object = None
        self._sock: socket.socket | None = None

    @property
    def tls(self) -> bool:
        return self.cfg.tls_cert is not None and self.cfg.tls_key is not None

    @property
    def url(self) -> str:
        if self._sock is None:
            raise RuntimeError("remote API not started")
        host, port = self._sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        return f"{'https' if self.tls else 'http'}://{shown}:{port}"

    def _snapshot(self) -> Snapshot:
        s = self.scheduler
        return Snapshot(
            kinds={p.name: p.kind for p in s.config.profiles}, lanes=tuple(self.ctx.lanes.values()),
            capacities=s.capacity_views(), desktops=len(s.desktops()), storage_failed=s.storage_error is not None,
            auth_failures=self.limiter.total, deliveries=dict(self.outbox.counts) if self.outbox else {},
        )

    def _bind(self) -> socket.socket:
        infos = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, addr = infos[0]
        if not all(is_loopback(str(i[4][0])) for i in infos):
            check_binding(self.host, tls=self.tls, allow_remote=self.allow_remote)
        # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and
        # without it every small answer (headers and body in two writes) waits ~40 ms for a delayed ACK
        sock = socket.socket(family, kind, proto or socket.IPPROTO_TCP)
        try:
            allow_port_reuse(sock)
            sock.bind(addr)
        except OSError as exc:
            sock.close()
            raise RemoteSetupError(f"the remote API cannot listen on {self.host}:{self.port}: {exc.strerror}") from None
        sock.set_inheritable(False)
        return sock

    async def start(self) -> None:
        check_binding(self.host, tls=self.tls, allow_remote=self.allow_remote)
        token = read_token(self.cfg, self._env)
        self.outbox = Outbox(self.cfg, self._env)
        self._sock = self._bind()
        try:
            self.ctx.open()
            self._unsubscribe_runs = self.scheduler.bus.subscribe(self.run_times.on_event)
            self._unsubscribe_streams = self.scheduler.bus.subscribe(self.streams.on_bus)
            self.outbox.on_emit = self.streams.offer
            self._router = EventRouter(self.ctx, self.outbox.emit)
            self._router.start()
            self.outbox.start()
            app = TokenGuard(create_app(self.ctx, self.run_times, self._snapshot, self.streams), token, self.limiter)
            config = uvicorn.Config(
                app, lifespan="off", log_config=None, access_log=False, proxy_headers=False, server_header=False,
                ssl_certfile=self.cfg.tls_cert, ssl_keyfile=self.cfg.tls_key, timeout_graceful_shutdown=3,
            )
            self._server = _EmbeddedServer(config)
            self._task = asyncio.create_task(self._server.serve(sockets=[self._sock]), name="remote:http")
            while not self._server.started:
                if self._task.done():
                    self._task.result()  # raises what stopped it
                    raise RemoteSetupError("the remote API stopped while starting")
                await asyncio.sleep(0.01)
        except BaseException:
            await self.stop()
            raise
        log.info("remote API listening on %s", self.url)

    async def stop(self) -> None:
        self.streams.closing.set()  # open event streams end, so the server's shutdown need not wait them out
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._task
            self._task = None
        self._server = None
        if self._router is not None:
            await self._router.stop()
            self._router = None
        if self.outbox is not None:
            await self.outbox.stop()
        for unsubscribe in (self._unsubscribe_runs, self._unsubscribe_streams):
            if callable(unsubscribe):
                unsubscribe()
        self._unsubscribe_runs = self._unsubscribe_streams = None
        if self._sock is not None:
            self.ctx.close()
            self._sock.close()
            self._sock = None

    async def __aenter__(self) -> RemoteServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


async def start_for_console(scheduler: Scheduler) -> RemoteServer | None:
    """The console's setting: start the API when ``[remote] enabled``; a problem is logged and told on
    the bus (the log dock shows it), never a reason to keep the window from opening."""
    if not scheduler.config.remote.enabled:
        return None
    server = RemoteServer(scheduler)
    try:
        await server.start()
    except (RemoteSetupError, OSError) as exc:
        log.warning("remote API not started: %s", exc)
        scheduler.bus.publish(Notice(time.time(), f"remote API not started: {exc}"))
        return None
    scheduler.bus.publish(Notice(time.time(), f"remote API listening on {server.url}"))
    return server
