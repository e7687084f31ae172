"""``adapter check`` for the faces (CLI, console): the provider is imported only when a check runs.

The faces never import ``mediadesk.providers``; they call :func:`check_adapter` and read the result
(``mediadesk.providers.web.check.AdapterCheckResult``: ``keys`` with ``key``/``selector``/``status``/
``detail``, ``screenshots``, ``answer``, ``done_reason``, ``error``, ``ok``). Everything in it that
came from the page (details, answer, error) is page text: escape it before printing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mediadesk.config.model import AppConfig, ConfigError
from mediadesk.config.workspace import Workspace

if TYPE_CHECKING:
    from mediadesk.providers.web.check import AdapterCheckResult
    from mediadesk.scheduler.scheduler import Scheduler

__all__ = ["AdapterCheckError", "check_account", "check_adapter", "default_test_prompt", "teach_adapter"]


class AdapterCheckError(Exception):
    """The check could not run: the account is in use, no browser, the browser did not start."""


def default_test_prompt() -> str:
    from mediadesk.providers.web.check import DEFAULT_TEST_PROMPT

    return DEFAULT_TEST_PROMPT


async def check_adapter(
    config: AppConfig,
    workspace: Workspace,
    site: str,
    *,
    account: str | None = None,
    prompt: str | None = None,
    send_prompt: bool = True,
    out_dir: Path | None = None,
    say: Callable[[str], None] = lambda _m: None,
) -> AdapterCheckResult:
    """Open ``site`` (an adapter name or a ``.toml`` file) on ``account``'s profile (default: the first
    account whose profile uses it) and report each key, with screenshots; then, unless
    ``send_prompt`` is false, send ``prompt`` (default: a short test prompt) and say how completion
    was decided. Raises ``ConfigError`` (unknown site/account) or :class:`AdapterCheckError`.

    The account's lock is taken: a lane running on that account must be stopped first."""
    from mediadesk.providers.web.check import DEFAULT_TEST_PROMPT, check_site
    from mediadesk.providers.web.errors import WebLaneError

    text = (prompt or DEFAULT_TEST_PROMPT) if send_prompt else None
    try:
        return await check_site(config, workspace, site, account=account, prompt=text, out_dir=out_dir, progress=say)
    except WebLaneError as exc:
        raise AdapterCheckError(str(exc)) from exc


async def teach_adapter(
    config: AppConfig,
    workspace: Workspace,
    url: str,
    *,
    account: str,
    name: str | None = None,
    out: Path | None = None,
    force: bool = False,
    visible: bool = True,
    say: Callable[[str], None] = lambda _m: None,
) -> tuple[Path | None, AdapterCheckResult | None]:
    """Teach mode (``adapter new``): a VISIBLE browser on ``account``'s profile at ``url``; the operator
    clicks the message box, the send button and the answer. Writes the adapter TOML (``out``, default
    ``<sites dir>/<name>.toml``) and returns its path and the check of it. Raises ``ConfigError`` or
    :class:`AdapterCheckError`. ``visible=False`` (headless) is for tests that click for the operator."""
    from mediadesk.providers.web.errors import WebLaneError
    from mediadesk.providers.web.teach import teach_site

    try:
        taught = await teach_site(config, workspace, url, account=account, name=name, out=out, force=force,
                                  headless=not visible, progress=say)
    except WebLaneError as exc:
        raise AdapterCheckError(str(exc)) from exc
    return taught.path, taught.check


async def check_account(
    config: AppConfig,
    workspace: Workspace,
    account: str,
    *,
    scheduler: Scheduler | None = None,
    prompt: str | None = None,
    send_prompt: bool = True,
    out_dir: Path | None = None,
    say: Callable[[str], None] = lambda _m: None,
    on_busy: Callable[[list[str]], None] = lambda _ids: None,
) -> AdapterCheckResult:
    """``adapter check`` of the site ``account`` uses, on that account's profile (the console's "Check
    adapter"). One account, one browser at a time, so with a running ``scheduler`` whose lane drives
    the account the check runs in that lane's own browser: the account first stops taking new tasks
    (:meth:`Scheduler.hold_account`); if it is running one, ``on_busy`` is told which, and the check
    waits until it has ended; the account takes tasks again afterwards. Without one, a browser is
    started for the check (:func:`check_adapter`; the account's lock refuses it while another
    MediaDesk runs the account). Raises ``ConfigError`` or :class:`AdapterCheckError`."""
    acct = next((a for a in config.accounts if a.name == account), None)
    if acct is None:
        raise ConfigError(f"no account {account!r}")
    profile = config.profile(acct.profile)
    if profile.kind != "web" or profile.site is None:
        raise ConfigError(f"account {account!r} uses profile {profile.name!r}, which is not a web profile")
    text = (prompt or default_test_prompt()) if send_prompt else None
    lane = None if scheduler is None else next((ln for ln in scheduler.lanes if ln.account == account), None)
    own = lane.backend.check_adapter if lane is not None else None
    if scheduler is None or own is None:
        return await check_adapter(config, workspace, profile.site, account=account, prompt=prompt,
                                   send_prompt=send_prompt, out_dir=out_dir, say=say)
    from mediadesk.providers.web.errors import WebLaneError

    running = scheduler.hold_account(account)
    try:
        if running:
            on_busy([r.task_id for r in running])
        result: AdapterCheckResult = await own(prompt=text, out_dir=out_dir or workspace.evidence_dir / "adapter-check",
                                               progress=say)
    except WebLaneError as exc:
        raise AdapterCheckError(str(exc)) from exc
    finally:
        scheduler.release_account(account)
    return result
