"""The core knows no Qt: the headless parts import and run with PySide6/qasync made unimportable."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
sys.modules['PySide6'] = None
sys.modules['qasync'] = None
sys.modules['shiboken6'] = None
import mediadesk.cli, mediadesk.scheduler, mediadesk.store, mediadesk.core.batch, mediadesk.core.eta
import mediadesk.providers.api, mediadesk.providers.web.backend, mediadesk.demo, mediadesk.sim.web_server
rc = mediadesk.cli.main(['export', '--db', sys.argv[1], '--format', 'jsonl'])
print('headless-ok', rc)
"""


def test_headless_parts_do_not_need_qt(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from mediadesk.store import TaskStore

    db = tmp_path / "t.db"
    TaskStore(db).close()
    out = subprocess.run([sys.executable, "-c", CODE, str(db)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "headless-ok 0" in out.stdout
