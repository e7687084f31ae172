"""mediadesk.platform.signals: a real SIGTERM to a child process reaches its loop's stop handler,
by ``add_signal_handler`` (POSIX) and by the Windows way (``signal.signal`` + ``call_soon_threadsafe``),
which runs here too when asked for; and the handlers before are back afterwards."""

from __future__ import annotations

import asyncio
import signal
import sys

import pytest

from mediadesk.platform.signals import LOOP_HANDLERS, STOP_SIGNALS
from tests.support import ROOT, skip_unless

#: Installs the stop handlers (the way given by argv[1]) over a handler of its own, says how SIGTERM is
#: handled, waits for a stop, then uninstalls and says which handler is back.
CHILD = """
import asyncio, signal, sys
from mediadesk.platform.signals import install_stop_handlers

def before(signum, frame):
    raise SystemExit("the handler from before ran")

async def main():
    signal.signal(signal.SIGTERM, before)
    stopped = asyncio.Event()
    got = []
    uninstall = install_stop_handlers(asyncio.get_running_loop(), lambda s: (got.append(s), stopped.set()),
                                      loop_handlers=sys.argv[1] == "loop")
    print("handled by", getattr(signal.getsignal(signal.SIGTERM), "__name__", "?"), flush=True)
    await stopped.wait()
    uninstall()
    print("stopped by", got, "then", signal.getsignal(signal.SIGTERM).__name__, flush=True)

asyncio.run(main())
"""


def test_the_stop_signals_of_this_system() -> None:
    expected = {"SIGINT", "SIGTERM", "SIGHUP"} if LOOP_HANDLERS else {"SIGINT", "SIGTERM", "SIGBREAK"}
    assert {signal.Signals(s).name for s in STOP_SIGNALS} == expected


@skip_unless(sys.platform != "win32", "sends SIGTERM, which Windows cannot deliver to a loop")
@pytest.mark.parametrize(("way", "handler"), [("loop", "_sighandler_noop"), ("windows", "forward")])
async def test_a_real_sigterm_runs_the_stop_handler(way: str, handler: str) -> None:
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CHILD, way, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert child.stdout is not None
    try:
        first = (await asyncio.wait_for(child.stdout.readline(), 60)).decode()
        assert first == f"handled by {handler}\n"  # add_signal_handler's no-op, or the Windows way's own
        child.send_signal(signal.SIGTERM)
        out, err = await asyncio.wait_for(child.communicate(), 60)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    assert (child.returncode, out.decode(), err.decode()) == (
        0, f"stopped by [{int(signal.SIGTERM)}] then before\n", "")
