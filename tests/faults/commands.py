"""``mediadesk ARGS`` for the fault suites that run ~100 short commands, each of which is refused at once.

- The headless commands (``run``, ``export``, ``cancel``, ``exceptions``, ``login``...) run in-process,
  through the same ``cli.main`` the entry point calls, with captured output (~1 s of interpreter start
  saved per call).
- ``console`` opens a window, so it never runs in the test's process: it runs in one long-lived child
  process per test module (:class:`ConsoleServer`), which calls the entry point's ``main`` once per
  command with file descriptors 1 and 2 sent to fresh files (what a process of its own would have
  printed, Qt's own messages included). PySide6 and the console are imported once instead of once per
  command (~2 s each). A command that does not end within its time is killed with the server, and the
  next one gets a new server.
- ``demo``, and any command run as another user, get a real ``python -m mediadesk`` process of their own.

``MEDIADESK_FAULTS_SUBPROCESS=1`` runs every command as a real ``python -m mediadesk`` process instead.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import select
import signal
import subprocess
import sys
import traceback
from pathlib import Path

from mediadesk import cli
from tests.support import ROOT, Result
from tests.support import mediadesk as run_mediadesk

__all__ = ["ConsoleServer", "in_process", "mediadesk"]

#: Commands that always get a real process of their own.
OWN_PROCESS = {"demo"}
#: The environment of a command in a process (the console's dialogs print to stderr instead).
PROCESS_ENV = {"QT_QPA_PLATFORM": "offscreen", "MEDIADESK_NO_DIALOGS": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def mediadesk(*args: str | Path, user: str | None = None, cwd: Path = ROOT, timeout: float = 120,
              umask: int | None = None) -> Result:
    """``mediadesk ARGS`` to its end: in-process, in the module's console server, or in a process of its
    own (see the module's docstring). ``umask``: the command's umask (restored after an in-process one)."""
    argv = [str(a) for a in args]
    own = user is not None or argv[0] in OWN_PROCESS or cwd != ROOT or os.environ.get("MEDIADESK_FAULTS_SUBPROCESS")
    if own:
        return run_mediadesk(*argv, env=PROCESS_ENV, cwd=cwd, timeout=timeout, user=user, umask=umask)
    if argv[0] == "console":
        return ConsoleServer.shared().run(argv, timeout=timeout, umask=umask)
    return in_process(argv, umask=umask)


def in_process(argv: list[str], umask: int | None = None) -> Result:
    """``mediadesk ARGV`` through ``cli.main`` with captured output; an escaping exception is reported
    as the traceback the entry point would have printed."""
    out, err = io.StringIO(), io.StringIO()
    root_handlers = logging.getLogger().handlers[:]
    old_umask = os.umask(umask) if umask is not None else None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main(argv)
        except SystemExit as exc:  # argparse
            rc = exc.code if isinstance(exc.code, int) else 2
        except BaseException:
            err.write(traceback.format_exc())
            rc = 1
        finally:
            logging.getLogger().handlers[:] = root_handlers  # cli.main's basicConfig: keep pytest's
            if old_umask is not None:
                os.umask(old_umask)
    return Result(rc, out.getvalue(), err.getvalue())


# The server: one JSON line in (argv, umask), one JSON line out (rc, stdout, stderr), on a copy of the
# original stdout (fds 1 and 2 are the command's while it runs). Exit codes as ``python -m mediadesk``.
_SERVER = r"""
import json, os, sys, tempfile, traceback
reply = os.fdopen(os.dup(1), "w", buffering=1)
from mediadesk.main import main
for line in sys.stdin:
    request = json.loads(line)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        saved = os.dup(1), os.dup(2)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        old_umask = os.umask(request["umask"]) if request["umask"] is not None else None
        try:
            rc = main(request["argv"])
        except SystemExit as exc:
            if isinstance(exc.code, int) or exc.code is None:
                rc = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                rc = 1
        except BaseException:
            traceback.print_exc()
            rc = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            if old_umask is not None:
                os.umask(old_umask)
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        out.seek(0)
        err.seek(0)
        reply.write(json.dumps({"rc": rc, "out": out.read().decode(errors="replace"),
                                "err": err.read().decode(errors="replace")}) + "\n")
"""


class ConsoleServer:
    """A child process that runs ``mediadesk`` commands (here: ``console``) one after another; see the
    module's docstring. :meth:`shared` is the one of the test module (closed by its ``console_server``
    fixture)."""

    _shared: ConsoleServer | None = None

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT), **PROCESS_ENV},
            text=True, start_new_session=True)

    @classmethod
    def shared(cls) -> ConsoleServer:
        if cls._shared is None or cls._shared.proc.poll() is not None:
            cls._shared = cls()
        return cls._shared

    @classmethod
    def close_shared(cls) -> None:
        """Kill the shared server (nothing runs in it between commands: no need to wait for Qt's teardown)."""
        if cls._shared is not None:
            cls._shared.close(kill=True)
            cls._shared = None

    def run(self, argv: list[str], *, timeout: float, umask: int | None = None) -> Result:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"argv": argv, "umask": umask}) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:  # did not end in time (a window opened?), or the server died: a new one next time
            self.close(kill=True)
            return Result(-1, "", f"mediadesk {' '.join(argv)}: no answer within {timeout:g} s, or the command "
                                  f"server died (exit {self.proc.returncode})")
        reply = json.loads(line)
        return Result(int(reply["rc"]), reply["out"], reply["err"])

    def close(self, *, kill: bool = False) -> None:
        """End the server: its input closed (it ends after the command under way), or ``kill`` (it and
        whatever it started: it leads a process group of its own)."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=0 if kill else 30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
