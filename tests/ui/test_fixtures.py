"""The console tests' own fixtures (tests/ui/conftest.py) hold up between tests."""

from __future__ import annotations

import threading
from typing import Any

import qasync

from tests.ui.conftest import _destroy_loop_qobjects, _ignore_late_callbacks


def test_a_result_a_thread_queued_before_the_loop_closed_is_dropped(qapp: Any) -> None:
    """A worker thread's result queued for the loop just before its teardown closed it: delivered
    later, it must not schedule on the loop's deleted timer (pytest-qt reports that as "Exceptions
    caught in Qt event loop" in whichever test processes events next)."""
    ran: list[int] = []
    loop = qasync.QEventLoop(qapp)
    worker = threading.Thread(target=lambda: loop.call_soon_threadsafe(ran.append, 1))
    worker.start()
    worker.join()  # queued as a Qt signal, not delivered yet
    loop.close()
    _ignore_late_callbacks(loop)
    _destroy_loop_qobjects(loop)
    qapp.processEvents()
    assert ran == []
