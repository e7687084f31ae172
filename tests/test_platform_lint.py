"""What differs between Linux, macOS and Windows lives in ``mediadesk/platform`` only.

Every module under ``mediadesk/`` is parsed (ast, so comments, strings and docs never count) and
searched for the raw POSIX calls and the system checks that broke the product off Linux: each
finding names ``file:line`` and what to call instead. The platform layer itself imports nothing
of MediaDesk (every layer uses it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mediadesk"
LAYER = PACKAGE / "platform"

#: Modules allowed their own platform code for now, each with why.
EXCEPTIONS: dict[str, str] = {}

_OS_CALLS = {
    "kill": "mediadesk.platform.processes.pid_alive (a probe; os.kill(pid, 0) terminates on Windows) or "
            "psutil.Process(pid).terminate()/kill()",
    "getpgid": "mediadesk.platform.processes.group_members",
    "killpg": "mediadesk.platform.processes.group_members and psutil (a process tree)",
    "fchmod": "mediadesk.platform.files.fchmod (chmod by path where os.fchmod is missing)",
}
_MODULES = {
    name: "mediadesk.platform.files (current_uid, owned_by_us, user_name) or a function added there"
    for name in ("pwd", "grp", "fcntl", "termios")
}
_SYSTEM_CHECK = "a function of mediadesk.platform (which picks each system's way once)"
_MODE_CHECK = "mediadesk.platform.files.is_private / open_to_all / mode_text (Windows reports made-up modes)"


def _dotted(node: ast.expr) -> str:
    """``os.name`` for an attribute chain of names, else ''."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def findings(source: str, filename: str = "<source>") -> list[str]:
    """``file:line: what; use instead`` for every platform-specific construct in ``source``, in line order."""
    found = list(_findings(ast.parse(source, filename), filename))
    return sorted(found, key=lambda f: int(f[len(filename) + 1:].split(":", 1)[0]))


def _findings(tree: ast.Module, filename: str) -> Iterator[str]:
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        where = f"{filename}:{line}"
        if isinstance(node, ast.Attribute):
            name = _dotted(node)
            if node.attr in _OS_CALLS and name == f"os.{node.attr}":
                yield f"{where}: {name}; use {_OS_CALLS[node.attr]}"
            elif node.attr == "add_signal_handler":
                yield f"{where}: add_signal_handler (not implemented by Windows' loops); use " \
                      "mediadesk.platform.signals.install_stop_handlers"
            elif name == "stat.S_IMODE":
                yield f"{where}: stat.S_IMODE; use {_MODE_CHECK}"
            elif name in ("sys.platform.startswith", "os.name.startswith"):
                yield f"{where}: a check of {name.rsplit('.', 1)[0]}; use {_SYSTEM_CHECK}"
        elif isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                if _dotted(operand) in ("sys.platform", "os.name"):
                    yield f"{where}: a comparison on {_dotted(operand)}; use {_SYSTEM_CHECK}"
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
            if any(isinstance(side, ast.Attribute) and side.attr == "st_mode" for side in (node.left, node.right)):
                yield f"{where}: a mode check (st_mode &); use {_MODE_CHECK}"
        elif isinstance(node, ast.keyword) and node.arg == "preexec_fn":
            yield f"{where}: preexec_fn= (refused by Windows); use Popen's own arguments (umask, start_new_session) " \
                  "or a function of mediadesk.platform"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in _MODULES:
                    yield f"{where}: import {alias.name} (POSIX only); use {_MODULES[top]}"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            top = node.module.split(".")[0]
            if top in _MODULES:
                yield f"{where}: from {node.module} import (POSIX only); use {_MODULES[top]}"
            elif node.module == "os":
                for alias in node.names:
                    if alias.name in _OS_CALLS:
                        yield f"{where}: from os import {alias.name}; use {_OS_CALLS[alias.name]}"


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_no_platform_code_outside_the_platform_layer() -> None:
    found: list[str] = []
    for path in _modules():
        rel = _rel(path)
        if path.is_relative_to(LAYER) or rel in EXCEPTIONS:
            continue
        found += findings(path.read_text(encoding="utf-8"), rel)
    assert found == [], "platform-specific code outside mediadesk/platform:\n" + "\n".join(found)


