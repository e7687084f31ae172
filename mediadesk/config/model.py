"""Configuration: one TOML file, validated up front, errors that name the file and the key.

Key names and meanings under ``[retry]``, ``[heartbeat]``, ``[[profiles]]`` and ``[[accounts]]`` are
fixed by the product: operators and outside tools write them. Unknown keys are errors (a typo such as
``concurency`` must not silently fall back to a default).

Why one module: it is the file's shape, one pydantic model per table with each rule next to the key
it checks, plus the cross-table checks and the two ways in (``load_config``, ``parse_config``); a
new key is added here and nowhere else. How a broken file is told to the operator lives in
:mod:`mediadesk.config.errors`.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mediadesk.config.errors import KeyProblem, Problem, issues_of, problem
from mediadesk.config.messages import ConfigIssue, Msg, msg
from mediadesk.config.names import case_twin, portable_name_problem
from mediadesk.config.remote import RemoteConfig
from mediadesk.config.spend import BudgetConfig, PriceConfig
from mediadesk.core.gate import MAX_LIMIT
from mediadesk.core.hours import ActiveHours, HoursError
from mediadesk.core.policy import RetryPolicy
from mediadesk.core.spend import Price

#: An API endpoint allows at most this many concurrent requests (provider quotas); default 3.
API_CONCURRENCY_MAX = MAX_LIMIT  # the gate's own bound (core/gate.py)
API_CONCURRENCY_DEFAULT = 3
#: Longest answer an API profile accepts unless it sets ``max_answer_chars`` (characters).
MAX_ANSWER_CHARS_DEFAULT = 200_000
#: Longest one API attempt may take in all (send to last byte) unless the profile sets ``max_run_s``.
API_MAX_RUN_S_DEFAULT = 600.0

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


def _check_env_name(v: str | None) -> str | None:
    if v is not None and not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", v):
        raise problem("must be the NAME of an environment variable (the key itself never goes in the config)")
    return v


def _check_hours(v: str | None) -> str | None:
    """``active_hours``: local-time windows in which the profile/account takes new tasks."""
    if v is None:
        return None
    try:
        return ActiveHours.parse(v).text
    except HoursError as exc:
        template = exc.template  # one of HOURS_TEMPLATES, all in the catalog (tests/core/test_config.py)
        raise problem(template, **exc.params) from None


def _check_name(v: str) -> str:
    """Profile and account names end up in file paths, lock names and log prefixes."""
    if not _NAME_RE.match(v):
        raise problem("use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit")
    return _check_file_name(v)


def _check_file_name(v: str) -> str:
    """A name that becomes a file or folder name: one that Windows can hold too."""
    why = portable_name_problem(v)
    if why is not None:
        raise Problem(why)
    return v


class ConfigError(Exception):
    """A user error in the config: the message is meant for the operator, no traceback.

    ``issues`` holds the same problems as data (file, key, message template and values), for a
    translated display; ``str()`` stays the English text the CLI prints. Empty when the error was
    raised from a plain text."""

    def __init__(self, message: str = "", issues: Sequence[ConfigIssue] = ()) -> None:
        super().__init__(message)
        self.issues: tuple[ConfigIssue, ...] = tuple(issues)

    @classmethod
    def of(cls, issues: Sequence[ConfigIssue]) -> ConfigError:
        return cls("\n".join(i.line() for i in issues), issues)


class _Strict(BaseModel):
    # strict: a TOML value of the wrong type is an error, never converted ("3" is not 3, 1 is not
    # true); a float key takes an integer. Lists and paths relax only the container (TOML has no
    # tuple or path type): their items are still checked strictly.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class RetryConfig(_Strict):
    max_retries: int = Field(2, ge=0, le=10, description="retries after the first attempt")
    backoff_base_s: float = Field(1.0, gt=0, le=3600)
    backoff_max_s: float = Field(60.0, gt=0, le=86400)
    #: Web tasks that crash a browser/page or time out the whole run on this many attempts are
    #: quarantined (set aside for a person), never retried automatically.
    quarantine_after: int = Field(2, ge=1, le=100)

    def policy(self) -> RetryPolicy:
        return RetryPolicy(
            max_retries=self.max_retries,
            backoff_base_s=self.backoff_base_s,
            backoff_max_s=self.backoff_max_s,
            quarantine_after=self.quarantine_after,
        )


class BreakerConfig(_Strict):
    """Circuit breaker per API endpoint and per web account (key names fixed by the product)."""

    window: int = Field(20, ge=1, le=10_000)            # last N calls
    failure_rate: float = Field(0.5, gt=0, le=1)
    min_calls: int = Field(10, ge=1, le=10_000)
    cooldown_s: float = Field(120.0, gt=0, le=86400)    # refusals with no success this long open it
    probe_interval_s: float = Field(10.0, gt=0, le=86400)

    @model_validator(mode="after")
    def _min_calls_in_window(self) -> BreakerConfig:
        if self.min_calls > self.window:
            raise problem("min_calls ({min_calls}) must not exceed window ({window})",
                          min_calls=str(self.min_calls), window=str(self.window))
        return self


class RatesConfig(_Strict):
    """Token buckets (requests per minute; 0 = none) for both lanes."""

    global_rpm: float = Field(0.0, ge=0, le=1_000_000)
    per_domain: dict[str, float] = {}

    @field_validator("per_domain")
    @classmethod
    def _rpm_values(cls, v: dict[str, float]) -> dict[str, float]:
        for domain, rpm in v.items():
            if rpm < 0:
                raise problem("{domain}: requests per minute must be a number >= 0", domain=domain)
        return v


class EndpointConfig(_Strict):
    """An OpenAI-compatible endpoint: it owns the quota shared by every profile on it."""

    name: str
    base_url: str
    api_key_env: str | None = None
    api_key_keyring: str | None = None
    concurrency: int = Field(API_CONCURRENCY_DEFAULT, ge=1, le=API_CONCURRENCY_MAX)
    rpm: float = Field(0.0, ge=0, le=1_000_000)
    #: Tokens per minute (prompt + completion) the provider allows; 0 = none declared (a limit the
    #: provider names in its ``x-ratelimit-limit-tokens`` header is still followed).
    tpm: float = Field(0.0, ge=0, le=1_000_000_000)
    #: Follow the provider's ``x-ratelimit-*`` headers (slow down before its 429).
    rate_headers: bool = True
    adaptive: bool = True
    #: This endpoint's own prices per model (a reseller's), over the top-level ``[prices]``.
    prices: dict[str, PriceConfig] = {}

    _name = field_validator("name")(classmethod(lambda cls, v: _check_name(v)))

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None) -> str | None:
        return _check_env_name(v)

    @field_validator("base_url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not re.match(r"^https?://", v):
            raise problem("base_url must start with http:// or https://")
        return v.rstrip("/")


class HeartbeatConfig(_Strict):
    interval_s: float = Field(15.0, gt=0, le=3600)
    stale_after_s: float = Field(90.0, gt=0, le=86400)

    @model_validator(mode="after")
    def _stale_after_interval(self) -> HeartbeatConfig:
        if self.stale_after_s <= self.interval_s:
            raise problem("stale_after_s ({stale_after_s}) must be greater than interval_s ({interval_s})",
                          stale_after_s=str(self.stale_after_s), interval_s=str(self.interval_s))
        return self


class SchedulerConfig(_Strict):
    #: Fallback wake-up of an idle lane (new work normally wakes it at once).
    poll_interval_s: float = Field(1.0, gt=0, le=60)
    #: Grace given to a cancelled run to stop by itself before the browser is killed.
    kill_grace_s: float = Field(3.0, gt=0, le=60)
    #: Largest prompt accepted from a batch (characters).
    max_prompt_chars: int = Field(200_000, ge=1, le=50_000_000)


class IntakeConfig(_Strict):
    """``[intake]``: a watched folder; a batch file dropped there is submitted once it is complete."""

    #: The folder to watch (created private when missing); None: no watched folder.
    watch: Path | None = Field(None, strict=False)
    #: How often the folder is looked at; a file is taken once two looks this far apart agree.
    poll_s: float = Field(2.0, gt=0, le=60)


class BrowserConfig(_Strict):
    executable: Path | None = Field(None, strict=False)
    headless: bool = True
    #: A warm browser is recycled (closed and relaunched) after this many tasks.
    recycle_after: int = Field(50, ge=1, le=100_000)
    extra_args: tuple[str, ...] = Field((), strict=False)
    #: Folder of user site adapters (``*.toml``) overriding the bundled ones.
    sites_dir: Path | None = Field(None, strict=False)


class ProfileConfig(_Strict):
    name: str
    kind: Literal["api", "web"]
    instructions: str | None = None
    need_empty_prompt: bool = False
    timeout_s: float = Field(60.0, gt=0, le=86400)
    #: Schedule-to-start budget: a task still not started this long after it was queued ends
    #: ``failed`` (kind ``expired``) or moves down the fallback chain; it is never run late.
    max_wait_s: float | None = Field(None, gt=0, le=30 * 86400)
    #: Most pending tasks this profile may hold; a batch that would pass it is refused whole.
    max_pending: int | None = Field(None, ge=1, le=10_000_000)
    #: Profiles that take a task this one cannot serve, in order; then ``rule_reply``.
    fallback: tuple[str, ...] = Field((), strict=False)
    rule_reply: str | None = None
    # api
    endpoint: str | None = None
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    api_key_keyring: str | None = None
    concurrency: int | None = Field(None, ge=1, le=API_CONCURRENCY_MAX)
    stream: bool = False
    #: Streamed answers: ask for the usage in the last chunk (``stream_options.include_usage``); turn it
    #: off for a server that refuses the option (it is then estimated).
    stream_usage: bool = True
    #: The most tokens an answer may use (sent as ``max_tokens``; also what a TPM gate reserves for it).
    max_tokens: int | None = Field(None, ge=1, le=10_000_000)
    #: "batch": non-urgent single-turn tasks go through the provider's Batch API (the economy channel).
    economy: Literal["batch"] | None = None
    #: The Batch API's completion window (what the provider may take; its discount's price).
    economy_window: str = "24h"
    #: Pending economy tasks are gathered this long before a batch is sent.
    economy_collect_s: float = Field(60.0, ge=0, le=86400)
    #: The first wait before polling a batch (then x1.5, up to 10 minutes).
    economy_poll_s: float = Field(30.0, gt=0, le=3600)
    economy_batch_size: int = Field(1000, ge=1, le=50_000)
    #: Longest answer accepted (characters); past it the attempt fails ``answer_too_large`` and
    #: reading stops, so memory stays bounded whatever the server sends.
    max_answer_chars: int = Field(MAX_ANSWER_CHARS_DEFAULT, ge=1, le=50_000_000)
    # web
    site: str | None = None
    url: str | None = None
    #: Longest one attempt may take in all. API: from sending the request to the answer's last
    #: byte (default 600 s), while ``timeout_s`` is the longest silence. Web: the whole run, from
    #: typing the prompt to the complete answer (default: the site adapter's).
    max_run_s: float | None = Field(None, gt=0, le=86400)
    #: Local-time windows in which this profile's lanes start tasks ("22:00-07:00", or several:
    #: "09:00-12:00,14:00-18:00"); outside them its tasks wait. None: any time.
    active_hours: str | None = None

    _name = field_validator("name")(classmethod(lambda cls, v: _check_name(v)))
    _hours = field_validator("active_hours")(classmethod(lambda cls, v: _check_hours(v)))
    # the site adapter's file is <site>.toml
    _site = field_validator("site")(classmethod(lambda cls, v: v if v is None else _check_file_name(v)))

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None) -> str | None:
        return _check_env_name(v)

    @property
    def hours(self) -> ActiveHours | None:
        return None if self.active_hours is None else ActiveHours.parse(self.active_hours)

    @model_validator(mode="after")
    def _by_kind(self) -> ProfileConfig:
        if self.kind == "api":
            if self.endpoint is not None:
                for k in ("base_url", "api_key_env", "api_key_keyring"):
                    if getattr(self, k) is not None:
                        raise problem("{key} belongs to the endpoint {endpoint}; remove it here",
                                      key=k, endpoint=repr(self.endpoint))
                if not self.model:
                    raise problem("an api profile needs model")
            else:
                missing = [k for k in ("base_url", "model") if not getattr(self, k)]
                if missing:
                    raise problem("an api profile needs {keys} (or endpoint and model)", keys=" and ".join(missing))
                assert self.base_url is not None
                if not re.match(r"^https?://", self.base_url):
                    raise problem("base_url must start with http:// or https://")
            for k in ("site", "url"):
                if getattr(self, k) is not None:
                    raise problem("{key} is for web profiles only", key=k)
        else:
            if not self.site:
                raise problem("a web profile needs site (the name of a site adapter)")
            if self.concurrency is not None:
                raise problem(
                    "web profiles run exactly one task per account (a chat account allows one generation at a time); "
                    "remove concurrency and add accounts instead"
                )
            for k in ("base_url", "model", "api_key_env", "api_key_keyring", "endpoint", "max_tokens", "economy"):
                if getattr(self, k) is not None:
                    raise problem("{key} is for api profiles only", key=k)
            if "max_answer_chars" in self.model_fields_set:
                raise problem("{key} is for api profiles only", key="max_answer_chars")
        if self.name in self.fallback:
            raise problem("fallback must not name the profile itself")
        return self

    @property
    def api_concurrency(self) -> int:
        return self.concurrency or API_CONCURRENCY_DEFAULT

    @property
    def api_max_run_s(self) -> float:
        """The whole-attempt limit of an API profile."""
        return self.max_run_s if self.max_run_s is not None else API_MAX_RUN_S_DEFAULT


class AccountConfig(_Strict):
    name: str
    profile: str
    enabled: bool = True
    profile_dir: Path | None = Field(None, strict=False)
    #: Stored credentials (optional): the NAMES of environment variables or keyring entries
    #: ("service:username") holding the site's user and password, never the values. With them an
    #: account that finds itself logged out logs itself in again, at most once per ``login_cooldown_s``
    #: (the site adapter needs ``login_user``, ``login_password`` and ``login_submit``).
    login_user_env: str | None = None
    login_user_keyring: str | None = None
    login_password_env: str | None = None
    login_password_keyring: str | None = None
    login_cooldown_s: float = Field(600.0, gt=0, le=7 * 86400)
    #: This account's own windows (replacing its profile's ``active_hours``); see ProfileConfig.
    active_hours: str | None = None

    _name = field_validator("name")(classmethod(lambda cls, v: _check_name(v)))
    _hours = field_validator("active_hours")(classmethod(lambda cls, v: _check_hours(v)))

    @field_validator("login_user_env", "login_password_env")
    @classmethod
    def _login_env_name(cls, v: str | None) -> str | None:
        if v is not None and not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", v):
            raise problem("must be the NAME of an environment variable (the value itself never goes in the config)")
        return v

    @field_validator("login_user_keyring", "login_password_keyring")
    @classmethod
    def _login_keyring_entry(cls, v: str | None) -> str | None:
        if v is not None:
            service, sep, username = v.partition(":")
            if not sep or not service.strip() or not username.strip():
                raise problem("must be a keyring entry 'service:username' (the value never goes in the config)")
        return v

    @model_validator(mode="after")
    def _login_pair(self) -> AccountConfig:
        has_user = self.login_user_env is not None or self.login_user_keyring is not None
        has_password = self.login_password_env is not None or self.login_password_keyring is not None
        if has_user != has_password:
            missing = "login_password_env or login_password_keyring" if has_user else (
                "login_user_env or login_user_keyring")
            raise problem("stored credentials need both a user and a password: add {keys}", keys=missing)
        return self

    @property
    def hours(self) -> ActiveHours | None:
        return None if self.active_hours is None else ActiveHours.parse(self.active_hours)

    @property
    def has_login_credentials(self) -> bool:
        return self.login_password_env is not None or self.login_password_keyring is not None


class AppConfig(_Strict):
    data_dir: Path | None = Field(None, strict=False)
    #: team mode: the shared PostgreSQL database (``postgresql://user@host/db``) instead of the SQLite file
    db_url: str | None = None
    retry: RetryConfig = RetryConfig()
    heartbeat: HeartbeatConfig = HeartbeatConfig()
    scheduler: SchedulerConfig = SchedulerConfig()
    #: the watched intake folder (off unless ``watch`` is set)
    intake: IntakeConfig = IntakeConfig()
    browser: BrowserConfig = BrowserConfig()
    breaker: BreakerConfig = BreakerConfig()
    rates: RatesConfig = RatesConfig()
    endpoints: tuple[EndpointConfig, ...] = Field((), strict=False)
    profiles: tuple[ProfileConfig, ...] = Field((), strict=False)
    accounts: tuple[AccountConfig, ...] = Field((), strict=False)
    #: the local HTTP API, webhooks and command hooks (mediadesk.config.remote)
    remote: RemoteConfig = RemoteConfig()
    #: price per million tokens per model (mediadesk.config.spend); an endpoint's own table wins
    prices: dict[str, PriceConfig] = {}
    #: caps per endpoint or profile, per day or in total (mediadesk.config.spend)
    budgets: tuple[BudgetConfig, ...] = Field((), strict=False)

    @field_validator("db_url")
    @classmethod
    def _check_db_url(cls, v: str | None) -> str | None:
        # the value is never echoed: it may hold a password
        if v is not None and (urlsplit(v).scheme not in ("postgresql", "postgres") or "://" not in v):
            raise ValueError("must be a PostgreSQL URL, postgresql://user@host[:port]/database (the SQLite file "
                             "is the default: leave db_url out, or pass --db FILE)")
        return v

    @model_validator(mode="after")
    def _cross_checks(self) -> AppConfig:
        seen: set[str] = set()
        for i, p in enumerate(self.profiles):
            if p.name in seen:
                raise KeyProblem(f"profiles[{i}].name", msg("duplicate profile name {name}", name=repr(p.name)))
            seen.add(p.name)
        by_name = {p.name: p for p in self.profiles}
        ep_names: set[str] = set()
        for i, e in enumerate(self.endpoints):
            if e.name in ep_names:
                raise KeyProblem(f"endpoints[{i}].name", msg("duplicate endpoint name {name}", name=repr(e.name)))
            ep_names.add(e.name)
        for i, p in enumerate(self.profiles):
            if p.endpoint is not None and p.endpoint not in ep_names:
                known: str | Msg = ", ".join(sorted(ep_names)) or msg("none defined")
                raise KeyProblem(f"profiles[{i}] ({p.name}).endpoint",
                                 msg("no endpoint named {name} ({known})", name=repr(p.endpoint), known=known))
            for step in p.fallback:
                if step not in by_name:
                    raise KeyProblem(f"profiles[{i}] ({p.name}).fallback",
                                     msg("no profile named {name}", name=repr(step)))
        self._check_budgets(by_name)
        acc_seen: set[str] = set()
        for i, a in enumerate(self.accounts):
            if a.name in acc_seen:
                raise KeyProblem(f"accounts[{i}].name", msg("duplicate account name {name}", name=repr(a.name)))
            acc_seen.add(a.name)
            prof = by_name.get(a.profile)
            if prof is None:
                raise KeyProblem(f"accounts[{i}].profile", msg("no profile named {name}", name=repr(a.profile)))
            if prof.kind != "web":
                raise KeyProblem(
                    f"accounts[{i}].profile", msg("profile {name} is an api profile; accounts are for web",
                                                  name=repr(a.profile))
                )
        self._check_case_twins()
        return self

    def _check_case_twins(self) -> None:
        """Names that become file or folder names must differ by more than case: NTFS and APFS take
        ``Alice`` and ``alice`` for one name (an account's browser profile folder, a site adapter's file)."""
        twins = case_twin(a.name for a in self.accounts)
        if twins is not None:
            i, j = twins
            raise KeyProblem(f"accounts[{j}].name", msg(
                "{name} and {other} ({other_key}) differ only by case: on Windows and macOS these are the same "
                "folder (the account's browser profile); rename one",
                name=repr(self.accounts[j].name), other=repr(self.accounts[i].name), other_key=f"accounts[{i}].name"))
        sites = [(f"profiles[{i}] ({p.name}).site", p.site) for i, p in enumerate(self.profiles) if p.site is not None]
        twins = case_twin(site for _, site in sites)
        if twins is not None:
            (first_key, first), (key, second) = sites[twins[0]], sites[twins[1]]
            raise KeyProblem(key, msg(
                "{name} and {other} ({other_key}) differ only by case: on Windows and macOS these are the same "
                "site adapter file; write one the same way in both",
                name=repr(second), other=repr(first), other_key=first_key))

    def _check_budgets(self, profiles: Mapping[str, ProfileConfig]) -> None:
        endpoints = {e.name for e in self.api_endpoints()}
        for i, b in enumerate(self.budgets):
            if b.endpoint is not None and b.endpoint not in endpoints:
                known: str | Msg = ", ".join(sorted(endpoints)) or msg("none defined")
                raise KeyProblem(f"budgets[{i}].endpoint",
                                 msg("no endpoint named {name} ({known})", name=repr(b.endpoint), known=known))
            if b.profile is not None and b.profile not in profiles:
                raise KeyProblem(f"budgets[{i}].profile", msg("no profile named {name}", name=repr(b.profile)))

    def price_of(self, profile: str) -> Price | None:
        """The price of ``profile``'s tasks: its endpoint's ``prices`` for its model, else the
        top-level ``[prices]`` for it (a web profile's key is its own name); None when unpriced."""
        prof = self.profile(profile)
        key = prof.model if prof.kind == "api" and prof.model else prof.name
        if prof.endpoint is not None:
            for e in self.endpoints:
                if e.name == prof.endpoint and key in e.prices:
                    return e.prices[key].price()
        found = self.prices.get(key)
        return None if found is None else found.price()

    def profile(self, name: str) -> ProfileConfig:
        for p in self.profiles:
            if p.name == name:
                return p
        raise KeyError(name)

    def accounts_of(self, profile: str) -> list[AccountConfig]:
        return [a for a in self.accounts if a.profile == profile]

    def api_endpoints(self) -> list[ResolvedEndpoint]:
        """Every endpoint API profiles use: the declared ``[[endpoints]]``, plus one implicit
        endpoint per (base_url, key source) shared by profiles that give ``base_url`` directly
        (its concurrency is the smallest of theirs: together they must not exceed any of them)."""
        out: list[ResolvedEndpoint] = []
        for e in self.endpoints:
            profs = tuple(p.name for p in self.profiles if p.kind == "api" and p.endpoint == e.name)
            out.append(ResolvedEndpoint(
                e.name, e.base_url, e.api_key_env, e.api_key_keyring, e.concurrency, e.rpm, e.adaptive, profs, False,
                tpm=e.tpm, rate_headers=e.rate_headers,
            ))
        groups: dict[tuple[str, str | None, str | None], list[ProfileConfig]] = {}
        for p in self.profiles:
            if p.kind == "api" and p.endpoint is None:
                assert p.base_url is not None
                groups.setdefault((p.base_url.rstrip("/"), p.api_key_env, p.api_key_keyring), []).append(p)
        taken = {e.name for e in out}
        for (url, env, ring), profs_ in groups.items():
            name = _implicit_name(url, taken)
            taken.add(name)
            out.append(ResolvedEndpoint(
                name, url, env, ring, min(p.api_concurrency for p in profs_), 0.0, True,
                tuple(p.name for p in profs_), True,
            ))
        return out


@dataclass(frozen=True)
class ResolvedEndpoint:
    name: str
    base_url: str
    api_key_env: str | None
    api_key_keyring: str | None
    concurrency: int
    rpm: float
    adaptive: bool
    profiles: tuple[str, ...]
    #: Made from profiles that give ``base_url`` themselves (no ``[[endpoints]]`` entry).
    implicit: bool
    tpm: float = 0.0
    rate_headers: bool = True


@dataclass(frozen=True)
class MissingKey:
    """An API key variable the config names that is not set, and the profiles that need it."""

    env: str
    profiles: tuple[str, ...]

    def message(self) -> str:
        who = ", ".join(self.profiles)
        return (
            f"environment variable {self.env} is not set; profile(s) {who} read their API key from it: "
            f"run `export {self.env}=...` (the key itself) in the shell that starts MediaDesk, or give "
            f"those profiles api_key_keyring, then start again"
        )


def missing_api_keys(
    config: AppConfig, profiles: Iterable[str], environ: Mapping[str, str] | None = None
) -> list[MissingKey]:
    """The ``api_key_env`` variables that are unset (or blank) for the given ``profiles`` only, each
    with the profiles that use it, in config order. A source with a keyring too is not reported:
    the keyring may hold the key. Checked once before a batch starts, so an unset variable is one
    clear message instead of one ``auth`` failure per task."""
    env = os.environ if environ is None else environ
    wanted = set(profiles)
    found: dict[str, list[str]] = {}
    for ep in config.api_endpoints():
        if ep.api_key_env is None or ep.api_key_keyring is not None or env.get(ep.api_key_env, "").strip():
            continue
        for name in ep.profiles:
            if name in wanted:
                found.setdefault(ep.api_key_env, []).append(name)
    return [MissingKey(var, tuple(names)) for var, names in found.items()]


def _implicit_name(url: str, taken: set[str]) -> str:
    netloc = urlsplit(url).netloc or url
    name, n = netloc, 2
    while name in taken:
        name, n = f"{netloc}#{n}", n + 1
    return name


def _resolve_paths(cfg: AppConfig, base: Path) -> AppConfig:
    def rel(p: Path | None) -> Path | None:
        if p is None:
            return None
        p = p.expanduser()
        return p if p.is_absolute() else (base / p).resolve()

    browser = cfg.browser.model_copy(
        update={"executable": rel(cfg.browser.executable), "sites_dir": rel(cfg.browser.sites_dir)}
    )
    accounts = tuple(a.model_copy(update={"profile_dir": rel(a.profile_dir)}) for a in cfg.accounts)
    remote = cfg.remote.model_copy(update={"tls_cert": rel(cfg.remote.tls_cert), "tls_key": rel(cfg.remote.tls_key)})
    intake = cfg.intake.model_copy(update={"watch": rel(cfg.intake.watch)})
    return cfg.model_copy(update={"data_dir": rel(cfg.data_dir), "browser": browser, "accounts": accounts,
                                  "remote": remote, "intake": intake})


def parse_config(data: dict[str, Any], source: str = "<config>", base_dir: Path | None = None) -> AppConfig:
    try:
        cfg = AppConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError.of(issues_of(exc, data, source)) from None
    return _resolve_paths(cfg, base_dir or Path.cwd())


def load_config(path: Path | str) -> AppConfig:
    path = Path(path)
    def fail(template: str, **params: str) -> ConfigError:
        return ConfigError.of([ConfigIssue(str(path), None, msg(template, **params))])

    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise fail("config file not found") from None
    except OSError as exc:
        raise fail("cannot read config: {error}", error=str(exc.strerror)) from None
    try:
        data = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise fail("not UTF-8 text ({reason} at byte {pos})", reason=exc.reason, pos=str(exc.start)) from None
    except tomllib.TOMLDecodeError as exc:
        raise fail("invalid TOML: {error}", error=str(exc)) from None
    return parse_config(data, source=str(path), base_dir=path.parent.resolve())
