"""One task-log line, stored once by the real store, read in English and in Chinese.

The line keeps its phrase and values in the database; the console renders them through the shipped
``resources/i18n/mediadesk_zh_CN.qm`` when it is installed, and in English when it is not. The stored
English text (exports, the CLI) is the same either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QTranslator

from mediadesk.core.log_lines import LOG
from mediadesk.core.states import TaskState
from mediadesk.scheduler.events import TaskLogLine
from mediadesk.store import NewTask, TaskReader, TaskStore
from mediadesk.store.record import LogLine
from mediadesk.ui.panels.log_dock import format_log_line, shown_log_message
from tests.ui.conftest import installed_zh


def _stored_line(tmp_path: Path) -> LogLine:
    store = TaskStore(tmp_path / "t.db")
    store.add_tasks([NewTask("t1", "writer", "api", "hello")])
    (rec,) = store.claim(["writer"], 1, lane="api:writer", account=None, owner="me", now=100.0)
    store.finish(rec, TaskState.PENDING, error_kind="timeout", not_before=200.0, now=101.0,
                 log=LOG.attempt_failed(attempt=1, error="timeout: attempt exceeded 60 s",
                                        why=LOG.retry_in(n=1, max=2, seconds="1.3")))
    store.close()
    reader = TaskReader(tmp_path / "t.db")
    try:
        return reader.logs("t1")[-1]
    finally:
        reader.close()


def test_one_stored_line_reads_in_english_and_in_chinese(qapp: Any, tmp_path: Path) -> None:
    line = _stored_line(tmp_path)
    english = "attempt 1 failed (timeout: attempt exceeded 60 s); retry 1/2 in 1.3 s"
    assert line.message == english and line.text is not None
    assert shown_log_message(line.message, line.text) == english  # no translator installed

    with installed_zh():
        # the server's error text stays as it came; our words, nested ones included, are Chinese
        assert shown_log_message(line.message, line.text) == (
            "第 1 次尝试失败（timeout: attempt exceeded 60 s）；1.3 秒后第 1/2 次重试")
    assert shown_log_message(line.message, line.text) == english


def test_an_old_row_reads_as_stored_and_the_dock_uses_the_phrase(zh_translator: QTranslator) -> None:
    assert shown_log_message("attempt 1 started", None) == "attempt 1 started"  # a row from before ids
    ev = TaskLogLine("t1", 1_700_000_000.0, "api:writer", "attempt 2 started", LOG.attempt_started(attempt=2))
    assert format_log_line(ev).endswith("[api:writer] t1: 第 2 次尝试开始")
