"""The switches a big batch's parse and submit flip (cyclic GC off, short GIL switch interval)
are back as they were once the last overlapping use ends, whichever thread ends first."""

from __future__ import annotations

import gc
import sys
import threading

from mediadesk.ui.jobs.workers import FAST_SWITCH_S, cyclic_gc_paused, gil_handed_over_often


def test_cyclic_gc_paused_nests_and_restores() -> None:
    assert gc.isenabled()
    with cyclic_gc_paused():
        assert not gc.isenabled()
        with cyclic_gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer use is still under way
    assert gc.isenabled()


def test_cyclic_gc_paused_overlapping_threads_leave_it_on() -> None:
    inside, release = threading.Event(), threading.Event()

    def worker() -> None:
        with cyclic_gc_paused():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    assert inside.wait(10)
    with cyclic_gc_paused():
        release.set()
        t.join(10)
        assert not gc.isenabled()  # the worker ended first: this use still holds it off
    assert gc.isenabled()


def test_gil_handed_over_often_restores_the_interval() -> None:
    before = sys.getswitchinterval()
    with gil_handed_over_often():
        assert sys.getswitchinterval() == FAST_SWITCH_S
        with gil_handed_over_often():
            assert sys.getswitchinterval() == FAST_SWITCH_S
        assert sys.getswitchinterval() == FAST_SWITCH_S
    assert sys.getswitchinterval() == before
