"""``adapter check`` for the faces (CLI, console): the provider is imported only when a check runs.

The faces never import ``mediadesk.providers``; they call :func:`check_adapter` and read the result
(``mediadesk.providers.web.check.AdapterCheckResult``: ``keys`` with ``key``/``selector``/``status``/
``detail``, ``screenshots``, ``answer``, ``done_reason``, ``error``, ``ok``). Everything in it that
came from the page (details, answer, error) is page text: escape it before printing.

:func:`check_all_accounts` checks every enabled web account, one row each (:class:`AccountCheckRow`).

Verified: the bundled adapters are written from public descriptions of their sites; an operator's
passing check on the live site (the test prompt answered, every key fitting) is what verifies one. Each
such check is recorded per account in ``<data dir>/verified_adapters.json`` (private, written
atomically; the adapter's name and version, the site's host, the answer's source and the UTC date, no
secret): :func:`verified` reads it back, :func:`verified_text` says it in English.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from mediadesk.config.model import AppConfig, ConfigError
from mediadesk.config.workspace import Workspace
from mediadesk.files.safe import UnsafePathError, refuse_symlink, write_private_file

if TYPE_CHECKING:
    from mediadesk.providers.web.check import AdapterCheckResult
    from mediadesk.scheduler.scheduler import Scheduler

__all__ = [
    "VERIFIED_FILE",
    "AccountCheckRow",
    "AdapterCheckError",
    "Verified",
    "check_account",
    "check_adapter",
    "check_all_accounts",
    "checked_accounts",
    "default_test_prompt",
    "teach_adapter",
    "verified",
    "verified_text",
]

log = logging.getLogger(__name__)

#: Each account's last passing check on the live site, in the data dir.
VERIFIED_FILE = "verified_adapters.json"


class AdapterCheckError(Exception):
    """The check could not run: the account is in use, no browser, the browser did not start."""


@dataclass(frozen=True)
class Verified:
    """An account's last passing check of an adapter on the live site."""

    site: str  # the adapter's name
    version: str  # its ``version`` key then ("" when none)
    host: str  # the site's host, e.g. chat.deepseek.com
    source: str  # what gave the test prompt's answer: "stream" or "page"
    on: str  # the UTC date, YYYY-MM-DD


@dataclass(frozen=True)
class AccountCheckRow:
    """One account's line of :func:`check_all_accounts`."""

    account: str
    site: str  # the adapter's name
    version: str  # the adapter's ``version`` key ("" when none)
    keys: str  # each key's status compressed, e.g. "prompt ok, send ok, answer by role, stop missing"
    source: str  # "stream" (answer read from the site's stream), "page", or "" when no answer
    verdict: str  # "ok" | "needs attention" | "logged out" | "failed"
    detail: str  # one line: why not ok (page text: the caller escapes it)
    verified: Verified | None  # this account's last verification of this adapter, after this check


def _verified_path(workspace: Workspace) -> Path:
    return workspace.data_dir / VERIFIED_FILE


def _read_verified(workspace: Workspace) -> dict[str, Verified]:
    """Every account's record; a file that cannot be read counts as none (and is said in the log)."""
    path = _verified_path(workspace)
    try:
        refuse_symlink(path, "verified adapters file")
        if not path.is_file():
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnsafePathError) as exc:
        log.warning("adapter check: %s cannot be read (%s); no adapter counts as verified", path, exc)
        return {}
    accounts = data.get("accounts") if isinstance(data, dict) else None
    names = [f.name for f in fields(Verified)]
    out: dict[str, Verified] = {}
    for account, rec in (accounts or {}).items() if isinstance(accounts, dict) else ():
        if isinstance(rec, dict) and all(isinstance(rec.get(n), str) for n in names):
            out[account] = Verified(**{n: rec[n] for n in names})
    return out


def verified(workspace: Workspace, account: str) -> Verified | None:
    """``account``'s last passing check on the live site (of the adapter it names: compare ``site`` with
    the adapter the account uses now), or None."""
    return _read_verified(workspace).get(account)


def verified_text(v: Verified | None, current_version: str) -> str:
    """In English, for the CLI: whether the adapter in use, at ``current_version``, is verified."""
    if v is None:
        return "not verified on the live site yet"
    if v.version != current_version:
        return f"verified on {v.host} on {v.on} for an older adapter version ({v.version or 'none'}); check again"
    version = f"adapter {v.version}" if v.version else "adapter without a version"
    return f"verified on {v.host} on {v.on} ({version}, answer from the {v.source})"


def _passed(result: AdapterCheckResult) -> bool:
    """Every key fits and the test prompt was answered."""
    return result.ok and result.answer is not None and bool(result.answer_source)


def _write_verified(workspace: Workspace, account: str, record: Verified) -> None:
    records = _read_verified(workspace)
    records[account] = record
    data = {"version": 1, "accounts": {a: asdict(v) for a, v in sorted(records.items())}}
    write_private_file(_verified_path(workspace), json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                       "verified adapters file")


