"""Entry point: no command (or ``console``) opens the Qt console; anything else is the headless CLI.

This is the one module, besides ``mediadesk.ui``, that may lead to Qt (lazily), so the CLI and the
core stay importable and testable without PySide6.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from types import FrameType

from mediadesk.platform.console import utf8_std_streams
from mediadesk.platform.signals import STOP_SIGNALS


class Interrupted(KeyboardInterrupt):
    """A stop signal (SIGINT, SIGTERM, SIGHUP) before a command's own handling took over; the
    command ends with ``exit_code`` (130, "interrupted", whichever the signal), without a traceback."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.exit_code = 130


def _raise_interrupted(signum: int, _frame: FrameType | None) -> None:
    raise Interrupted(signum)


def install_signal_handlers() -> None:
    """SIGINT, SIGTERM and SIGHUP raise :class:`Interrupted`, so a signal at any moment of the
    headless CLI (imports, config loading) ends it with 130 and no traceback instead of a
    KeyboardInterrupt traceback or a silent death. ``mediadesk run`` replaces them by its loop's own
    while it runs (graceful stop: running attempts go back to pending)."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, _raise_interrupted)


def main(argv: Sequence[str] | None = None) -> int:
    utf8_std_streams()  # before anything is printed or logged: an emoji must never end an export
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0].startswith("--"):  # the packaged app as a browser's watchdog (hidden)
        from mediadesk.platform.reaper import FROZEN_FLAG
        from mediadesk.platform.reaper import main as reaper_main

        if args[0] == FROZEN_FLAG:
            return reaper_main(args[1:])
    console = not args or args[0] == "console" or (args[0].startswith("--") and args[0] not in ("--help", "-h"))
    if not console:  # the console keeps Qt's handling of its signals
        install_signal_handlers()
        try:
            return _cli(args)
        except Interrupted as exc:
            return exc.exit_code
    from mediadesk.cli import build_parser

    parser = build_parser()
    ns = parser.parse_args(["console", *(args[1:] if args and args[0] == "console" else args)])
    from mediadesk.config.location import password_in_argv_message

    if (refused := password_in_argv_message(ns.db)) is not None:
        print(f"mediadesk: {refused}", file=sys.stderr)
        return 2
    from mediadesk.ui.app.start import run_console

    return run_console(ns.config, data_dir=ns.data_dir, demo=ns.demo, db=ns.db)


def _cli(args: list[str]) -> int:
    from mediadesk.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
