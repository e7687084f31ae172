"""mediadesk.platform.reaper, the watchdog, with real processes: a parent killed for real has its child's whole
tree ended; a child that ends first lets the watchdog go; a pid named with another start time (a reused pid)
is never taken for the process it names; the packaged app's ``--reaper`` runs the same watchdog."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import psutil
import pytest

from mediadesk.main import main as mediadesk_main
from mediadesk.platform import reaper
from mediadesk.platform.processes import process_started
from tests.support import ROOT

#: A safety net for waits on processes ending, never a speed assertion.
LIMIT_S = 60

#: Starts a tree (a child in a session of its own, which starts a grandchild), ties the child to itself
#: with end_with_us, prints the pids, then on "end" ends the child (the child ending first) and on "quit" exits.
PARENT = r"""
import json, subprocess, sys
from mediadesk.platform.reaper import end_with_us
TREE = ("import subprocess, sys, time; g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); "
        "print(g.pid, flush=True); time.sleep(600)")
child = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE, text=True, start_new_session=True)
grandchild = int(child.stdout.readline())
end_with_us(child.pid)
print(json.dumps({"child": child.pid, "grandchild": grandchild}), flush=True)
for line in sys.stdin:
    if line.strip() == "end":
        child.kill()
        child.wait()
        print("ended", flush=True)
    else:
        break
"""


def sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])


def gone(*pids: int) -> bool:
    """Every pid is gone (an unreaped zombie counts as gone: it runs nothing)."""
    procs = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            procs.append(psutil.Process(pid))
    _ended, alive = psutil.wait_procs(procs, timeout=LIMIT_S)
    return all(_zombie_or_gone(p) for p in alive)


def _zombie_or_gone(proc: psutil.Process) -> bool:
    try:
        return proc.status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


def watchdogs_of(pid: int) -> list[psutil.Process]:
    out = []
    for proc in psutil.Process(pid).children():
        with contextlib.suppress(psutil.Error):
            if reaper.__name__ in proc.cmdline():
                out.append(proc)
    return out


@pytest.fixture
def started() -> Iterator[list[int]]:
    """Pids a test started; any still running at its end is killed."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            psutil.Process(pid).kill()


def start_parent(started: list[int]) -> tuple[subprocess.Popen[str], dict[str, int], psutil.Process]:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, cwd=ROOT)
    started.append(parent.pid)
    assert parent.stdout is not None
    line = parent.stdout.readline()
    assert line, f"the parent did not start (exit {parent.wait(LIMIT_S)})"
    pids = json.loads(line)
    started += [pids["child"], pids["grandchild"]]
    dogs = watchdogs_of(parent.pid)
    assert len(dogs) == 1, [d.cmdline() for d in psutil.Process(parent.pid).children()]
    started.append(dogs[0].pid)
    return parent, pids, dogs[0]


def test_a_killed_parent_has_its_childs_whole_tree_ended(started: list[int]) -> None:
    parent, pids, dog = start_parent(started)
    assert dog.cmdline()[dog.cmdline().index("--child") + 1] == str(pids["child"])
    os.kill(parent.pid, signal.SIGKILL)
    assert parent.wait(LIMIT_S) == -signal.SIGKILL
    # nothing else ends the child: a session of its own (no hang-up), nothing written to the dead parent
    assert gone(pids["child"], pids["grandchild"]), "the watchdog did not end the child's tree"
    assert gone(dog.pid), "the watchdog did not exit after its work"


def test_a_child_that_ends_first_lets_the_watchdog_exit(started: list[int]) -> None:
    parent, pids, dog = start_parent(started)
    assert parent.stdin is not None and parent.stdout is not None
    parent.stdin.write("end\n")
    parent.stdin.flush()
    assert parent.stdout.readline() == "ended\n"
    assert gone(dog.pid), "the watchdog outlived the child it watched"
    assert parent.poll() is None  # the parent lives on: the watchdog left on its own
    assert psutil.pid_exists(pids["grandchild"])  # and it ended nothing (the orphaned grandchild is not its)
    parent.stdin.write("quit\n")
    parent.stdin.flush()
    assert parent.wait(LIMIT_S) == 0


def test_a_reused_pid_is_not_the_process_it_names(started: list[int]) -> None:
    """The watchdog's own view of identity, in this process: the parent named with another start time is
    gone (so the child is ended at once), the child named with another start time is not its to end."""
    child = sleeper()
    started.append(child.pid)
    child_started = process_started(child.pid)
    me = process_started(os.getpid())
    assert child_started is not None and me is not None
    assert reaper.watch(os.getpid(), me, child.pid, child_started - 5, poll_s=0.01) == 0
    assert child.poll() is None  # another process than the one named: left alone
    assert reaper.watch(os.getpid(), me - 5, child.pid, child_started, poll_s=0.01, grace_s=5) == 0
    # the named parent is "gone": the child was ended (and reaped by the watch, our child here: no code left)
    assert child.poll() is not None


def test_the_packaged_app_runs_the_watchdog_with_its_hidden_argument(
    started: list[int], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    command = reaper.watchdog_command(os.getpid(), 1.0, 2, 3.0)
    assert command[:2] == [sys.executable, reaper.FROZEN_FLAG]
    monkeypatch.delattr(sys, "frozen")
    assert reaper.watchdog_command(os.getpid(), 1.0, 2, 3.0)[:3] == [sys.executable, "-m", "mediadesk.platform.reaper"]
    child = sleeper()
    started.append(child.pid)
    child_started = process_started(child.pid)
    assert child_started is not None
    # ``mediadesk --reaper ...`` with a parent that is gone (a start time no process has) ends the child
    args = reaper.watchdog_command(os.getpid(), 1.0, child.pid, child_started)[3:]
    assert mediadesk_main([reaper.FROZEN_FLAG, *args]) == 0
    assert child.poll() is not None
