"""The private Xvfb of the visible-browser tests (xserver.py)."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import threading
from pathlib import Path

from tests.providers.web.conftest import wait_for
from tests.providers.web.xserver import read_display_number, xvfb
from tests.support import require


def _unread(fd: int) -> int:
    import fcntl  # POSIX only (Xvfb is an X11 server): imported here, so the module collects on Windows too
    import termios

    return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])


def test_display_number_is_read_up_to_the_newline_xvfb_writes_after_it() -> None:
    """Xvfb writes the digits, then "\\n" in a second write, and dies when that write fails (EPIPE).
    The old fixture read once and closed the pipe in between: under load Xvfb died, and the visible
    Chromium exited at start with "Missing X server or $DISPLAY"."""
    read, write = os.pipe()
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(read_display_number(read)))
    try:
        os.write(write, b"42")  # Xvfb's first write
        reader.start()
        wait_for(lambda: _unread(write) == 0 or not reader.is_alive(), 10, "the reader to take the digits")
        assert os.write(write, b"\n") == 1  # the second write must find the pipe still open
    finally:
        os.close(write)
        reader.join(10)
    assert got == ["42"]


def test_private_xvfb_serves_clients_and_stops(tmp_path: Path) -> None:
    require(shutil.which("Xvfb") is not None, "needs Xvfb (./dev installs it)")
    with xvfb(tmp_path / "xvfb.log") as display:
        assert display.startswith(":")
        sock = Path(f"/tmp/.X11-unix/X{display[1:]}")
        assert sock.exists()
        if shutil.which("xdpyinfo"):
            probe = subprocess.run(["xdpyinfo", "-display", display], capture_output=True, timeout=30, check=False)
            assert probe.returncode == 0, probe.stderr
    wait_for(lambda: not sock.exists(), 10, "Xvfb to remove its socket")
