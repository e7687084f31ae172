"""The console refuses a data dir or lock file it cannot own with a message, a non-zero exit and no traceback."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mediadesk.providers.web import InstanceLock
from mediadesk.ui.app.start import EXIT_BUSY, EXIT_CONFIG, console_main
from tests.ui.conftest import ARun, ConsoleEnv


def test_console_refuses_a_data_dir_held_by_another_mediadesk(console_env: ConsoleEnv, qapp: Any, arun: ARun,
                                                              capsys: Any) -> None:
    """E.g. a ``mediadesk run --db elsewhere.db`` on the same data dir: the database is free, the profiles are not."""
    with InstanceLock(console_env.workspace.data_dir):
        rc = arun(console_main(qapp, console_env.config_path, data_dir=console_env.workspace.data_dir))
    err = capsys.readouterr().err
    assert rc == EXIT_BUSY
    assert f"pid {os.getpid()}" in err and "--data-dir" in err and "Traceback" not in err


def test_console_refuses_a_symlinked_lock_file(console_env: ConsoleEnv, qapp: Any, arun: ARun, tmp_path: Path,
                                               capsys: Any) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    planted = console_env.workspace.data_dir / InstanceLock.FILE_NAME
    planted.symlink_to(victim)
    rc = arun(console_main(qapp, console_env.config_path, data_dir=console_env.workspace.data_dir))
    err = capsys.readouterr().err
    assert rc == EXIT_CONFIG
    assert f"{planted} is a symbolic link" in err and "Traceback" not in err
    assert victim.read_text(encoding="utf-8") == "precious\n"
