"""The scheduler's wiring: lanes, capacities and backends built from the config.

One API lane per API profile behind ONE gate per endpoint (shared by every profile on it), one web
lane per account behind a gate of exactly 1. The live profile settings the console edits (the
``need_empty_prompt`` toggle, a profile's share of its endpoint's gate) live here too, because the
lanes and the task specs read them. An endpoint's own concurrency lives in its :class:`Capacity`.
Nothing here runs: :class:`~mediadesk.scheduler.scheduler.Scheduler` starts, stops and drives what
this builds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from urllib.parse import urlsplit

from mediadesk.config.model import API_CONCURRENCY_MAX, AccountConfig, AppConfig, ProfileConfig, ResolvedEndpoint
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import LaneBackend, Probe, TaskSpec
from mediadesk.core.breaker import BreakerConfig
from mediadesk.core.log_lines import LogText
from mediadesk.core.rate import RateGates
from mediadesk.core.states import ModelKind
from mediadesk.scheduler.capacity import Capacity
from mediadesk.scheduler.economy import EconomyChannel, EconomySettings
from mediadesk.scheduler.events import TaskLogLine, task_changed
from mediadesk.scheduler.lane import Lane, LaneDeps, LaneSettings, LaneTiming
from mediadesk.store import TaskRecord, TaskStore

BackendFactory = Callable[[ProfileConfig, AccountConfig | None], LaneBackend]


def _host(url: str) -> str | None:
    return urlsplit(url).hostname


class Wiring:
    """What the config builds: the profiles with their live settings, and (at :meth:`build`) the
    lanes and capacities. ``notice``: where a capacity's events go (the scheduler's bus)."""

    def __init__(
        self,
        config: AppConfig,
        workspace: Workspace,
        *,
        backend_factory: BackendFactory | None = None,
        clock: Callable[[], float],
        notice: Callable[[LogText | str], None],
    ) -> None:
        self.config = config
        self.workspace = workspace
        self._factory = backend_factory
        self._clock = clock
        self._notice = notice
        self.profiles: dict[str, ProfileConfig] = {p.name: p for p in config.profiles}
        #: Live ``need_empty_prompt`` per profile (config, then the database, then console edits).
        self.nep: dict[str, bool] = {p.name: p.need_empty_prompt for p in config.profiles}
        #: Each API profile's share of its endpoint's gate (1..5), owned here: read by its lane (its cap),
        #: an implicit endpoint's gate and Scheduler.profile_view.
        self.conc: dict[str, int] = {p.name: p.api_concurrency for p in config.profiles if p.kind == "api"}
        rates = config.rates
        self._rates = RateGates(rates.global_rpm, dict(rates.per_domain)) if (
            rates.global_rpm or rates.per_domain) else None
        self.lanes: list[Lane] = []
        #: Gates, breakers and rate buckets: one per API endpoint ("endpoint name") and one per web
        #: account ("account:<name>").
        self.capacities: dict[str, Capacity] = {}
        #: API profile -> the endpoint whose gate it shares.
        self.endpoint_of: dict[str, str] = {}
        #: The economy channels (profiles with ``economy = "batch"``).
        self.economies: list[EconomyChannel] = []

    def load_settings(self, store: TaskStore) -> None:
        """The operator's persisted edits win over the config's values."""
        for name, (nep, conc) in store.profile_settings().items():
            if name in self.nep and nep is not None:
                self.nep[name] = nep
            if name in self.conc and conc is not None:
                self.conc[name] = max(1, min(API_CONCURRENCY_MAX, conc))

    def backend(self, profile: ProfileConfig, account: AccountConfig | None) -> LaneBackend:
        if self._factory is not None:
            return self._factory(profile, account)
        from mediadesk.scheduler.backends import default_backend

        return default_backend(self.config, self.workspace, profile, account)

    def timing(self) -> LaneTiming:
        hb = self.config.heartbeat
        return LaneTiming(
            heartbeat_s=hb.interval_s,
            stale_after_s=hb.stale_after_s,
            poll_s=self.config.scheduler.poll_interval_s,
            kill_grace_s=self.config.scheduler.kill_grace_s,
        )

    def build(self, deps: LaneDeps, account_states: dict[str, tuple[bool, str, str | None]]) -> list[Lane]:
        """Every lane with its backend and capacity; the capacities go into :attr:`capacities`."""
        lanes: list[Lane] = []
        for ep in self.config.api_endpoints():
            cap: Capacity | None = None
            for name in ep.profiles:
                prof = self.profiles[name]
                backend = self.backend(prof, None)
                if cap is None:
                    cap = self.capacity(ep.name, "endpoint", self.endpoint_limit(ep.name), ep.adaptive,
                                        _host(ep.base_url), backend.probe, ep.rpm, tpm=ep.tpm,
                                        rate_headers=ep.rate_headers)
                    self.capacities[ep.name] = cap
                # timeout_s is the longest silence (the backend's read timeout); the whole attempt is
                # bounded by max_run_s, which the backend enforces; the lane's deadline is a backstop.
                deadline = backend.attempt_deadline_s or prof.api_max_run_s + 15.0
                settings = LaneSettings(
                    name=f"api:{prof.name}", kind=ModelKind.API, profiles=(prof.name,),
                    attempt_deadline_s=deadline, max_wait_s=prof.max_wait_s,
                    share=functools.partial(self.conc.__getitem__, prof.name), team_endpoint=ep.name,
                    team_limit=functools.partial(self.endpoint_limit, ep.name),
                    team_buckets=self.shared_buckets(_host(ep.base_url), (f"endpoint:{ep.name}", ep.rpm)),
                    team_token_bucket=(f"tokens:endpoint:{ep.name}", ep.tpm) if ep.tpm > 0 else None,
                    leaves_economy=prof.economy == "batch",
                    team_hold_s=prof.api_max_run_s, hours=prof.hours,
                )
                lane = Lane(settings, backend, deps, cap)
                cap.attach(lane)
                if prof.economy == "batch":
                    self.economies.append(self.economy_channel(prof, backend, deps, lane))
                self.endpoint_of[prof.name] = ep.name
                lanes.append(lane)
        for acc in self.config.accounts:
            prof = self.profiles[acc.profile]
            enabled = account_states[acc.name][0] if acc.name in account_states else acc.enabled
            backend = self.backend(prof, acc)
            # One run per account, always (a chat account allows one generation at a time): the
            # account's gate is 1 and never adaptive (the lane's share is 1 too); it carries the
            # account's breaker and rates.
            cap = self.capacity(f"account {acc.name}", "account", 1, False, backend.domain, backend.probe)
            self.capacities[f"account:{acc.name}"] = cap
            settings = LaneSettings(
                name=f"web:{acc.name}", kind=ModelKind.WEB, profiles=(prof.name,), account=acc.name,
                attempt_deadline_s=backend.attempt_deadline_s, enabled=enabled, max_wait_s=prof.max_wait_s,
                team_buckets=self.shared_buckets(backend.domain),
                team_hold_s=backend.max_run_s or backend.attempt_deadline_s or 0.0,
                hours=acc.hours if acc.active_hours is not None else prof.hours,
            )
            lane = Lane(settings, backend, deps, cap)
            cap.attach(lane)
            lanes.append(lane)
        self.lanes = lanes
        return lanes

    def economy_channel(self, prof: ProfileConfig, backend: LaneBackend, deps: LaneDeps, lane: Lane) -> EconomyChannel:
        """The Batch API loop of an economy profile, over its lane's backend (started by the lane). If
        the provider has no Batch API, the lane takes the profile's economy tasks too, one by one."""
        from mediadesk.scheduler.backends import batch_api

        bus, store = deps.bus, deps.store

        def task_log(task_id: str, lane: str, text: LogText) -> None:
            line = store.append_log(task_id, lane, text)
            bus.publish(TaskLogLine(task_id, line.ts, lane, line.message, text))

        settings = EconomySettings(window=prof.economy_window, collect_s=prof.economy_collect_s,
                                   poll_s=prof.economy_poll_s, batch_size=prof.economy_batch_size,
                                   beat_s=self.config.heartbeat.interval_s)
        return EconomyChannel(prof.name, batch_api(backend), store, resolve=deps.resolve, policy=deps.policy,
                              owner=deps.owner, settings=settings, publish=lambda rec: bus.publish(task_changed(rec)),
                              task_log=task_log, team=deps.team, clock=deps.clock,
                              on_unavailable=lambda why: self._economy_off(prof.name, lane, why), guard=deps.guard)

    def _economy_off(self, profile: str, lane: Lane, why: str) -> None:
        lane.take_economy_tasks()
        self._notice(f"profile {profile}: the provider refused its Batch API ({why}); its economy tasks go "
                     "one request at a time instead (full price)")

    def shared_buckets(self, domain: str | None, *own: tuple[str, float]) -> tuple[tuple[str, float], ...]:
        """Team mode: the token buckets every desktop shares for a callee (requests per minute): the
        endpoint's own ``rpm``, ``[rates] global_rpm`` and the callee's domain in ``[rates.per_domain]``."""
        rates = self.config.rates
        key = None if domain is None else domain.strip().lower()
        per_domain = {d.strip().lower(): rpm for d, rpm in rates.per_domain.items()}
        out = [*own, ("global", rates.global_rpm)]
        if key is not None and key in per_domain:
            out.append((f"domain:{key}", per_domain[key]))
        return tuple((name, rpm) for name, rpm in out if rpm > 0)

    def capacity(
        self, name: str, kind: str, limit: int, adaptive: bool, domain: str | None, probe: Probe | None,
        rpm: float = 0.0, *, tpm: float = 0.0, rate_headers: bool = True,
    ) -> Capacity:
        b = self.config.breaker
        return Capacity(
            name, kind=kind, limit=limit, adaptive=adaptive,
            breaker=BreakerConfig(window=b.window, failure_rate=b.failure_rate, min_calls=b.min_calls,
                                  cooldown_s=b.cooldown_s, probe_interval_s=b.probe_interval_s),
            rates=self._rates, domain=domain, backoff_base_s=self.config.retry.backoff_base_s,
            backoff_max_s=self.config.retry.backoff_max_s, clock=self._clock, probe=probe, own_rpm=rpm,
            on_event=self._notice, tpm=tpm, rate_headers=rate_headers,
        )

    def _endpoint(self, name: str) -> ResolvedEndpoint:
        ep = next((e for e in self.config.api_endpoints() if e.name == name), None)
        if ep is None:
            raise KeyError(name)
        return ep

    def endpoint_limit(self, endpoint: str) -> int:
        """An explicit endpoint's gate is its capacity's limit (before the lanes are built: its
        ``concurrency``); an implicit one (profiles giving base_url themselves) is the smallest share
        among its profiles, console edits included."""
        ep = self._endpoint(endpoint)
        if ep.implicit:
            return min(self.conc[p] for p in ep.profiles)
        cap = self.capacities.get(endpoint)
        return ep.concurrency if cap is None else cap.limit

    def set_endpoint_concurrency(self, endpoint: str, concurrency: int) -> list[Lane]:
        """A Setup edit of an explicit endpoint's gate: it follows at once. Returns the lanes behind it."""
        cap = self.capacities.get(endpoint)
        if cap is not None and not self._endpoint(endpoint).implicit:
            cap.set_limit(concurrency)
        profiles = {p for p, ep in self.endpoint_of.items() if ep == endpoint}
        return [lane for lane in self.lanes if lane.kind == "api" and profiles & set(lane.profiles)]

    def set_concurrency(self, profile: str, concurrency: int) -> list[Lane]:
        """A console edit of an API profile's share: its lanes and its endpoint's gate follow at once.
        Returns the lanes it changed."""
        self.conc[profile] = concurrency
        changed = [lane for lane in self.lanes if lane.kind == "api" and profile in lane.profiles]
        ep = self.endpoint_of.get(profile)
        if ep is not None and ep in self.capacities:
            self.capacities[ep].set_limit(self.endpoint_limit(ep))
        return changed

    def spec(self, rec: TaskRecord, store: TaskStore) -> TaskSpec:
        """What a backend gets for one attempt, with the profile's settings as they are now."""
        prof = self.profiles[rec.profile]
        instructions = rec.system if rec.system is not None else prof.instructions
        history = store.history(rec.route_key, rec.seq) if rec.route_key is not None else ()
        return TaskSpec(
            task_id=rec.task_id, profile=rec.profile, prompt=rec.prompt, attempt=rec.attempt,
            instructions=instructions, need_empty_prompt=self.nep[rec.profile], route_key=rec.route_key,
            history=history, max_tokens=prof.max_tokens,
        )

    def clear(self) -> None:
        self.lanes = []
        self.capacities = {}
        self.economies = []
