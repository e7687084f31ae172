"""``mediadesk adapter check``: does a site adapter still fit its site? Look, show, then try once.

Selectors rot when a site updates, and a failing task says little about which key broke. The check opens the
site on an account's profile the way a lane does (account lock, self-check, owned browser), reports each key's
status (:class:`KeyReport`: found, missing, ambiguous, covered, invalid, not shown), saves a screenshot with the
elements found outlined, then sends one test prompt through the real :class:`PageDriver`. Everything the page
says is returned as data: whoever prints it must escape it (it comes from a web page).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Page

from mediadesk.config.model import AppConfig, ConfigError
from mediadesk.config.workspace import Workspace
from mediadesk.files.safe import ensure_private_dir, write_private_file
from mediadesk.providers.web.adapter import SiteAdapter, load_adapter
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.errors import AccountLockedError, WebLaneError
from mediadesk.providers.web.finder import find_browser
from mediadesk.providers.web.launcher import OwnedBrowser
from mediadesk.providers.web.playwright_hub import PlaywrightHub
from mediadesk.providers.web.profile_lock import AccountLock
from mediadesk.providers.web.selfcheck import self_check
from mediadesk.providers.web.sites import adapter_for, site_adapters

__all__ = ["BAD_STATUSES", "DEFAULT_TEST_PROMPT", "AdapterCheckResult", "KeyReport", "check_page", "check_site"]

log = logging.getLogger(__name__)

DEFAULT_TEST_PROMPT = "Reply with one short sentence: this is a MediaDesk adapter check."
#: Statuses that mean the adapter does not fit the page.
BAD_STATUSES = frozenset({"missing", "ambiguous", "covered", "invalid"})
#: Keys present on a logged-in chat page at rest; the driver takes the FIRST visible match of the
#: unique ones, so several visible matches are ambiguous.
_AT_REST = (("logged_in", False), ("prompt", True), ("send", True), ("new_chat", True))
#: Keys shown only at times (while generating, on a failure, when logged out).
_AT_TIMES = ("busy", "stop", "error", "busy_selector", "logged_out")
_SAMPLE_S = 0.1  # how often busy/stop are looked at during the test run


def _script(name: str) -> str:
    pkg = resources.files("mediadesk.providers.web")
    helpers = pkg.joinpath("js", "helpers.js").read_text(encoding="utf-8")
    return "(cfg) => {\n" + helpers + "\n" + pkg.joinpath("js", name).read_text(encoding="utf-8") + "\n}"


_KEYS_JS = _script("check_keys.js")
_OVERLAY_JS = _script("check_overlay.js")


@dataclass(frozen=True)
class KeyReport:
    key: str
    selector: str
    status: str  # found | missing | ambiguous | covered | invalid | not shown
    detail: str = ""  # what was matched / what covers it / how many (page text: escape before printing)


@dataclass(frozen=True)
class AdapterCheckResult:
    site: str
    account: str | None
    url: str
    keys: tuple[KeyReport, ...]
    screenshots: tuple[Path, ...] = ()
    prompt: str | None = None
    answer: str | None = None
    #: "stream ended" or "page settled" (see driver.RunTimings.done_reason); None without an answer.
    done_reason: str | None = None
    #: What gave the answer: "stream" (the adapter's [stream] decoder read the site's own stream) or
    #: "page" (the page's answer element); None without an answer.
    answer_source: str | None = None
    stream_events: tuple[str, ...] = ()
    #: Why the page could not be opened or the test prompt failed (page text: escape before printing).
    error: str | None = None
    notes: tuple[str, ...] = field(default=())
    #: The adapter's ``version`` key ("" when none) and the host of the site it opened.
    version: str = ""
    host: str = ""
    #: What kind of failure ``error`` is (an ``ErrorKind`` value: "needs_login" for a logged-out
    #: account); None without an error.
    error_kind: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and not any(k.status in BAD_STATUSES for k in self.keys)

    def status_of(self, key: str) -> str | None:
        return next((k.status for k in self.keys if k.key == key), None)


def _selector(adapter: SiteAdapter, key: str) -> str | None:
    value = adapter.stop_selector if key == "stop" else getattr(adapter, key, None)
    if isinstance(value, (list, tuple)):  # a list of selectors: the first that matches is used
        value = ", ".join(str(v) for v in value)
    return value if isinstance(value, str) and value else None


def _report(key: str, row: dict[str, Any], *, unique: bool, at_times: bool) -> KeyReport:
    sel = row["sel"]
    if row["invalid"]:
        return KeyReport(key, sel, "invalid", "the browser rejects this selector")
    if not row["visible"]:
        if at_times:
            return KeyReport(key, sel, "not shown", "not on the page now (shown only at times)")
        hidden = f"{row['count']} match(es), none visible" if row["count"] else "no element matches"
        return KeyReport(key, sel, "missing", hidden)
    if row["coveredBy"]:
        return KeyReport(key, sel, "covered", f"{row['element']} is covered by {row['coveredBy']}")
    if unique and row["visible"] > 1:
        first = row["element"]
        return KeyReport(key, sel, "ambiguous", f"{row['visible']} visible matches; the first is used: {first}")
    more = f" (+{row['visible'] - 1} more)" if row["visible"] > 1 else ""
    return KeyReport(key, sel, "found", f"{row['element']}{more}")


async def _look(page: Page, keys: list[tuple[str, str]]) -> dict[str, dict[str, Any]]:
    rows = await page.evaluate(_KEYS_JS, {"keys": [list(k) for k in keys], "pollMs": 250})
    return {r["key"]: r for r in rows}


async def _shot(page: Page, rows: dict[str, dict[str, Any]], reports: list[KeyReport], path: Path) -> Path | None:
    """A full-page PNG with each element found outlined and labelled (red: covered or ambiguous)."""
    status = {r.key: r.status for r in reports}
    boxes = [{"label": key, "bad": status.get(key) in BAD_STATUSES, **row["box"]}
             for key, row in rows.items() if row.get("box") and status.get(key) != "not shown"]  # fmt: skip
    try:
        await page.evaluate(_OVERLAY_JS, {"boxes": boxes, "pollMs": 250})
        try:
            png = await page.screenshot(full_page=True, timeout=10_000)
        finally:
            with contextlib.suppress(Exception):
                await page.evaluate(_OVERLAY_JS, {"remove": True, "pollMs": 250})
        await asyncio.to_thread(write_private_file, path, png, "adapter check screenshot")
        return path
    except Exception as exc:  # a screenshot is evidence, never the reason a check fails
        log.warning("adapter check: screenshot failed: %s", exc)
        return None


def _send_shown_when_typed(reports: dict[str, KeyReport], warnings: Sequence[str]) -> None:
    """Many sites show the send button only once the prompt box has text (a microphone in its place
    while it is empty): a ``send`` missing at rest that the test run clicked without falling back (no
    warning names it) is found, and the report says when it shows."""
    rep = reports.get("send")
    if rep is not None and rep.status == "missing" and not any("'send'" in w for w in warnings):
        reports["send"] = KeyReport("send", rep.selector, "found",
                                    "shown only once the prompt box has text; it sent the test prompt")


async def check_page(
    page: Page,
    adapter: SiteAdapter,
    *,
    out_dir: Path,
    stem: str,
    prompt: str | None = DEFAULT_TEST_PROMPT,
    progress: Callable[[str], None] = log.info,
) -> AdapterCheckResult:
    """Check ``adapter`` on ``page`` (a page of a logged-in browser context; opened here)."""
    await asyncio.to_thread(ensure_private_dir, out_dir, what="adapter check folder")
    driver = PageDriver(adapter)
    site = adapter.name or adapter.url
    error: str | None = None
    error_kind: str | None = None
    progress(f"opening {adapter.url}")
    try:
        await driver.prepare(page)
    except WebLaneError as exc:
        error, error_kind = f"{type(exc).__name__}: {exc}", exc.kind.value
        progress(f"the page is not ready: {error}")
    rest_keys = [(k, s) for k, _u in _AT_REST if (s := _selector(adapter, k))]
    times_keys = [(k, s) for k in _AT_TIMES if (s := _selector(adapter, k))]
    if adapter.stop is None:  # stop falls back to busy: one report is enough
        times_keys = [(k, s) for k, s in times_keys if k != "stop"]
    rows = await _look(page, rest_keys + times_keys)
    unique = dict(_AT_REST)
    reports = {k: _report(k, row, unique=unique.get(k, False), at_times=k in _AT_TIMES) for k, row in rows.items()}
    shots: list[Path] = []
    if (p := await _shot(page, rows, list(reports.values()), out_dir / f"{stem}.png")) is not None:
        shots.append(p)
    answer = done_reason = source = None
    events: tuple[str, ...] = ()
    notes: list[str] = []
    if prompt and error is None:
        progress("sending the test prompt")
        seen: dict[str, dict[str, Any]] = {}
        sampled = [(k, s) for k, s in times_keys if k in ("busy", "stop")]

        async def sample() -> None:
            while True:
                with contextlib.suppress(Exception):
                    for k, row in (await _look(page, sampled)).items():
                        if row["visible"] and k not in seen:
                            seen[k] = row
                await asyncio.sleep(_SAMPLE_S)

        sampler = asyncio.ensure_future(sample()) if sampled else None
        try:
            result = await driver.run(page, prompt)
            answer, done_reason, events = result.answer, result.timings.done_reason, result.timings.stream_events
            source = result.source
            notes.append(f"answer after {result.timings.total_ms / 1000:.1f} s; done: {done_reason}")
            notes.extend(result.warnings)  # keys that matched nothing and were found by role instead
            _send_shown_when_typed(reports, result.warnings)
        except WebLaneError as exc:
            error, error_kind = f"test prompt failed: {type(exc).__name__}: {exc}", exc.kind.value
        finally:
            if sampler is not None:
                sampler.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sampler
        for k, row in seen.items():
            r = _report(k, row, unique=False, at_times=True)
            reports[k] = KeyReport(k, r.selector, r.status, r.detail + " (while generating)")
        if "busy" in reports and "busy" not in seen:
            notes.append("busy was never seen during the test run (too fast to see, or the selector is wrong)")
        ans = (await _look(page, [("answer", _selector(adapter, "answer") or "")]))["answer"]
        reports["answer"] = _report("answer", ans, unique=False, at_times=False)
        shot = await _shot(page, {**rows, "answer": ans}, list(reports.values()), out_dir / f"{stem}-answer.png")
        if shot is not None:
            shots.append(shot)
    return AdapterCheckResult(
        site=site, account=None, url=page.url, keys=tuple(reports.values()), screenshots=tuple(shots),
        prompt=prompt, answer=answer, done_reason=done_reason, answer_source=source, stream_events=events, error=error,
        notes=tuple(notes), version=adapter.version, host=urlsplit(adapter.url).hostname or "", error_kind=error_kind,
    )  # fmt: skip


def resolve_site(config: AppConfig, workspace: Workspace, site: str, account: str | None) -> tuple[SiteAdapter, str]:
    """The adapter (a known site name, or a ``.toml`` file) and the account whose profile to use."""
    path = Path(site)
    if site.endswith(".toml") and path.is_file():
        adapter = load_adapter(path)
        names = {adapter.name, path.stem}
    else:
        adapters = site_adapters(config, workspace)
        if site not in adapters:
            raise ConfigError(f"no site adapter {site!r} (known: {', '.join(sorted(adapters)) or 'none'})")
        adapter, names = adapters[site], {site}
    uses = [a for a in config.accounts if config.profile(a.profile).site in names]
    if account is None:
        if not uses:
            raise ConfigError(f"no account uses site {site!r}: pass --account NAME")
        chosen = uses[0]
    else:
        chosen = next((a for a in config.accounts if a.name == account), None)  # type: ignore[assignment]
        if chosen is None:
            known = ", ".join(a.name for a in config.accounts) or "none"
            raise ConfigError(f"no account {account!r} (accounts: {known})")
    profile = config.profile(chosen.profile)
    if profile.site in names and not site.endswith(".toml"):
        adapter = adapter_for(config, workspace, profile)  # the profile's URL and limits apply
    return adapter, chosen.name


async def check_site(
    config: AppConfig,
    workspace: Workspace,
    site: str,
    *,
    account: str | None = None,
    prompt: str | None = DEFAULT_TEST_PROMPT,
    out_dir: Path | None = None,
    progress: Callable[[str], None] = log.info,
) -> AdapterCheckResult:
    """Open ``site`` on ``account``'s profile (headless, under its account lock) and check it.

    Raises :class:`ConfigError` for an unknown site/account and :class:`WebLaneError` when the account
    is in use (a running lane holds its lock) or the browser does not start."""
    adapter, name = resolve_site(config, workspace, site, account)
    acct = next(a for a in config.accounts if a.name == name)
    profile_dir = workspace.account_profile_dir(acct.name, acct.profile_dir)
    out_dir = out_dir or workspace.evidence_dir / "adapter-check"
    stem = f"{(adapter.name or 'site').replace('/', '_')}-{name}-{time.strftime('%Y%m%d-%H%M%S')}"
    lock = AccountLock(acct.name, profile_dir)
    if not lock.try_acquire():
        holder = lock.holder_pid()
        raise AccountLockedError(f"account {name} is in use by MediaDesk pid {holder}: stop its lane (or "
                                 "disable the account) and check again", lock_path=lock.path, holder_pid=holder)
    try:
        await asyncio.to_thread(ensure_private_dir, profile_dir, what="browser profile")
        kill_grace_s = config.scheduler.kill_grace_s
        await asyncio.to_thread(self_check, profile_dir, lock, lambda t: progress(t.english()), kill_grace_s,
                                lock_was_free=True)
        pw = await PlaywrightHub.acquire()
        try:
            info = await asyncio.to_thread(find_browser, config.browser.executable, probe_version=False)
            browser = OwnedBrowser(pw, info.path, profile_dir, headless=True,
                                   extra_args=list(config.browser.extra_args),
                                   log=lambda t: progress(t.english()))  # fmt: skip
            await browser.start()
            try:
                page = await browser.context.new_page()
                result = await check_page(page, adapter, out_dir=out_dir, stem=stem, prompt=prompt, progress=progress)
            finally:
                await browser.close(kill_grace_s)
        finally:
            await PlaywrightHub.release()
    finally:
        lock.release()
    return dataclasses.replace(result, account=name)
