"""Run by tests/ui/test_screen_fit.py in a process of its own, on an offscreen screen of a given size
(``QT_QPA_PLATFORM=offscreen:configfile=...``: the screen size is fixed when the application
starts, so each size needs a process): opens the console's windows as the console does (the
screen fit installed as ``run_console`` installs it, the real translator for the locale) and prints
one JSON object: per locale, per window, its frame, its screen's available geometry, whether it fits,
and, for the folded main window, which of its parts lie outside it.

``python -m tests.ui.screen_probe LOCALE[,LOCALE...] WORKDIR [demo]``: the locales one after the other in
this process (the screen is what needs a process of its own), each with its own translator installed
before any of its windows is made and removed after, in a folder of its own (nothing saved: a first
run), as a console started in that locale would; ``demo``: also the demo's main window (its batch
staged). tests/ui/test_frame_fit.py runs it on a real X display with a window manager instead.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import QLocale, QRect, QSettings, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QAbstractButton, QAbstractScrollArea, QApplication, QMessageBox, QWidget

from mediadesk.config.workspace import Workspace, resources_dir
from mediadesk.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.dialogs.close_question import CloseQuestion, ask_close
from mediadesk.ui.dialogs.welcome import WelcomePanel
from mediadesk.ui.screen_fit import available_geometry, frame_geometry, install_screen_fit
from mediadesk.ui.style import apply_style, install_translator
from mediadesk.ui.window.main_window import MainWindow
from tests.support import make_config

_CONFIG = """
[[profiles]]
name = "writer"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
model = "sim-model"
concurrency = 3
"""


def _rect(r: QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def _scrolls(widget: QWidget, top: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None and parent is not top:
        if isinstance(parent, QAbstractScrollArea):
            return True
        parent = parent.parentWidget()
    return False


def buttons_cut_off(w: QWidget) -> list[str]:
    """The window's visible buttons (outside a scroll area) that are not wholly inside it."""
    out = []
    for b in w.findChildren(QAbstractButton):
        if not b.isVisible() or b.visibleRegion().isEmpty() or _scrolls(b, w) or b.window() is not w:
            continue
        if not w.rect().contains(QRect(b.mapTo(w, b.rect().topLeft()), b.size())):
            out.append(b.text() or b.objectName())
    return out


def record(out: dict[str, Any], name: str, w: QWidget) -> None:
    avail = available_geometry(w)
    out[name] = {"frame": _rect(frame_geometry(w)), "client": _rect(w.geometry()), "available": _rect(avail),
                 "fits": avail.contains(frame_geometry(w)), "min": [w.minimumWidth(), w.minimumHeight()],
                 "buttons_cut_off": buttons_cut_off(w)}


def outside_parts(w: MainWindow) -> list[str]:
    """The folded window's parts that are not wholly inside it (cut off at its edge)."""
    parts: dict[str, QWidget] = {"search": w.filter_bar.search, "status": w.status_line.status_label,
                                 "totals": w.status_line.totals_label, "table": w.table, "web": w.web_panel,
                                 "api": w.api_panel}
    for act in w.main_toolbar.actions():
        button = w.main_toolbar.widgetForAction(act)
        if button is not None and act.isVisible() and not act.isSeparator():
            parts[f"toolbar:{act.objectName()}"] = button
    out = []
    for name, part in parts.items():
        if not part.isVisible():
            continue
        top_left = part.mapTo(w, part.rect().topLeft())
        bottom_right = part.mapTo(w, part.rect().bottomRight())
        if not (w.rect().contains(top_left) and w.rect().contains(bottom_right)):
            out.append(name)
    return out


#: Under a window manager (X11, tests/ui/test_frame_fit.py) a window is framed by another process:
#: :func:`settle` waits for that, this long at most (a safety net, not a speed assertion).
FRAME_TIMEOUT_S = 20.0
#: Then the event-loop turns it gives the window manager to apply what the screen fit asked for.
_FIT_TURNS = 100


def framed(w: QWidget) -> bool:
    """Whether the window manager has framed ``w`` (it is exposed, its frame known); true at once
    where no window manager frames windows (offscreen)."""
    handle = w.windowHandle()
    return QGuiApplication.platformName() != "xcb" or (
        handle is not None and handle.isExposed() and frame_geometry(w) != w.geometry())


def _shown() -> list[QWidget]:
    return [w for w in QApplication.topLevelWidgets()
            if w.isVisible() and w.windowType() in (Qt.WindowType.Window, Qt.WindowType.Dialog)]


