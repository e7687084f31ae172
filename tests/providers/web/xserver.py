"""A private X server (Xvfb) for the visible-browser tests.

Xvfb picks a free display itself (``-displayfd``): no fixed ``:99`` that another process may hold.
It reports the number in TWO writes (the digits, then a newline) and dies with "Cannot write display
number to fd" when the reader has already closed the pipe in between; reading the digits only and
closing at once therefore killed the server under load, and the visible Chromium then exited at start
with "Missing X server or $DISPLAY" (tests/providers/web/test_xserver.py). So read up to the newline.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.providers.web.conftest import wait_for


def read_display_number(fd: int) -> str:
    """The display number Xvfb writes to ``-displayfd``: read up to its newline (or EOF), then close."""
    data = b""
    try:
        while b"\n" not in data:
            chunk = os.read(fd, 64)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    number = data.decode().strip()
    if not number.isdigit():
        raise RuntimeError(f"Xvfb reported no display number (got {data!r})")
    return number


@contextmanager
def xvfb(log_path: Path | None = None, screen: str = "1280x800x24") -> Iterator[str]:
    """Start a private Xvfb, wait until it accepts connections, yield its DISPLAY (":N"), stop it."""
    read, write = os.pipe()
    log = open(log_path, "wb") if log_path is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", screen, "-nolisten", "tcp"],
                                pass_fds=(write,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    finally:
        os.close(write)
        if log is not subprocess.DEVNULL:
            log.close()  # type: ignore[union-attr]
    try:
        number = read_display_number(read)
        sock = Path(f"/tmp/.X11-unix/X{number}")
        # -displayfd is written once the server listens; the socket check is a cheap second witness
        wait_for(lambda: sock.exists() or proc.poll() is not None, 10, "the Xvfb socket")
        assert proc.poll() is None, f"Xvfb exited with code {proc.returncode}"
        yield f":{number}"
        assert proc.poll() is None, f"Xvfb :{number} died during the test (code {proc.returncode})"
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(10)