def test_every_exception_still_needs_to_be_one() -> None:
    """An exception whose module no longer has platform code (or is gone) is taken out of the list."""
    stale = [rel for rel in EXCEPTIONS
             if not (ROOT / rel).is_file() or not findings((ROOT / rel).read_text(encoding="utf-8"), rel)]
    assert stale == [], f"remove these from EXCEPTIONS: {stale}"


def test_the_layer_imports_nothing_of_mediadesk() -> None:
    found: list[str] = []
    for path in sorted(LAYER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), _rel(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0
                     else ["mediadesk (relative)"] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{_rel(path)}:{node.lineno}: imports {n}" for n in names
                      if n.split(".")[0] == "mediadesk" and not n.startswith("mediadesk.platform")]
    assert found == []


@pytest.mark.parametrize(("source", "line", "expected"), [
    ("import os\nos.kill(pid, 0)\n", 2, "os.kill; use mediadesk.platform.processes.pid_alive"),
    ("import os\nos.getpgid(pid)\n", 2, "os.getpgid; use mediadesk.platform.processes.group_members"),
    ("import os, signal\nos.killpg(pid, signal.SIGKILL)\n", 2, "os.killpg; use"),
    ("import os\nos.fchmod(fd, 0o600)\n", 2, "os.fchmod; use mediadesk.platform.files.fchmod"),
    ("from os import kill\n", 1, "from os import kill; use"),
    ("loop.add_signal_handler(2, stop)\n", 1, "add_signal_handler (not implemented by Windows' loops)"),
    ("import subprocess\nsubprocess.Popen(['x'], preexec_fn=f)\n", 2, "preexec_fn= (refused by Windows)"),
    ("import pwd\n", 1, "import pwd (POSIX only)"),
    ("import grp\n", 1, "import grp (POSIX only)"),
    ("import fcntl\n", 1, "import fcntl (POSIX only)"),
    ("from termios import tcgetattr\n", 1, "from termios import (POSIX only)"),
    ("import sys\nif sys.platform == 'win32':\n    pass\n", 2, "a comparison on sys.platform"),
    ("import sys\nx = 'linux' != sys.platform\n", 2, "a comparison on sys.platform"),
    ("import sys\nif sys.platform.startswith('linux'):\n    pass\n", 2, "a check of sys.platform"),
    ("import os\nposix = os.name == 'posix'\n", 2, "a comparison on os.name"),
    ("import stat\nstat.S_IMODE(st.st_mode)\n", 2, "stat.S_IMODE; use mediadesk.platform.files.is_private"),
    ("if st.st_mode & 0o077:\n    pass\n", 1, "a mode check (st_mode &)"),
    ("shared = 0o002 & os.stat(p).st_mode\n", 1, "a mode check (st_mode &)"),
])
def test_each_rule_finds_its_construct_and_names_the_line(source: str, line: int, expected: str) -> None:
    found = findings(source, "mediadesk/x.py")
    assert len(found) == 1 and found[0].startswith(f"mediadesk/x.py:{line}: {expected}"), found


def test_portable_code_is_not_a_finding() -> None:
    source = (
        "import os, stat, sys\n"
        "print(sys.platform)\n"                       # shown, not branched on
        "stat.S_ISREG(os.lstat(p).st_mode)\n"         # a file type, not a mode check
        "os.getpid(); os.chmod(p, 0o600)\n"
        "# os.kill(pid, 0) in a comment\n"
        "doc = 'os.fchmod and sys.platform == \"win32\" in a string'\n"
    )
    assert findings(source) == []


def test_the_test_tree_imports_posix_only_modules_behind_guards() -> None:
    """The tests collect on Windows too: a POSIX-only module (pwd, fcntl, termios, grp, resource) is imported
    inside a function, under a guard, or through ``pytest.importorskip``, never at a test module's top level."""
    posix_only = {"pwd", "fcntl", "termios", "grp", "resource"}
    bare: list[str] = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in tree.body:  # top-level statements only: a guard (if/try) or a function holds the others
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            bare += [f"{path.relative_to(ROOT)}:{node.lineno}: import {n}" for n in names
                     if n.split(".")[0] in posix_only]
    assert not bare, "\n".join(bare)
