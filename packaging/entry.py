"""The packaged app's entry point (PyInstaller): the same ``mediadesk`` command as the installed script.

``MEDIADESK_SMOKE_SECONDS=N`` (the packaging smoke test, tests/packaging): for ``console``, print
``smoke: main window shown`` once the main window is visible, then close it after N seconds the
way a user would, so the run ends through the normal shutdown (exit code 0).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any


def _smoke_closer(seconds: float) -> Any:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from mediadesk.ui.window.main_window import MainWindow

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0]])
    shown: list[float] = []

    def tick() -> None:
        wins = [w for w in app.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        if not wins:
            return
        if not shown:
            shown.append(time.monotonic())
            print(f"smoke: main window shown ({wins[0].windowTitle()})", file=sys.stderr, flush=True)
        elif time.monotonic() - shown[0] >= seconds:
            timer.stop()
            print("smoke: closing the main window", file=sys.stderr, flush=True)
            wins[0].close()

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(200)
    return app, timer


def run() -> int:
    from mediadesk.main import main

    args = sys.argv[1:]
    keep = None
    smoke = os.environ.get("MEDIADESK_SMOKE_SECONDS")
    if smoke and (not args or args[0] == "console" or args[0].startswith("--")):
        keep = _smoke_closer(float(smoke))  # the console reuses this QApplication
    try:
        return main()
    finally:
        del keep


if __name__ == "__main__":
    sys.exit(run())
