"""A view closed while its store read is under way is not left "busy" for ever: a cancelled read calls
back neither its result nor its error handler, so before the fix ``busy`` stayed True (seen in CI under
load as a 10 s wait for "the last read" that never ended)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mediadesk.store.taskstore import NewTask, TaskStore
from mediadesk.ui.panels.charts import ChartsView
from tests.ui.conftest import ARun


def test_closing_the_charts_mid_read_leaves_it_idle(tmp_path: Path, qloop: asyncio.AbstractEventLoop,
                                                    arun: ARun) -> None:
    db = tmp_path / "charts.db"
    store = TaskStore(db)
    store.add_tasks([NewTask("t0", "writer", "api", "prompt")])
    store.close()
    view = ChartsView(db, ["api:writer"])
    try:
        assert view.refresh(force=True) and view.busy  # a read is under way
        view.close_jobs()  # the window closes before it returns
        assert not view.busy
        arun(view.drain_jobs())
        assert not view.busy and view.data is None  # the cancelled read's result was dropped
    finally:
        view.deleteLater()
