""""Try the demo" to a usable window: the real welcome panel, its button clicked, the real console.

Usable = the main window is shown and its event loop answers (a zero-delay timer posted once the
window is shown has fired: a click or a key would be handled now). Measured on a fresh demo folder
each round (new browser profiles, as an operator's first try), offscreen, tray off. Side by side in
one run, alternating: the console as it is (the window first; the demo accounts log themselves in
while their lanes warm up) and the order it had before (both accounts logged in, one Chromium each,
before the window) - the second by making the demo log in first, nothing else changed. "lanes
ready" is when every lane has started (browsers warm, accounts logged in), from the click.

    python -m bench gui --part demo [--demo-rounds 3]
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

import mediadesk.demo as demo_module
from bench.common import median, table
from mediadesk.ui.app.start import console_main
from mediadesk.ui.dialogs.welcome import WelcomePanel
from mediadesk.ui.window.main_window import MainWindow

__all__ = ["demo_rounds", "print_demo"]

GOAL_S = 8.0


async def _one(app: QApplication, data_dir: Path, login_first: bool) -> dict[str, float]:
    marks: dict[str, float] = {}
    done = asyncio.Event()
    real = demo_module.demo_environment

    @asynccontextmanager
    async def old_order(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        kwargs["login"] = True
        async with real(*args, **kwargs) as env:
            yield env

    def on_welcome(panel: WelcomePanel) -> None:
        def click() -> None:
            marks["click"] = time.perf_counter()
            panel.demo_button.click()
        QTimer.singleShot(0, click)

    def on_window(window: MainWindow) -> None:
        marks["shown"] = time.perf_counter()

        def usable() -> None:
            marks["usable"] = time.perf_counter()
            asyncio.get_running_loop().create_task(ready(window))
        QTimer.singleShot(0, usable)

    async def ready(window: MainWindow) -> None:
        await window.scheduler.wait_ready()
        marks["ready"] = time.perf_counter()
        done.set()
        window.close()

    if login_first:
        demo_module.demo_environment = old_order  # type: ignore[assignment]
    try:
        rc = await console_main(app, None, data_dir=data_dir, welcome=True, on_welcome=on_welcome,
                                on_window=on_window, tray_available=False)
    finally:
        demo_module.demo_environment = real  # type: ignore[assignment]
    if rc != 0 or not done.is_set():
        raise RuntimeError(f"the demo did not come up (exit {rc})")
    t0 = marks["click"]
    return {"shown": marks["shown"] - t0, "usable": marks["usable"] - t0, "ready": marks["ready"] - t0}


async def demo_rounds(app: QApplication, rounds: int) -> dict[str, list[dict[str, float]]]:
    out: dict[str, list[dict[str, float]]] = {"window first": [], "login first (before)": []}
    for _ in range(rounds):
        for name, login_first in (("window first", False), ("login first (before)", True)):
            with tempfile.TemporaryDirectory(prefix="bench-demo-") as tmp:
                out[name].append(await _one(app, Path(tmp) / "demo", login_first))
    return out


def print_demo(results: dict[str, list[dict[str, float]]]) -> None:
    rounds = len(next(iter(results.values())))
    print(f"\nDemo start: \"Try the demo\" clicked on the real welcome panel to a usable main window (shown, "
          f"and its event loop answering), fresh demo folder each round, offscreen; median of {rounds}")
    rows: list[tuple[str, ...]] = [("order", "window shown", "usable", "lanes ready (accounts logged in)")]
    for name, runs in results.items():
        rows.append((name, *(f"{median([r[k] for r in runs]):.2f} s" for k in ("shown", "usable", "ready"))))
    print(table(rows))
    usable = median([r["usable"] for r in results["window first"]])
    print(f"goal usable < {GOAL_S:.0f} s: {'OK' if usable < GOAL_S else 'OVER GOAL'}", flush=True)
