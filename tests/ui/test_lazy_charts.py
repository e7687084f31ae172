"""The Charts tab imports pyqtgraph (and numpy) only once it is drawn on screen: ~40 MB of the
console's resident memory that an operator who never opens the tab does not pay (docs/benchmarks.md).
Each check runs in a fresh interpreter: this test process has imported pyqtgraph long before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_python(code: str, tmp_path: Path) -> dict[str, object]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code), str(tmp_path)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def test_importing_the_main_window_imports_no_plotting_library(tmp_path: Path) -> None:
    out = run_python("""
        import json, sys
        import mediadesk.ui.window.main_window
        import mediadesk.ui.panels.charts
        print(json.dumps({m: m in sys.modules for m in ("pyqtgraph", "numpy")}))
    """, tmp_path)
    assert out == {"pyqtgraph": False, "numpy": False}


def test_charts_read_while_hidden_and_draw_once_shown(tmp_path: Path) -> None:
    """A Charts view refreshed off screen (as the main window's tabified dock is at start) reads
    the store but builds no plot; shown, it imports pyqtgraph and draws what the store holds."""
    out = run_python("""
        import asyncio, json, sys, time
        from pathlib import Path

        import qasync
        from PySide6.QtWidgets import QApplication, QLabel, QTabWidget

        from mediadesk.core.states import TaskState
        from mediadesk.store.taskstore import NewTask, TaskStore
        from mediadesk.ui.app.start import install_asyncgen_hooks
        from mediadesk.ui.panels.charts import ChartsView
        from tests.support import until

        db = Path(sys.argv[1]) / "charts.db"
        store = TaskStore(db)
        store.add_tasks([NewTask(f"t{i}", "writer", "api", f"prompt {i}") for i in range(7)])
        last = 0.0
        for _ in range(7):
            (rec,) = store.claim(["writer"], 1, lane="api:writer", account=None, owner="test")
            last = (rec.started_at or time.time()) + 2.0  # 2 s runs, so the histogram has a bin to fill
            store.finish(rec, TaskState.SUCCESS, result="ok", now=last)
        store.close()
        # the charts count what finished up to now: wait until those finish stamps are in the past
        time.sleep(max(0.0, last - time.time() + 0.05))

        async def main() -> dict[str, object]:
            install_asyncgen_hooks(asyncio.get_running_loop())
            tabs = QTabWidget()
            tabs.addTab(QLabel("table"), "Tasks")
            view = ChartsView(db, ["api:writer"])
            tabs.addTab(view, "Charts")
            tabs.resize(1000, 500)
            tabs.show()
            view.refresh(force=True)
            await until(lambda: view.data is not None and not view.busy, "the hidden read")
            hidden = {"read": view.data is not None and view.data.finished() == 7, "built": view.plots_built,
                      "pyqtgraph": "pyqtgraph" in sys.modules, "numpy": "numpy" in sys.modules,
                      "summary": view.summary.text()}
            tabs.setCurrentWidget(view)
            await until(lambda: view.plots_built and view.histogram_total("api:writer") == 7, "the drawn charts")
            x, y = view.curve_data("api:writer")
            shown = {"built": view.plots_built, "pyqtgraph": "pyqtgraph" in sys.modules,
                     "hist": view.histogram_total("api:writer"), "points": len(x), "sum_y": sum(y)}
            view.close_jobs()
            await until(lambda: not view.busy, "the last read")
            return {"hidden": hidden, "shown": shown}

        app = QApplication(["test"])
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            print(json.dumps(runner.run(main())))
    """, tmp_path)
    hidden, shown = out["hidden"], out["shown"]
    assert isinstance(hidden, dict) and isinstance(shown, dict)
    assert hidden["read"] is True, "the hidden tab still reads the store"
    assert hidden["built"] is False and hidden["pyqtgraph"] is False and hidden["numpy"] is False
    assert "api:writer: 7 done, 0 failed" in str(hidden["summary"])
    assert shown["built"] is True and shown["pyqtgraph"] is True
    assert shown["hist"] == 7
    assert isinstance(shown["points"], int) and shown["points"] > 0
    assert isinstance(shown["sum_y"], float) and shown["sum_y"] > 0
