#!/usr/bin/env python3
"""Render the staging dialog with a template over a spreadsheet and the Compare tab to
``docs/staging-template.png`` and ``docs/comparison.png`` (offscreen; no display needed).

    python packaging/batch_screenshots.py [--out-dir docs]

The API simulator runs in-process on 127.0.0.1 (real HTTP). A template ``blurb`` in the workspace's
templates folder and a workbook of products, two of its rows on two profiles with two samples; the
dialog previews the rendered prompts and each row's fan-out. Submitted, the batch runs, and the Compare
tab shows one row per prompt with a column per profile and sample, one answer kept.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "packaging"))

import openpyxl  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QComboBox  # noqa: E402
from shots import console, run_offscreen  # noqa: E402

from mediadesk.config.model import parse_config  # noqa: E402
from mediadesk.config.workspace import Workspace  # noqa: E402
from mediadesk.core.batch import templates_dir  # noqa: E402
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer  # noqa: E402
from mediadesk.ui.app.start import install_asyncgen_hooks  # noqa: E402

TEMPLATE = "Write a product blurb for {product} in a {tone} tone, under {words} characters."
PRODUCTS = [
    ("electric kettle", "calm", 80, "writer, critic", 2),
    ("desk lamp", "playful", 60, "writer", None),
    ("ceramic mug", "bold", 70, "writer, critic", 2),
    ("travel pillow", "warm", 90, "writer", None),
    ("notebook", "plain", 50, "critic", None),
]


async def until(what: str, check: object, limit_s: float = 60.0) -> None:
    """Wait (polling) for ``check()``; raise with ``what`` when it does not come."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit_s
    while not check():  # type: ignore[operator]
        if loop.time() > end:
            raise SystemExit(f"gave up waiting for {what}")
        await asyncio.sleep(0.05)


def prepare(ws: Workspace, tmp: Path, out_dir: Path) -> Path:
    """The template in the workspace, the workbook of products (its path), and the output folder."""
    folder = templates_dir(ws.data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "blurb.txt").write_text(TEMPLATE, encoding="utf-8")
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Products"
    sheet.append(["product", "tone", "words", "profiles", "n"])
    for row in PRODUCTS:
        sheet.append(list(row))
    xlsx = tmp / "products.xlsx"
    book.save(xlsx)
    out_dir.mkdir(parents=True, exist_ok=True)
    return xlsx


async def shoot(out_dir: Path) -> None:
    install_asyncgen_hooks(asyncio.get_running_loop())
    sim = ApiSimServer(ApiSimConfig(latency=(0.05, 0.2), seed=11))
    await sim.start()
    tmp = tempfile.TemporaryDirectory(prefix="mediadesk-batch-shots-")
    try:
        config = parse_config({
            "endpoints": [{"name": "openai", "base_url": sim.base_url, "concurrency": 4}],
            "profiles": [{"name": "writer", "kind": "api", "endpoint": "openai", "model": "gpt-4o-mini"},
                         {"name": "critic", "kind": "api", "endpoint": "openai", "model": "gpt-4o"}],
        }, "batch-screenshots")
        ws = Workspace.resolve(data_dir=Path(tmp.name) / "data").ensure()
        xlsx = prepare(ws, Path(tmp.name), out_dir)

        async with console(config, ws, Path(tmp.name)) as (sched, window):
            dlg = window.submission.open_batch_dialog(xlsx)
            dlg.resize(1100, 640)
            template = dlg.findChild(QComboBox, "batchTemplate")
            profile = dlg.findChild(QComboBox, "batchProfile")
            assert isinstance(template, QComboBox) and isinstance(profile, QComboBox)
            await until("the workbook's first read", lambda: template.count() > 1)
            template.setCurrentIndex(template.findData("blurb"))
            template.activated.emit(template.currentIndex())  # what a click on the item does: the file is read again
            profile.setCurrentIndex(0)  # the profiles column
            tasks = sum(len(str(r[3]).split(",")) * int(r[4] or 1) for r in PRODUCTS)
            await until("the rendered prompts", lambda: dlg.submit_button().isEnabled()
                        and str(tasks) in dlg.submit_button().text(), limit_s=30)
            await asyncio.sleep(0.3)
            staged = out_dir / "staging-template.png"
            if not dlg.grab().save(str(staged)):
                raise SystemExit(f"could not write {staged}")
            print(f"saved {staged}: {dlg.submit_button().text()!r}")
            dlg.submit_button().click()
            await until("the batch's tasks in the table", lambda: window.model.rowCount() >= tasks)
            await sched.wait_idle(poll_s=0.05)
            view = window.comparison_view
            window.comparison_dock.raise_()
            window.resizeDocks([window.comparison_dock], [380], Qt.Orientation.Vertical)
            view.show_batch(xlsx.name)
            await until("the comparison", lambda: bool(view.comparison.rows) and not view.busy)
            view.table.setCurrentCell(0, 2)
            view.keep_button.click()
            await until("the keep mark", lambda: "★" in (view.table.item(0, 2).text() if view.table.item(0, 2)
                                                         else ""))
            await asyncio.sleep(0.3)
            compared = out_dir / "comparison.png"
            if not window.grab().save(str(compared)):
                raise SystemExit(f"could not write {compared}")
            print(f"saved {compared}: {view.table.rowCount()} prompts x {view.table.columnCount() - 1} columns")
    finally:
        await sim.stop()
        tmp.cleanup()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="batch_screenshots", description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--out-dir", type=Path, default=ROOT / "docs")
    args = p.parse_args(argv)
    return run_offscreen(shoot(args.out_dir))


if __name__ == "__main__":
    raise SystemExit(main())
