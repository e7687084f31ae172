"""Test helpers importable from any test module."""

from __future__ import annotations

from mediadesk.config import AppConfig, parse_config

FAST = {
    "retry": {"max_retries": 2, "backoff_base_s": 0.01, "backoff_max_s": 0.2},
    "heartbeat": {"interval_s": 0.05, "stale_after_s": 0.5},
    "scheduler": {"poll_interval_s": 0.05, "kill_grace_s": 1.0},
}


def make_config(profiles: list[dict], accounts: list[dict] | None = None, **extra: object) -> AppConfig:
    data: dict = {**FAST, "profiles": profiles, "accounts": accounts or []}
    for k, v in extra.items():
        data[k] = {**data.get(k, {}), **v} if isinstance(v, dict) else v
    return parse_config(data, "test-config")