async def _record_verified(workspace: Workspace, result: AdapterCheckResult, say: Callable[[str], None]) -> None:
    """Keep ``result`` (a check of the adapter its account uses) as the account's verification when it
    passed; a file that cannot be written is said, and the check's result stands."""
    if not _passed(result) or not result.account:
        return
    record = Verified(site=result.site, version=result.version, host=result.host, source=result.answer_source or "",
                      on=datetime.now(UTC).date().isoformat())
    try:
        await asyncio.to_thread(_write_verified, workspace, result.account, record)
    except (OSError, UnsafePathError) as exc:
        path = _verified_path(workspace)
        log.warning("adapter check: %s cannot be written (%s)", path, exc)
        say(f"the verification could not be recorded: {path} cannot be written ({exc})")


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
    was decided. A passing check of the adapter the account uses (not of a ``.toml`` file) verifies it
    (:func:`verified`). Raises ``ConfigError`` (unknown site/account) or :class:`AdapterCheckError`.

    The account's lock is taken: a lane running on that account must be stopped first."""
    from mediadesk.providers.web.check import DEFAULT_TEST_PROMPT, check_site
    from mediadesk.providers.web.errors import WebLaneError

    text = (prompt or DEFAULT_TEST_PROMPT) if send_prompt else None
    try:
        result = await check_site(config, workspace, site, account=account, prompt=text, out_dir=out_dir,
                                  progress=say)
    except WebLaneError as exc:
        raise AdapterCheckError(str(exc)) from exc
    acct = next((a for a in config.accounts if a.name == result.account), None)
    if acct is not None and config.profile(acct.profile).site == site:  # not a draft .toml, nor another site's
        await _record_verified(workspace, result, say)
    return result


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
    MediaDesk runs the account). A passing check verifies the adapter for the account (:func:`verified`).
    Raises ``ConfigError`` or :class:`AdapterCheckError`."""
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
    await _record_verified(workspace, result, say)
    return result


def _keys_summary(result: AdapterCheckResult) -> str:
    """Each key's status in a few words ("found" is "ok"; a key whose part the run found by role instead
    is "by role"); keys shown only at times and not on the page ("not shown": normal) are left out."""
    by_role = {k.key for k in result.keys if any(f"adapter key {k.key!r}" in n and "by role" in n
                                                 for n in result.notes)}
    return ", ".join(f"{k.key} {'by role' if k.key in by_role else 'ok' if k.status == 'found' else k.status}"
                     for k in result.keys if k.status != "not shown" or k.key in by_role)


def _of_site(v: Verified | None, site: str) -> Verified | None:
    return v if v is not None and v.site == site else None


def _row(account: str, result: AdapterCheckResult, v: Verified | None) -> AccountCheckRow:
    from mediadesk.providers.web.check import BAD_STATUSES

    bad = [k.key for k in result.keys if k.status in BAD_STATUSES]
    why = [result.error] if result.error else []
    why += [f"{len(bad)} key(s) do not fit: {', '.join(bad)}"] if bad else []
    if result.error_kind == "needs_login":  # the keys of the chat page are not on the login page
        verdict, why = "logged out", why[:1]
    elif _passed(result):
        verdict, why = "ok", []
    else:
        verdict, why = "needs attention", why or ["the test prompt was not answered"]
    return AccountCheckRow(account=account, site=result.site, version=result.version, keys=_keys_summary(result),
                           source=result.answer_source or "", verdict=verdict, detail=" ".join("; ".join(why).split()),
                           verified=_of_site(v, result.site))


def _failed_row(config: AppConfig, workspace: Workspace, account: str, profile: str, why: str) -> AccountCheckRow:
    """The row of a check that could not run: the adapter's version as far as it can be loaded."""
    from mediadesk.providers.web.sites import adapter_for

    site = config.profile(profile).site or ""
    try:
        version = adapter_for(config, workspace, config.profile(profile)).version
    except Exception:  # a broken adapter: ``why`` says so
        version = ""
    return AccountCheckRow(account=account, site=site, version=version, keys="", source="", verdict="failed",
                           detail=" ".join(why.split()), verified=_of_site(verified(workspace, account), site))


def checked_accounts(config: AppConfig) -> list[str]:
    """The accounts :func:`check_all_accounts` checks, in its order: every enabled account of a web profile."""
    return [a.name for a in config.accounts
            if a.enabled and config.profile(a.profile).kind == "web" and config.profile(a.profile).site is not None]


async def check_all_accounts(
    config: AppConfig,
    workspace: Workspace,
    *,
    scheduler: Scheduler | None = None,
    prompt: str | None = None,
    say: Callable[[str], None] = lambda _m: None,
    on_row: Callable[[AccountCheckRow], None] = lambda _row: None,
    on_start: Callable[[str], None] = lambda _account: None,
) -> list[AccountCheckRow]:
    """:func:`check_account` (with the test prompt) on every enabled web account of ``config``, one
    after another; ``on_row`` is called as each row is ready. One account's failure never stops the
    others: a logged-out account is a row "logged out", a check that could not run (the browser did not
    start, the account is in use) a row "failed" with the reason."""
    rows: list[AccountCheckRow] = []
    names = set(checked_accounts(config))
    for acct in (a for a in config.accounts if a.name in names):
        name, profile = acct.name, config.profile(acct.profile)
        on_start(name)

        def said(message: str, name: str = name) -> None:
            say(f"{name}: {message}")

        try:
            result = await check_account(config, workspace, name, scheduler=scheduler, prompt=prompt, say=said)
        except (ConfigError, AdapterCheckError) as exc:
            row = _failed_row(config, workspace, name, profile.name, str(exc))
        except Exception as exc:  # a bug of ours on one account: the others are still checked
            log.exception("adapter check of account %s failed", name)
            row = _failed_row(config, workspace, name, profile.name, f"{type(exc).__name__}: {exc}")
        else:
            row = _row(name, result, verified(workspace, name))
        rows.append(row)
        on_row(row)
    return rows
