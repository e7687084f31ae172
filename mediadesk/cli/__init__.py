"""The headless face: ``mediadesk run | export | cancel | sim | demo | exceptions | init | login``.

Same store, same scheduler as the console. The command line is in :mod:`~mediadesk.cli.parser`, ``run`` and
``demo`` in :mod:`~mediadesk.cli.run`, the other commands in :mod:`~mediadesk.cli.commands`. User errors (bad
config, bad batch rows, a database in use) print a clear message and exit non-zero, never a traceback; exit
codes are in :mod:`~mediadesk.cli.errors`.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Sequence

from mediadesk.cli import adapter_cmd, report_cmd, serve_cmd
from mediadesk.cli.commands import cmd_cancel, cmd_exceptions, cmd_export, cmd_init, cmd_login, run_sim
from mediadesk.cli.errors import EXIT_INTERRUPTED, EXIT_USAGE, USER_ERRORS, UserError
from mediadesk.cli.parser import build_parser
from mediadesk.cli.run import cmd_run, run_batch, run_demo
from mediadesk.cli.workspace import current_db
from mediadesk.config.location import password_in_argv_message
from mediadesk.core.text import printable
from mediadesk.store.open_errors import storage_error

__all__ = ["USER_ERRORS", "UserError", "build_parser", "main", "run_batch", "run_demo"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if (refused := password_in_argv_message(getattr(args, "db", None))) is not None:
        print(f"mediadesk: {refused}", file=sys.stderr)
        return EXIT_USAGE
    ours = not logging.getLogger().handlers  # basicConfig adds our stderr handler only then
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if ours:
        for handler in logging.getLogger().handlers:
            handler.setFormatter(_PrintableFormatter(handler.formatter))
    try:
        if args.command == "run":
            return asyncio.run(cmd_run(args))
        if args.command == "export":
            return cmd_export(args)
        if args.command == "cancel":
            return cmd_cancel(args)
        if args.command == "sim":
            return run_sim(args)
        if args.command == "demo":
            return asyncio.run(run_demo(args.data_dir))
        if args.command == "exceptions":
            return cmd_exceptions(args)
        if args.command == "login":
            return asyncio.run(cmd_login(args))
        if args.command == "init":
            return cmd_init(args)
        if args.command == "adapter":
            return adapter_cmd.run(args)
        if args.command == "serve":
            return serve_cmd.main(args)
        if args.command == "report":
            return report_cmd.main(args)
        parser.print_help()
        return EXIT_USAGE
    except USER_ERRORS as exc:
        print(f"mediadesk: {printable(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        # a storage fault wherever it surfaced (disk full at submit, read-only disk, permission denied, a
        # database server gone...); anything else is a bug and keeps its traceback
        err = storage_error(exc, current_db())
        if err is None:
            raise
        print(f"mediadesk: {printable(err)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # a signal before the run's own handlers (see mediadesk.main)
        return int(getattr(exc, "exit_code", EXIT_INTERRUPTED))


class _PrintableFormatter(logging.Formatter):
    """Log lines to the terminal quote servers and files too: their control characters escaped."""

    def __init__(self, inner: logging.Formatter | None) -> None:
        super().__init__()
        self._inner = inner or logging.Formatter()

    def format(self, record: logging.LogRecord) -> str:
        return printable(self._inner.format(record))
