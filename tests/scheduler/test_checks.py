"""Probe / test / login through the scheduler's one entry: the faces import no provider, and an
edited config's endpoint is tested over real HTTP against the simulator on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from mediadesk.scheduler.checks import Checks
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.support import make_config

FACES = """
import sys
import mediadesk.cli
import mediadesk.ui.window.main_window, mediadesk.ui.dialogs.setup_editor
loaded = sorted(m for m in sys.modules if m.startswith('playwright') or m.startswith('mediadesk.providers.api'))
print('loaded:', loaded)
"""


def test_the_faces_load_no_browser_driver_and_no_api_client() -> None:
    """The console used to import the API backend and the web backend (Playwright) with the setup
    editor; both are now loaded only when a check or a lane needs them."""
    out = subprocess.run([sys.executable, "-c", FACES], capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    assert "loaded: []" in out.stdout, out.stdout


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_an_endpoint_and_a_profile_of_an_unsaved_config_are_tested() -> None:
    async with ApiSimServer(ApiSimConfig(latency=(0.0, 0.0), seed=2)) as sim:
        cfg = make_config([{"name": "writer", "kind": "api", "endpoint": "sim", "model": "m"},
                           {"name": "chat", "kind": "web", "site": "simchat", "url": "http://127.0.0.1:9/"}],
                          endpoints=[{"name": "sim", "base_url": sim.base_url}])
        checks = Checks(cfg)
        ok = await checks.test_endpoint("sim")
        assert ok.ok and ok.seen == "HTTP 200" and ok.elapsed_ms >= 0, ok
        assert (await checks.test_profile("writer")).ok
        with pytest.raises(ValueError, match="web profile"):
            await checks.test_profile("chat")
    gone = make_config([{"name": "writer", "kind": "api", "endpoint": "sim", "model": "m"}],
                       endpoints=[{"name": "sim", "base_url": f"http://127.0.0.1:{_closed_port()}/v1"}])
    bad = await Checks(gone).test_endpoint("sim")
    assert not bad.ok and "connect" in bad.seen.lower(), bad