async def settle() -> None:
    """Until every window shown is framed (:func:`framed`) and fits, or :data:`_FIT_TURNS` turns after
    it is framed (a window that never fits is recorded as it is)."""
    deadline = time.monotonic() + FRAME_TIMEOUT_S
    while time.monotonic() < deadline:
        if all(framed(w) for w in _shown()):
            break
        await asyncio.sleep(0.02)
    for _ in range(_FIT_TURNS):
        if all(available_geometry(w).contains(frame_geometry(w)) for w in _shown()):
            break
        await asyncio.sleep(0.02)
    for _ in range(8):
        await asyncio.sleep(0.02)


async def probe(workdir: Path, demo: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    config_path = workdir / "mediadesk.toml"
    config_path.write_text(_CONFIG, encoding="utf-8")
    cfg = make_config([{"name": "writer", "kind": "api", "base_url": "http://127.0.0.1:9/v1", "model": "m",
                        "concurrency": 3}, {"name": "chat", "kind": "web", "site": "sim"}],
                      [{"name": "acct-a", "profile": "chat"}])
    ws = Workspace.resolve(data_dir=workdir / "data").ensure()
    scheduler = Scheduler(cfg, ws)
    scheduler.open()
    bridge = SchedulerBridge(scheduler.bus)
    settings = QSettings(str(workdir / "window.ini"), QSettings.Format.IniFormat)

    welcome = WelcomePanel(workdir / "config.toml")
    welcome.show()
    await settle()
    record(out, "welcome", welcome)
    welcome.close()

    if demo:  # as `mediadesk console --demo` opens it (its batch staged), with settings of its own
        w = MainWindow(scheduler, bridge, settings=QSettings(str(workdir / "demo.ini"), QSettings.Format.IniFormat),
                       demo_batch=resources_dir() / "demo" / "batch.jsonl")
        w.show()
        await settle()
        record(out, "main demo", w)
        out["main demo"]["outside"] = outside_parts(w)
        w.close()
        await settle()

    w = MainWindow(scheduler, bridge, settings=settings)  # the first run: nothing saved
    w.show()
    await settle()
    record(out, "main first run", w)
    out["main first run"]["outside"] = outside_parts(w)
    w.showMaximized()
    await settle()
    record(out, "main maximized", w)
    out["main maximized"]["outside"] = outside_parts(w)
    w.showNormal()
    w.setGeometry(40, 40, 1400, 900)  # a layout saved on a larger screen
    w.save_settings()
    w.close()
    await settle()

    w = MainWindow(scheduler, bridge, settings=settings)  # restored
    w.show()
    await settle()
    record(out, "main restored", w)
    out["main restored"]["outside"] = outside_parts(w)

    dlg = w.submission.open_batch_dialog(resources_dir() / "demo" / "batch.jsonl")
    await settle()
    record(out, "batch dialog", dlg)
    dlg.close()
    editor = w.open_setup_editor(config_path)
    assert editor is not None
    await settle()
    record(out, "setup editor", editor)
    editor.close()
    box = w.status_line.notify("Title", "A notice " * 40)
    await settle()
    record(out, "notice box", box)
    box.close()

    deadline = time.monotonic() + FRAME_TIMEOUT_S

    def answer() -> None:  # the close question is modal (exec): record it (framed), then cancel it
        modal = QApplication.activeModalWidget()
        if isinstance(modal, QMessageBox) and (framed(modal) or time.monotonic() > deadline):
            record(out, "close question", modal)
            modal.reject()
        else:
            QTimer.singleShot(20, answer)

    QTimer.singleShot(20, answer)
    ask_close(w, CloseQuestion(3, 40, True))
    w.close()
    await settle()
    await scheduler.stop()
    return out


async def probe_each(app: QApplication, locales: list[str], workdir: Path, demo: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for locale in locales:
        translators = install_translator(app, QLocale(locale))
        try:
            folder = workdir / locale
            folder.mkdir()
            out[locale] = await probe(folder, demo)
        finally:
            for tr in translators:
                app.removeTranslator(tr)
    return out


def main() -> int:
    locales, workdir = sys.argv[1].split(","), Path(sys.argv[2])
    app = QApplication([sys.argv[0]])
    app.setQuitOnLastWindowClosed(False)  # as run_console does
    apply_style(app)
    fit = install_screen_fit(app)
    result = qasync.run(probe_each(app, locales, workdir, demo="demo" in sys.argv[3:]))
    del fit
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
