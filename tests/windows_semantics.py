"""A "Windows semantics" layer: this Linux process behaves as Windows does where it matters to MediaDesk.

What it does (:func:`apply`), each through the platform layer's own switch or by taking away what Windows
lacks, so that a product path that still takes the POSIX way fails instead of passing:

- the platform layer's Windows choices: ``files.MODE_BITS`` (modes and owners not checked, ``fchmod`` by
  path), ``signals.LOOP_HANDLERS`` (stop signals through ``signal.signal``), ``signals.STOP_SIGNALS`` (no
  SIGHUP), ``processes.PROCESS_GROUPS`` (no process groups), ``browsers.PARENT_DEATH_SIGNAL`` (nothing
  ends a browser with us but :mod:`mediadesk.platform.reaper`: here its watchdog, as on macOS);
- the modes Windows reports: every ``os.stat`` / ``os.lstat`` / ``os.fstat`` of a path under ``roots``
  says 0o777 for a folder, 0o666 for a file (0o444 read-only) and owner 0, whatever the real bits;
- the POSIX-only calls absent: ``os.getpgid``, ``os.killpg``, ``os.setsid``, ``os.getsid``, ``os.setpgid``,
  ``signal.SIGHUP``; ``loop.add_signal_handler`` raises NotImplementedError (as Windows' loops do). Two
  calls are violations only from MediaDesk's own code, since libraries keep their POSIX backend here (they
  pick their Windows one on Windows: filelock's Unix lock calls ``os.fchmod``, psutil probes with
  ``os.kill(pid, 0)``): ``os.fchmod`` and ``os.kill(pid, 0)`` (which on Windows terminates the process).
  A violation raises and is recorded, and :func:`windows_semantics` fails the test for it;
- command lines as Windows reports them: psutil's ``cmdline()`` is the argv Windows would give back
  (the list quoted by ``subprocess.list2cmdline``, split again by the rules of ``CommandLineToArgvW``,
  which psutil uses there), so the match of a leftover browser by its ``--user-data-dir`` is tested on it.

Not simulated: a case-insensitive file system (the config refuses names that differ only by case, on
every system: ``mediadesk.config.names.case_twin``), and Windows' own process model (the Job Object of
:mod:`mediadesk.platform.reaper` needs a real Windows).

Use the pytest fixture ``windows_semantics`` (roots: the test's ``tmp_path``), the context manager
:func:`applied`, or for a child process ``python -m tests.windows_semantics <module> <args...>`` (roots from
``WINDOWS_SEMANTICS_ROOTS``, ``os.pathsep``-separated; default the temp folder), which applies the layer
and runs ``<module>`` as ``__main__``; a violation there is printed (:data:`VIOLATION`) and exits with 70.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import runpy
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

#: The POSIX-only functions of ``os`` that Windows' Python lacks (and that MediaDesk must not need).
POSIX_ONLY = ("getpgid", "killpg", "setsid", "getsid", "setpgid")
ROOTS_ENV = "WINDOWS_SEMANTICS_ROOTS"
#: How a child process run under the layer reports a violation on stderr.
VIOLATION = "windows semantics violated:"


@dataclass
class Layer:
    """What the layer applies to (``roots``) and what it caught (``violations``)."""

    roots: tuple[str, ...]
    violations: list[str] = field(default_factory=list)

    def covers(self, path: str) -> bool:
        return any(path == root or path.startswith(root + os.sep) for root in self.roots)


def windows_mode(st: os.stat_result) -> os.stat_result:
    """``st`` as Windows reports it: 0o777 for a folder, 0o666 for a file (0o444 when read-only), owner 0."""
    kind = stat.S_IFMT(st.st_mode)
    bits = 0o777 if stat.S_ISDIR(st.st_mode) else 0o666 if st.st_mode & stat.S_IWUSR else 0o444
    fields = list(st)
    fields[0], fields[4], fields[5] = kind | bits, 0, 0
    extra = [getattr(st, name) for name in ("st_atime", "st_mtime", "st_ctime", "st_atime_ns", "st_mtime_ns",
                                             "st_ctime_ns", "st_blksize", "st_blocks", "st_rdev")]
    return os.stat_result((*fields, *extra))


def windows_argv(line: str) -> list[str]:
    """``line`` split as Windows' ``CommandLineToArgvW`` splits a command line: the program name up to the
    next quote (quoted) or blank; then 2n backslashes before a quote are n and the quote opens or closes,
    2n+1 are n and a literal quote, backslashes elsewhere are literal, ``""`` inside quotes is a quote."""
    n = len(line)
    if not line:
        return []
    if line[0] == '"':
        end = line.find('"', 1)
        end = n if end < 0 else end
        args, i = [line[1:end]], end + 1
    else:
        end = 0
        while end < n and line[end] not in " \t":
            end += 1
        args, i = [line[:end]], end
    while True:
        while i < n and line[i] in " \t":
            i += 1
        if i >= n:
            return args
        out: list[str] = []
        quoted = False
        while i < n and (quoted or line[i] not in " \t"):
            c = line[i]
            if c == "\\":
                k = i
                while k < n and line[k] == "\\":
                    k += 1
                if k < n and line[k] == '"':
                    out.append("\\" * ((k - i) // 2))
                    if (k - i) % 2:
                        out.append('"')
                        k += 1
                else:
                    out.append("\\" * (k - i))
                i = k
            elif c == '"':
                if quoted and i + 1 < n and line[i + 1] == '"':
                    out.append('"')
                    i += 2
                else:
                    quoted = not quoted
                    i += 1
            else:
                out.append(c)
                i += 1
        args.append("".join(out))


def _from_mediadesk(depth: int = 2) -> str | None:
    """The module of the caller's caller when it is MediaDesk's, else None."""
    name = str(sys._getframe(depth).f_globals.get("__name__", ""))
    return name if name == "mediadesk" or name.startswith("mediadesk.") else None


def apply(mp: pytest.MonkeyPatch, roots: Sequence[str | os.PathLike[str]]) -> Layer:
    """Make this process behave as Windows does (see the module doc) through ``mp`` (undone with it);
    ``roots``: the folders whose stat results report Windows' modes."""
    from mediadesk.platform import browsers, files, processes, signals

    layer = Layer(tuple(os.path.abspath(os.fspath(r)) for r in roots))

    # the platform layer's own switches
    mp.setattr(files, "MODE_BITS", False)
    mp.setattr(signals, "LOOP_HANDLERS", False)
    mp.setattr(signals, "STOP_SIGNALS", tuple(int(s) for s in (signal.SIGINT, signal.SIGTERM)))
    mp.setattr(processes, "PROCESS_GROUPS", False)
    mp.setattr(browsers, "PARENT_DEATH_SIGNAL", False)

    # the modes Windows reports
    def where(path: Any, dir_fd: int | None) -> str | None:
        try:
            if isinstance(path, int):
                return os.readlink(f"/proc/self/fd/{path}")
            text = os.fsdecode(path)
            if dir_fd is not None and not os.path.isabs(text):
                text = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), text)
            return os.path.abspath(text)
        except (OSError, TypeError, ValueError):
            return None

    def wrap(real: Callable[..., os.stat_result]) -> Callable[..., os.stat_result]:
        def windows_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
            st = real(path, *args, **kwargs)
            name = where(path, kwargs.get("dir_fd"))
            return windows_mode(st) if name is not None and layer.covers(name) else st

        return windows_stat

    for name in ("stat", "lstat", "fstat"):
        mp.setattr(os, name, wrap(getattr(os, name)))

    # what Windows lacks
    for name in POSIX_ONLY:
        mp.delattr(os, name, raising=False)
    mp.delattr(signal, "SIGHUP", raising=False)

    def no_loop_handlers(self: object, *args: object) -> None:
        raise NotImplementedError("Windows' event loops have no signal handlers")

    unix_loop = asyncio.unix_events._UnixSelectorEventLoop  # type: ignore[attr-defined]
    mp.setattr(unix_loop, "add_signal_handler", no_loop_handlers)
    mp.setattr(unix_loop, "remove_signal_handler", no_loop_handlers)
    real_kill, real_fchmod = os.kill, os.fchmod

    def kill(pid: int, sig: int) -> None:
        caller = _from_mediadesk()
        if sig == 0 and caller is not None:
            layer.violations.append(f"os.kill({pid}, 0) from {caller}: on Windows this terminates the process")
            raise AssertionError(layer.violations[-1])
        real_kill(pid, sig)

    def fchmod(fd: int, mode: int) -> None:
        caller = _from_mediadesk()
        if caller is not None:
            layer.violations.append(f"os.fchmod from {caller}: Windows' Python has none (before 3.13)")
            raise AttributeError(layer.violations[-1])
        real_fchmod(fd, mode)

    mp.setattr(os, "kill", kill)
    mp.setattr(os, "fchmod", fchmod)

    # command lines as Windows gives them back
    real_cmdline = psutil.Process.cmdline

    def cmdline(self: psutil.Process) -> list[str]:
        return windows_argv(subprocess.list2cmdline(real_cmdline(self)))

    mp.setattr(psutil.Process, "cmdline", cmdline)
    return layer


