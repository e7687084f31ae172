"""One console per data directory: a second start hands over to the first and exits.

The first instance listens on a local socket named from the data directory and OS user; a second
connects, sends ``activate`` and quits (friendlier than the database lock's refusal, which stays the
hard guard). A SIGKILLed instance leaves its socket name behind, so a failed ``listen()`` removes it
and retries, but only after a probe connection fails: never remove a live instance's name.
"""

from __future__ import annotations

import getpass
import hashlib
import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtNetwork import QAbstractSocket, QLocalServer, QLocalSocket
from PySide6.QtWidgets import QWidget

log = logging.getLogger(__name__)

__all__ = ["ACTIVATE", "SingleInstance", "SingleInstanceError", "bring_to_front", "instance_key"]

ACTIVATE = b"activate"


class SingleInstanceError(RuntimeError):
    """The local server could not be started (another live instance owns the name, or the OS
    refused the socket)."""


def _user_name() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name in some containers/services
        return "unknown-user"


def instance_key(data_dir: Path) -> str:
    """``mediadesk-`` + 16 hex chars of sha256(resolved data dir, user name).

    Short and made of safe characters, because it becomes a socket file name on Unix (length
    limits) and a pipe name on Windows; per user, because two users may share a machine."""
    raw = f"{Path(data_dir).expanduser().resolve()}\0{_user_name()}"
    return "mediadesk-" + hashlib.sha256(raw.encode("utf-8", errors="surrogatepass")).hexdigest()[:16]


class SingleInstance(QObject):
    """Owner or client of the per-data-dir local server (see the module docstring)."""

    def __init__(self, key: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self._server: QLocalServer | None = None
        self._on_activate: Callable[[], None] | None = None
        self._buffers: dict[QLocalSocket, bytes] = {}

    @property
    def server_name(self) -> str:
        return self.key

    @property
    def listening(self) -> bool:
        return self._server is not None and self._server.isListening()

    # ------------------------------------------------------------------ client side
    def activate_existing(self, timeout_ms: int = 500) -> bool:
        """Ask a running instance to come to the front. True when the message was handed to a
        listening instance's socket, False when none is listening (we are the first)."""
        sock = QLocalSocket()
        try:
            sock.connectToServer(self.key)
            if not sock.waitForConnected(timeout_ms):
                return False
            sock.write(ACTIVATE)
            sock.flush()
            delivered = sock.bytesToWrite() == 0 or sock.waitForBytesWritten(timeout_ms)
            sock.disconnectFromServer()
            if sock.state() != QLocalSocket.LocalSocketState.UnconnectedState:
                sock.waitForDisconnected(timeout_ms)
            return bool(delivered)
        finally:
            sock.abort()
            sock.deleteLater()

    # ------------------------------------------------------------------ server side
    def listen(self, on_activate: Callable[[], None]) -> None:
        """Become the instance: listen and call ``on_activate`` for each ``activate`` message.

        Raises SingleInstanceError when another live instance is listening or the OS refuses."""
        if self._server is not None:
            raise SingleInstanceError("already listening")
        self._on_activate = on_activate
        server = QLocalServer(self)
        # No socket options on purpose: with any option set, Qt creates the socket elsewhere and
        # renames it over the name, silently stealing it from a live instance. Plain listen() is
        # an atomic bind: exactly one of two racing starts wins. The name is per user (the key
        # hashes the user name) and the socket file follows the umask.
        if not server.listen(self.key):
            if server.serverError() != QAbstractSocket.SocketError.AddressInUseError:
                msg = server.errorString()
                server.deleteLater()
                raise SingleInstanceError(f"cannot listen on {self.key!r}: {msg}")
            if self._probe_live():
                server.deleteLater()
                raise SingleInstanceError(f"another instance is listening on {self.key!r}")
            log.info("removing stale single-instance socket %s (previous instance died)", self.key)
            QLocalServer.removeServer(self.key)
            if not server.listen(self.key):
                msg = server.errorString()
                server.deleteLater()
                raise SingleInstanceError(f"cannot listen on {self.key!r} after removing a stale one: {msg}")
        server.newConnection.connect(self._on_new_connection)
        self._server = server

    def _probe_live(self) -> bool:
        """Connect without sending anything: a live instance accepts, a stale socket file refuses."""
        sock = QLocalSocket()
        try:
            sock.connectToServer(self.key)
            return bool(sock.waitForConnected(200))
        finally:
            sock.abort()
            sock.deleteLater()

    def _on_new_connection(self) -> None:
        server = self._server
        if server is None:
            return
        while server.hasPendingConnections():
            sock = server.nextPendingConnection()
            if sock is None:
                break
            self._buffers[sock] = b""
            sock.readyRead.connect(lambda s=sock: self._read(s))
            sock.disconnected.connect(lambda s=sock: self._closed(s))
            if sock.bytesAvailable():
                self._read(sock)
            if sock.state() == QLocalSocket.LocalSocketState.UnconnectedState:
                self._closed(sock)

    def _read(self, sock: QLocalSocket) -> None:
        if sock not in self._buffers:
            return
        data = self._buffers[sock] + bytes(sock.readAll().data())
        # A client sends one short message; cap the buffer so a stray writer cannot grow it.
        self._buffers[sock] = data[-64:]
        if ACTIVATE in data:
            self._buffers[sock] = b""
            if self._on_activate is not None:
                try:
                    self._on_activate()
                except Exception:
                    log.exception("single-instance activate callback failed")

    def _closed(self, sock: QLocalSocket) -> None:
        if sock in self._buffers:
            if sock.bytesAvailable():
                self._read(sock)
            self._buffers.pop(sock, None)
            sock.deleteLater()

    def close(self) -> None:
        """Stop listening (the name becomes free for the next instance)."""
        for sock in list(self._buffers):
            sock.abort()
            sock.deleteLater()
        self._buffers.clear()
        if self._server is not None:
            self._server.close()
            self._server.deleteLater()
            self._server = None


def bring_to_front(window: QWidget) -> None:
    """Show, un-minimise (keeping a maximised window maximised), raise and focus ``window``."""
    state = window.windowState()
    if state & Qt.WindowState.WindowMinimized:
        window.setWindowState((state & ~Qt.WindowState.WindowMinimized) | Qt.WindowState.WindowActive)
    window.show()
    window.raise_()
    window.activateWindow()
