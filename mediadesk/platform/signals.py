"""Stop signals and console control events, handed to an asyncio loop.

A stop is SIGINT (Ctrl+C), SIGTERM (``kill``) and SIGHUP (the terminal closed) on POSIX; on Windows
SIGINT (Ctrl+C) and SIGBREAK (Ctrl+Break, and the console window closed), plus SIGTERM when a Python
process raises it. POSIX loops take them with ``loop.add_signal_handler``; Windows' loops do not
implement it, so there the handler is a plain ``signal.signal`` one that hands the signal to the loop
with ``call_soon_threadsafe`` (Python runs it in the main thread, where the loop runs; the proactor
loop wakes up for it).
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["LOOP_HANDLERS", "STOP_SIGNALS", "install_stop_handlers"]

#: The signals that ask MediaDesk to stop, those this system has.
STOP_SIGNALS: tuple[int, ...] = tuple(
    int(getattr(signal, name)) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK") if hasattr(signal, name)
)
#: True where asyncio loops implement ``add_signal_handler`` (POSIX), False on Windows. Read at each call
#: (a test layer sets it to run Windows' way here).
LOOP_HANDLERS: bool = sys.platform != "win32"


def install_stop_handlers(
    loop: asyncio.AbstractEventLoop, on_stop: Callable[[int], None], *, loop_handlers: bool | None = None
) -> Callable[[], None]:
    """Run ``on_stop(signum)`` on ``loop`` for every stop signal from now on; call the function returned
    to stop that and put back the handlers that were there before. Call it on the loop's thread, which
    must be the main thread. ``loop_handlers`` picks ``add_signal_handler`` (True) or the Windows way,
    ``signal.signal`` plus ``call_soon_threadsafe`` (False); the default is this system's."""
    if loop_handlers is None:
        loop_handlers = LOOP_HANDLERS
    previous: dict[int, Any] = {}

    def forward(signum: int, _frame: FrameType | None) -> None:
        loop.call_soon_threadsafe(on_stop, signum)

    for sig in STOP_SIGNALS:
        previous[sig] = signal.getsignal(sig)
        if loop_handlers:
            loop.add_signal_handler(sig, on_stop, sig)
        else:
            signal.signal(sig, forward)

    def uninstall() -> None:
        for sig, before in previous.items():
            if loop_handlers:
                loop.remove_signal_handler(sig)
            # back to the process's own handler (mediadesk.main's: no traceback, no silent death)
            with contextlib.suppress(TypeError, ValueError):
                signal.signal(sig, before if before is not None else signal.SIG_DFL)
        previous.clear()

    return uninstall
