"""Entry point: no command (or ``console``) opens the Qt console; anything else is the headless CLI.

This is the one module, besides ``mediadesk.ui``, that may lead to Qt (lazily), so the CLI and the
core stay importable and testable without PySide6.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] == "console" or (args[0].startswith("--") and args[0] not in ("--help", "-h")):
        from mediadesk.cli import build_parser

        parser = build_parser()
        ns = parser.parse_args(["console", *(args[1:] if args and args[0] == "console" else args)])
        from mediadesk.config.location import password_in_argv_message

        if (refused := password_in_argv_message(ns.db)) is not None:
            print(f"mediadesk: {refused}", file=sys.stderr)
            return 2
        from mediadesk.ui.app.start import run_console

        return run_console(ns.config, data_dir=ns.data_dir, demo=ns.demo, db=ns.db)
    from mediadesk.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