@contextlib.contextmanager
def applied(roots: Sequence[str | os.PathLike[str]]) -> Iterator[Layer]:
    """:func:`apply` for the ``with`` block."""
    with pytest.MonkeyPatch.context() as mp:
        yield apply(mp, roots)


@pytest.fixture
def windows_semantics(tmp_path: Path) -> Iterator[Layer]:
    """The layer for one test (Windows' modes under its ``tmp_path``); a violation fails the test."""
    with applied([tmp_path]) as layer:
        yield layer
    assert not layer.violations, layer.violations


def child_environment(roots: Sequence[str | os.PathLike[str]]) -> dict[str, str]:
    """The environment of ``python -m tests.windows_semantics ...``: roots given, this checkout importable."""
    here = str(Path(__file__).resolve().parents[1])
    return {**os.environ, ROOTS_ENV: os.pathsep.join(os.fspath(r) for r in roots), "PYTHONPATH": here,
            "PYTHONUNBUFFERED": "1"}


def _run_module(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m tests.windows_semantics <module> <args...>", file=sys.stderr)
        return 2
    roots = [r for r in os.environ.get(ROOTS_ENV, "").split(os.pathsep) if r] or [tempfile.gettempdir()]
    layer = apply(pytest.MonkeyPatch(), roots)
    sys.argv = list(argv)
    code: object = 0
    try:
        runpy.run_module(argv[0], run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exc.code
    if layer.violations:
        print(VIOLATION, *layer.violations, file=sys.stderr, flush=True)
        return 70
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(_run_module(sys.argv[1:]))
