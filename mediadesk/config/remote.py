"""The ``[remote]`` table: the local HTTP API (``mediadesk serve``, or the console when ``enabled``),
its webhooks and its command hooks.

Secrets are never values here, only where to find them: ``token_env`` / ``token_keyring`` name the
API token's environment variable or keyring entry (read like the API keys), ``secret_env`` names a
webhook's signing secret. The event names are the public ones a receiver switches on.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: What a webhook or a command hook can listen to (``budget_reached``: a budget cap stopped a lane).
EventKind = Literal["batch_done", "task_failed", "account_needs_person", "endpoint_stopped", "budget_reached"]
EVENT_KINDS: tuple[str, ...] = (
    "batch_done", "task_failed", "account_needs_person", "endpoint_stopped", "budget_reached",
)
DEFAULT_PORT = 8765

_ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _env_name(v: str | None) -> str | None:
    if v is not None and not _ENV_RE.match(v):
        raise ValueError("must be the NAME of an environment variable (the secret itself never goes in the config)")
    return v


class _Strict(BaseModel):
    # the same strictness as every other table (mediadesk.config.model._Strict)
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class WebhookConfig(_Strict):
    """``[[remote.webhooks]]``: POST each event of ``events`` to ``url`` as JSON."""

    url: str
    events: tuple[EventKind, ...] = Field(..., strict=False, min_length=1)
    #: Environment variable holding the HMAC-SHA256 key; without it deliveries are not signed.
    secret_env: str | None = None
    #: Attempts per delivery (the first included), then it is dropped and logged.
    max_attempts: int = Field(8, ge=1, le=100)
    backoff_base_s: float = Field(1.0, gt=0, le=3600)
    backoff_max_s: float = Field(300.0, gt=0, le=86400)
    timeout_s: float = Field(10.0, gt=0, le=600)

    _secret = field_validator("secret_env")(classmethod(lambda cls, v: _env_name(v)))

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not re.match(r"^https?://[^/\s]+", v):
            raise ValueError("must be an http:// or https:// URL")
        return v


class CommandHookConfig(_Strict):
    """``[[remote.commands]]``: run ``program`` (an argv list, no shell) with the event JSON on stdin."""

    program: tuple[str, ...] = Field(..., strict=False, min_length=1)
    events: tuple[EventKind, ...] = Field(..., strict=False, min_length=1)
    timeout_s: float = Field(30.0, gt=0, le=3600)


class RemoteConfig(_Strict):
    #: The console starts the API with the workspace (``mediadesk serve`` always does).
    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = Field(DEFAULT_PORT, ge=0, le=65535)  # 0: any free port (printed at start)
    token_env: str | None = None
    token_keyring: str | None = None
    #: TLS: both or neither. Required to listen beyond loopback unless ``allow_remote``.
    tls_cert: Path | None = Field(None, strict=False)
    tls_key: Path | None = Field(None, strict=False)
    #: Listen beyond loopback without TLS (a trusted network only: the token travels in clear).
    allow_remote: bool = False
    #: Failed token checks per client address within ``auth_window_s`` before it gets 429.
    auth_failures: int = Field(10, ge=1, le=1_000_000)
    auth_window_s: float = Field(60.0, gt=0, le=86400)
    webhooks: tuple[WebhookConfig, ...] = Field((), strict=False)
    commands: tuple[CommandHookConfig, ...] = Field((), strict=False)

    _token = field_validator("token_env")(classmethod(lambda cls, v: _env_name(v)))

    @field_validator("token_keyring")
    @classmethod
    def _keyring(cls, v: str | None) -> str | None:
        if v is not None:
            service, sep, username = v.partition(":")
            if not sep or not service.strip() or not username.strip():
                raise ValueError("must be a keyring entry 'service:username' (the token never goes in the config)")
        return v

    @model_validator(mode="after")
    def _tls_pair(self) -> RemoteConfig:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together: give both or neither")
        return self
