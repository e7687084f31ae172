"""Probe, test and log in: one entry for both faces, with or without a running scheduler.

The setup editor's "Test" checks an endpoint, an API profile or a web account of a config that may
be edited and not saved yet; ``mediadesk login`` opens the visible login browser. Both come here,
so no face builds a backend or imports a provider. The providers are imported only when a check
runs (the console does not load Playwright to show a dialog).

With a running scheduler (:class:`Running`), an account's test goes through its lane's own
browser (it holds the profile lock) and a login through that lane.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import CheckVerdict, HealthStatus
from mediadesk.core.log_lines import LOG

if TYPE_CHECKING:
    from mediadesk.scheduler.capacity import Capacity
    from mediadesk.scheduler.lane import Lane

__all__ = ["AccountCheck", "ApiCheck", "CheckError", "Checks", "LoginResult", "Running", "Verdict"]


class CheckError(Exception):
    """A check could not be run at all (no browser, no display...); the message says why."""


#: What an endpoint check found (re-exported for the faces, which never import the core's contract
#: under another name).
Verdict = CheckVerdict


@dataclass(frozen=True)
class ApiCheck:
    """One authenticated one-token request to an endpoint: the verdict (the key works, the key is
    rejected, TLS, failed), what was seen (key-free), and how long it took."""

    ok: bool
    seen: str
    elapsed_ms: float
    verdict: CheckVerdict = CheckVerdict.OK


@dataclass(frozen=True)
class AccountCheck:
    """Could this account run a task? ``health`` is a :class:`HealthStatus` value; ``seen`` what the
    probe saw (or the backend's last error); ``running``: answered by the running account's own
    browser rather than a browser started for the test."""

    ok: bool
    health: str
    seen: str
    running: bool


class LoginResult(str, Enum):
    LOGGED_IN = "logged_in"
    #: The window was closed (or the wait ran out) before a login was seen.
    NOT_COMPLETED = "not_completed"
    #: Another MediaDesk holds the account's profile: log in there.
    IN_USE = "in_use"


class Running(Protocol):
    """What the checks use of a running scheduler (the Scheduler is one): its lanes, its callees'
    capacities, and the two flows a person goes through on an account's own lane."""

    @property
    def lanes(self) -> Sequence[Lane]: ...
    @property
    def capacities(self) -> Mapping[str, Capacity]: ...
    async def login(self, account: str, on_status: Callable[[str], None] | None = None) -> bool: ...
    async def resolve_account_exception(
        self, account: str, on_status: Callable[[str], None] | None = None) -> bool: ...


async def _timed(check: Callable[[], Awaitable[tuple[CheckVerdict, str]]]) -> ApiCheck:
    t0 = time.monotonic()
    verdict, seen = await check()
    return ApiCheck(verdict is CheckVerdict.OK, seen, (time.monotonic() - t0) * 1000, verdict)


class Checks:
    """The checks of one config. ``workspace``: where the account profiles are (default: the
    config's data dir); ``scheduler``: the running one, if any."""

    def __init__(self, config: AppConfig, workspace: Workspace | None = None,
                 scheduler: Running | None = None) -> None:
        self.config = config
        self.workspace = workspace
        self.scheduler = scheduler

    def _workspace(self) -> Workspace:
        return self.workspace if self.workspace is not None else Workspace.resolve(data_dir=self.config.data_dir)

    # ------------------------------------------------------------------ API
    async def test_endpoint(self, name: str) -> ApiCheck:
        """A one-token completion with the key on the endpoint named ``name`` (it proves the key;
        ``GET /models`` would not: many servers list their models to anyone)."""
        ep = next(e for e in self.config.endpoints if e.name == name)
        model = next((p.model for p in self.config.profiles if p.endpoint == name and p.model), "probe")
        return await self._probe_api(name, ep.base_url, model, ep.api_key_env, ep.api_key_keyring, 10.0)

    async def test_profile(self, name: str) -> ApiCheck:
        """The same request, through an API profile's endpoint with its model and timeout."""
        prof = self.config.profile(name)
        if prof.kind != "api":
            raise ValueError(f"profile {name!r} is a web profile: it is tested through its accounts")
        if prof.endpoint is not None:
            ep = next(e for e in self.config.endpoints if e.name == prof.endpoint)
            base_url, key_env, key_ring = ep.base_url, ep.api_key_env, ep.api_key_keyring
        else:
            assert prof.base_url is not None
            base_url, key_env, key_ring = prof.base_url, prof.api_key_env, prof.api_key_keyring
        return await self._probe_api(name, base_url, prof.model or "probe", key_env, key_ring,
                                     min(prof.timeout_s, 30.0))

    async def _probe_api(self, name: str, base_url: str, model: str, key_env: str | None, key_ring: str | None,
                         timeout_s: float) -> ApiCheck:
        from mediadesk.providers.api.backend import ApiBackend

        backend = ApiBackend(name=name, base_url=base_url, model=model, api_key_env=key_env,
                             api_key_keyring=key_ring, timeout_s=timeout_s, connect_timeout_s=min(timeout_s, 10.0),
                             max_run_s=timeout_s)
        async with backend:
            return await _timed(backend.check)

    async def check_running_endpoint(self, name: str) -> ApiCheck:
        """The same request through the running scheduler's own client for endpoint ``name`` (the
        operator's Resume); with no scheduler, or none of its lanes on it, a fresh client as Test."""
        if self.scheduler is not None:
            cap = self.scheduler.capacities.get(name)
            for lane in self.scheduler.lanes:
                check = lane.backend.check if cap is not None and lane.capacity_ctl is cap else None
                if check is not None:
                    return await _timed(check)
        return await self.test_endpoint(name)

    # ------------------------------------------------------------------ web accounts
    async def test_account(self, name: str) -> AccountCheck:
        """Open the account's site on its own profile and look for the logged-in markers: through
        the running lane's browser if the scheduler runs this account, else in a browser started
        (and ended) for the test."""
        account = next(a for a in self.config.accounts if a.name == name)
        profile = self.config.profile(account.profile)
        if self.scheduler is not None:
            lane = next((ln for ln in self.scheduler.lanes if ln.account == name), None)
            probe = lane.backend.probe if lane is not None else None
            if probe is not None:  # the running account's own browser (it holds the profile lock)
                ok, seen = await probe()
                said = HealthStatus.READY if ok else (
                    HealthStatus.NEEDS_LOGIN if seen.id == LOG.needs_login.id else HealthStatus.ERROR)
                return AccountCheck(ok, said.value, seen.english(), running=True)
        from mediadesk.scheduler.backends import default_backend

        backend = default_backend(self.config, self._workspace(), profile, account)
        try:
            await backend.start()  # takes the lock, opens the site, checks the login markers
            health, error = backend.health()
        finally:
            await backend.stop()
        status = HealthStatus(health)
        return AccountCheck(status == HealthStatus.READY, status.value, error or "", running=False)

    async def solve_challenge(self, account: str, on_status: Callable[[str], None] | None = None) -> AccountCheck:
        """An account that waits for a person (a bot check): a visible browser on its own profile at
        the chat page until the check is gone (``ok``) or the window is closed; ``health`` is the
        account's afterwards. Through the running scheduler's lane if there is one, else in a browser
        started here, which first looks whether the check is still shown (done at once when it is
        not). :class:`CheckError` if it cannot be done (the account does not wait for a person, is in
        use by another MediaDesk, no browser or display...)."""
        if self.scheduler is not None:
            try:
                ok = await self.scheduler.resolve_account_exception(account, on_status=on_status)
            except ValueError as exc:
                raise CheckError(str(exc)) from exc
            lane = next(ln for ln in self.scheduler.lanes if ln.account == account)
            health, error = lane.backend.health()
            return AccountCheck(ok, HealthStatus(health).value, error or "", running=True)
        acct = next(a for a in self.config.accounts if a.name == account)
        from mediadesk.scheduler.backends import default_backend

        backend = default_backend(self.config, self._workspace(), self.config.profile(acct.profile), acct)
        solve = backend.resolve_challenge
        if solve is None:
            raise CheckError(f"account {account} is not a web account")
        try:
            await backend.start()  # takes the lock, opens the site: is the check still there?
            health, error = backend.health()
            if health == HealthStatus.CHALLENGE:
                ok = bool(await solve(on_status=on_status))
                health, error = backend.health()
            elif health == HealthStatus.ERROR:
                raise CheckError(f"account {account}: {error or health}")
            else:
                ok = True  # the check is gone (a login may be the next step)
        finally:
            await backend.stop()
        return AccountCheck(ok, HealthStatus(health).value, error or "", running=False)

    async def login(self, account: str, on_status: Callable[[str], None] | None = None) -> LoginResult:
        """A visible browser on the account's profile until the operator has logged in: through the
        running scheduler's lane if there is one (the account takes no task meanwhile), else on
        its own (then the progress is printed). :class:`CheckError` if no browser could be opened."""
        if self.scheduler is not None:
            ok = await self.scheduler.login(account, on_status=on_status)
            return LoginResult.LOGGED_IN if ok else LoginResult.NOT_COMPLETED
        from mediadesk.providers.web.errors import WebLaneError
        from mediadesk.providers.web.login import interactive_login

        try:
            rc = await interactive_login(self.config, self._workspace(), account)
        except WebLaneError as exc:
            raise CheckError(str(exc)) from exc
        return {0: LoginResult.LOGGED_IN, 1: LoginResult.NOT_COMPLETED}.get(rc, LoginResult.IN_USE)
