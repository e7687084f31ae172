"""After a burst of new rows (a big submit, the initial load) the task model hands the freed heap
back once, when the burst is over; a few rows do not cost a release."""

from __future__ import annotations

from typing import Any

from mediadesk.ui.models.task_model import RELEASE_AFTER_ROWS, TaskTableModel
from tests.viewmodel.factory import rec


def test_one_release_after_a_big_burst_none_after_a_few_rows(qtbot: Any) -> None:
    releases: list[int] = []
    model = TaskTableModel(flush_interval_ms=5, max_rows_per_flush=2000,
                           release_memory=lambda: releases.append(model.rowCount()))
    n = RELEASE_AFTER_ROWS + 2000
    model.add_records([rec(i) for i in range(n)])  # applied by the timer, 2,000 rows a step
    qtbot.waitUntil(lambda: releases != [], timeout=20_000)
    # once, after the last step (not after each): every row was in by then
    assert releases == [n]
    assert model.rowCount() == n and not model.memory_release_pending

    model.add_records([rec(n + i) for i in range(50)])
    qtbot.waitUntil(lambda: model.rowCount() == n + 50, timeout=10_000)
    assert not model.memory_release_pending and releases == [n]


def test_the_initial_load_path_releases_too(qtbot: Any) -> None:
    """Direct flushes in chunks (TaskFeed.load) count as one burst as well."""
    releases: list[int] = []
    model = TaskTableModel(release_memory=lambda: releases.append(model.rowCount()))
    for start in range(0, RELEASE_AFTER_ROWS, 5000):
        model.add_records([rec(i) for i in range(start, start + 5000)])
        model.flush()
    assert model.memory_release_pending
    qtbot.waitUntil(lambda: releases != [], timeout=10_000)
    assert releases == [RELEASE_AFTER_ROWS]
