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


def _lint_imports_on_copy(tmp_path, plant: dict[str, str]) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    """Run the project's import contracts on a copy of the package with ``plant`` lines appended."""
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    shutil.copytree(root / "mediadesk", tmp_path / "mediadesk", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(root / "pyproject.toml", tmp_path / "pyproject.toml")
    for rel, line in plant.items():
        with (tmp_path / rel).open("a", encoding="utf-8") as fh:
            fh.write("\n" + line + "\n")
    lint = Path(sys.executable).with_name("lint-imports")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "HOME": str(tmp_path)}
    return subprocess.run([str(lint), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=env)


def test_the_contracts_hold_on_the_tree_as_it_is(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = _lint_imports_on_copy(tmp_path, {})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "BROKEN" not in out.stdout


def test_a_planted_provider_import_in_the_ui_breaks_a_contract(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = _lint_imports_on_copy(
        tmp_path, {"mediadesk/ui/panels/lane_panel.py": "from mediadesk.providers.web import backend as _planted"})
    assert out.returncode != 0
    assert "The faces reach the providers only through the scheduler BROKEN" in out.stdout
    assert "mediadesk.ui.panels.lane_panel -> mediadesk.providers.web" in out.stdout


def test_a_planted_store_import_in_the_providers_breaks_a_contract(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = _lint_imports_on_copy(tmp_path, {"mediadesk/providers/web/busy.py": "import mediadesk.store.reader"})
    assert out.returncode != 0
    assert "The providers never touch the store BROKEN" in out.stdout


def test_a_planted_upward_import_in_config_breaks_the_layers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = _lint_imports_on_copy(tmp_path, {"mediadesk/config/model.py": "import mediadesk.scheduler.events"})
    assert out.returncode != 0
    assert "Layers point down BROKEN" in out.stdout


def test_a_planted_loop_in_the_api_simulator_breaks_its_layers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = _lint_imports_on_copy(tmp_path, {"mediadesk/sim/api_config.py": "import mediadesk.sim.api_server"})
    assert out.returncode != 0
    assert "The API simulator's modules point down, without loops BROKEN" in out.stdout
    assert "mediadesk.sim.api_config -> mediadesk.sim.api_server" in out.stdout
