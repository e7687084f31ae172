"""Listening sockets: what address reuse means on each system."""

from __future__ import annotations

import socket
import sys

__all__ = ["allow_port_reuse"]


def allow_port_reuse(sock: socket.socket) -> None:
    """Let a listener bind its port again at once after a restart (``SO_REUSEADDR``, as asyncio does on
    POSIX: connections of the last run may still be in TIME_WAIT). Not on Windows, where that option
    would let two live sockets share the port."""
    if sys.platform != "win32":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
