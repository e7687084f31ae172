"""The bundled demo workspace: both simulators on 127.0.0.1, two web accounts, two API profiles.

Works with no account and no network. The simulators' run times are scaled down so both lanes visibly work
within a minute. The demo accounts log themselves in (automatic login, with the simulator's demo credentials
put in this process's environment) while their lanes warm up, after the console's window is up;
``login=True`` (``mediadesk demo``) logs in first, at the cost of a Chromium start per account. A data dir
given by the caller may be in use by another MediaDesk: its lock is checked first (:func:`demo_environment`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from mediadesk.config.model import AppConfig, load_config
from mediadesk.config.workspace import Workspace, resources_dir
from mediadesk.files.locks import OwnedFileLock
from mediadesk.files.safe import ensure_private_dir, write_private_file
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.sim.web_server import WebSimConfig, WebSimServer

DEMO_ACCOUNTS = ("demo-a", "demo-b")

CONFIG_TEMPLATE = """\
# MediaDesk demo workspace (written by `mediadesk demo` / the console's demo mode).
data_dir = "{data_dir}"

[retry]
max_retries = 2
backoff_base_s = 0.5
backoff_max_s = 10

[heartbeat]
interval_s = 2
stale_after_s = 12

[browser]
headless = true
recycle_after = 50

[[profiles]]
name = "writer"
kind = "api"
base_url = "{api_url}"
model = "sim-writer"
concurrency = 3
stream = true
instructions = "You are a concise assistant. Answer in the language of the question."
timeout_s = 30

[[profiles]]
name = "reasoner"
kind = "api"
base_url = "{api_url}"
model = "sim-reasoner"
concurrency = 2
need_empty_prompt = true   # reasoning model: user content only, no system prompt
instructions = "(never sent while need_empty_prompt is on)"
timeout_s = 30

[[profiles]]
name = "chat"
kind = "web"
site = "simchat"
url = "{chat_url}"
instructions = "Answer briefly."

[[accounts]]
name = "demo-a"
profile = "chat"
login_user_env = "MEDIADESK_DEMO_USER_A"   # the simulator's demo login (no secret)
login_password_env = "MEDIADESK_DEMO_PASSWORD"
login_cooldown_s = 5

[[accounts]]
name = "demo-b"
profile = "chat"
login_user_env = "MEDIADESK_DEMO_USER_B"
login_password_env = "MEDIADESK_DEMO_PASSWORD"
login_cooldown_s = 5
"""

#: The simulator's demo credentials, as the demo config names them (not secrets: the simulator
#: accepts any account with the password "demo").
DEMO_LOGIN_ENV = {"MEDIADESK_DEMO_USER_A": "demo-a", "MEDIADESK_DEMO_USER_B": "demo-b",
                  "MEDIADESK_DEMO_PASSWORD": "demo"}

#: The steps :func:`demo_environment` reports through ``on_step`` (the console says them in words).
STEPS = ("simulators", "workspace", "login")


@dataclass
class DemoEnv:
    config: AppConfig
    config_path: Path
    workspace: Workspace
    batch_path: Path
    api: ApiSimServer
    web: WebSimServer


@asynccontextmanager
async def demo_environment(
    data_dir: Path | None = None, *, web_time_scale: float = 0.03, api_time_scale: float = 0.1,
    login: bool = True, on_step: Callable[[str], None] = lambda _step: None,
) -> AsyncIterator[DemoEnv]:
    """Start the simulators, write the demo config, log the demo accounts in (``login``; else
    their lanes do it as they start); stop on exit. ``on_step``: each of :data:`STEPS` as it
    starts. Raises ``InstanceLockedError`` (a ``LockHeldError``, naming the holder) when another
    MediaDesk uses ``data_dir``: then nothing is written."""
    data_dir = (data_dir or Path(tempfile.mkdtemp(prefix="mediadesk-demo-"))).resolve()
    ensure_private_dir(data_dir, tighten=False, what="demo folder")
    # Another MediaDesk on this folder uses its config.toml (its simulators' ports) and its browser
    # profiles: check its data-dir lock before writing anything, and hold it while the demo writes
    # and logs in (the scheduler takes it over right after).
    guard = data_dir_guard(data_dir)
    guard.acquire()  # InstanceLockedError (a LockHeldError) naming the holder: nothing written
    try:
        env = await _prepare(data_dir, web_time_scale, api_time_scale, login, on_step)
    finally:
        guard.release()
    api, web = env.api, env.web
    try:
        yield env
    finally:
        try:
            await web.stop()
        finally:
            await api.stop()


def data_dir_guard(data_dir: Path) -> OwnedFileLock:
    """The lock of one MediaDesk per data dir (the scheduler's own, taken the same way)."""
    from mediadesk.providers.web.profile_lock import InstanceLock

    return InstanceLock(data_dir)


async def _prepare(data_dir: Path, web_time_scale: float, api_time_scale: float, login: bool,
                   on_step: Callable[[str], None]) -> DemoEnv:
    """Start the simulators, write the config and the batch, log the accounts in (all stopped again
    when a step fails)."""
    on_step("simulators")
    for name, value in DEMO_LOGIN_ENV.items():
        os.environ.setdefault(name, value)
    api = ApiSimServer(ApiSimConfig(latency=(8.0, 20.0), time_scale=api_time_scale, quota=5, fail_rate=0.05,
                                    retry_after_s=0.5, seed=7))
    web = WebSimServer(WebSimConfig(time_scale=web_time_scale, seed=7))
    await api.start()
    try:
        await web.start()
        try:
            on_step("workspace")
            config_path = data_dir / "config.toml"
            write_private_file(
                config_path, CONFIG_TEMPLATE.format(data_dir=data_dir, api_url=api.base_url, chat_url=web.chat_url)
            )
            config = load_config(config_path)
            ws = Workspace.resolve(data_dir=data_dir).ensure()
            batch_path = data_dir / "demo-batch.jsonl"
            write_private_file(batch_path, (resources_dir() / "demo" / "batch.jsonl").read_bytes())
            if login:
                on_step("login")
                await _login_demo_accounts(config, ws, web)
            return DemoEnv(config, config_path, ws, batch_path, api, web)
        except BaseException:
            await web.stop()
            raise
    except BaseException:
        await api.stop()
        raise


async def _login_demo_accounts(config: AppConfig, ws: Workspace, web: WebSimServer) -> None:
    """Demo only: fill the simulator's login form once per account profile (an operator does this
    by hand with `mediadesk login` on a real site)."""
    from mediadesk.providers.web.login import login_with_form

    for acc in config.accounts:
        await login_with_form(
            config, ws, acc.name, web.login_url,
            fields={"#account": acc.name, "#password": "demo"}, submit="button.login", logged_in=".avatar",
        )
