"""Single instance over a real QLocalServer/QLocalSocket, including a real second process and a
real SIGKILLed first instance (its socket file stays behind, and ``listen()`` fails with "address
in use" until the stale name is removed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from mediadesk.ui.app.single_instance import SingleInstance, SingleInstanceError, bring_to_front, instance_key

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def key() -> str:
    # Unique per test: socket names live in a machine-wide namespace (/tmp on Unix).
    return f"mediadesk-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def instances(qapp: object) -> Iterator[list[SingleInstance]]:
    made: list[SingleInstance] = []
    yield made
    for inst in made:
        inst.close()


def _python(code: str) -> subprocess.Popen[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env,
    )


def _reap(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """Kill (if still alive) and collect a child we started, closing its pipes."""
    if proc.poll() is None:
        proc.kill()
    return proc.communicate(timeout=10)


def test_instance_key_is_stable_short_and_per_dir(tmp_path: Path) -> None:
    a = instance_key(tmp_path / "a")
    assert a == instance_key(tmp_path / "a" / ".." / "a")  # resolved
    assert a != instance_key(tmp_path / "b")
    assert a.startswith("mediadesk-") and len(a) == len("mediadesk-") + 16
    assert all(c.isalnum() or c == "-" for c in a)


def test_second_instance_activates_first(qtbot: Any, key: str, instances: list[SingleInstance]) -> None:
    first = SingleInstance(key)
    instances.append(first)
    calls: list[int] = []
    first.listen(lambda: calls.append(1))
    assert first.listening

    second = SingleInstance(key)
    instances.append(second)
    assert second.activate_existing() is True
    qtbot.waitUntil(lambda: calls == [1], timeout=5000)

    # A third start works the same; each activation is one callback.
    assert SingleInstance(key).activate_existing() is True
    qtbot.waitUntil(lambda: calls == [1, 1], timeout=5000)


def test_no_instance_after_close(qtbot: Any, key: str, instances: list[SingleInstance]) -> None:
    assert SingleInstance(key).activate_existing(timeout_ms=200) is False
    first = SingleInstance(key)
    instances.append(first)
    first.listen(lambda: None)
    first.close()
    assert not first.listening
    assert SingleInstance(key).activate_existing(timeout_ms=200) is False
    # The name is free again: a new first instance can take it.
    again = SingleInstance(key)
    instances.append(again)
    again.listen(lambda: None)
    assert again.listening


def test_listen_refuses_when_a_live_instance_holds_the_name(key: str, instances: list[SingleInstance]) -> None:
    first = SingleInstance(key)
    instances.append(first)
    first.listen(lambda: None)
    second = SingleInstance(key)
    instances.append(second)
    with pytest.raises(SingleInstanceError):
        second.listen(lambda: None)
    assert first.listening  # the live instance's name was not removed


def test_real_second_process_activates_us(qtbot: Any, key: str, instances: list[SingleInstance]) -> None:
    first = SingleInstance(key)
    instances.append(first)
    calls: list[int] = []
    first.listen(lambda: calls.append(1))
    proc = _python(f"""
        from PySide6.QtCore import QCoreApplication
        from mediadesk.ui.app.single_instance import SingleInstance
        app = QCoreApplication([])
        print("delivered" if SingleInstance({key!r}).activate_existing(2000) else "none", flush=True)
    """)
    try:
        # Process Qt events while the child runs: our server must accept and read.
        qtbot.waitUntil(lambda: proc.poll() is not None, timeout=30_000)
    finally:
        out, err = _reap(proc)
    assert out.strip() == "delivered", err
    qtbot.waitUntil(lambda: calls == [1], timeout=5000)


def test_stale_socket_of_a_killed_instance_is_recovered(qtbot: Any, key: str, instances: list[SingleInstance]) -> None:
    proc = _python(f"""
        import time
        from PySide6.QtCore import QCoreApplication
        from mediadesk.ui.app.single_instance import SingleInstance
        app = QCoreApplication([])
        inst = SingleInstance({key!r})
        inst.listen(lambda: None)
        print("listening", flush=True)
        time.sleep(60)
    """)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "listening"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        _reap(proc)
    assert proc.returncode == -signal.SIGKILL
    # The dead instance left its socket behind: nobody answers, but the name is taken.
    assert SingleInstance(key).activate_existing(timeout_ms=300) is False

    calls: list[int] = []
    first = SingleInstance(key)
    instances.append(first)
    first.listen(lambda: calls.append(1))  # removes the stale name and retries
    assert first.listening
    assert SingleInstance(key).activate_existing() is True
    qtbot.waitUntil(lambda: calls == [1], timeout=5000)


def test_bring_to_front_restores_a_minimized_window(qtbot: Any) -> None:
    w = QWidget()
    qtbot.addWidget(w)
    w.showMaximized()
    w.setWindowState(w.windowState() | Qt.WindowState.WindowMinimized)
    assert w.windowState() & Qt.WindowState.WindowMinimized
    bring_to_front(w)
    state = w.windowState()
    assert not state & Qt.WindowState.WindowMinimized
    assert state & Qt.WindowState.WindowMaximized  # a maximised window comes back maximised
    assert w.isVisible()
