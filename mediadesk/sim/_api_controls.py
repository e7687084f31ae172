"""Run-time controls of the API simulator: ``set_quota``/``set_outage``, ``/admin/quota`` and
``/admin/outage``, and the API-key labels the per-key quota and stats are keyed by.
"""

from __future__ import annotations

import enum
import hashlib
import math
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from aiohttp import web

from mediadesk.sim._admin_json import (
    Checker,
    admin_error,
    admin_ok,
    flag,
    json_body,
    opt_int,
    opt_number,
    parse_fields,
)
from mediadesk.sim._api_outages import OutageControl, OutageMode, check_outage_args, parse_outage_body
from mediadesk.sim.api_config import ApiSimConfig

__all__ = [
    "ANONYMOUS_KEY",
    "UNSET",
    "FaultControlMixin",
    "Unset",
    "auth_key_label",
    "key_hash",
    "parse_quota_body",
]

#: Label of requests that carry no ``Authorization`` header (not a hex digest, so never a clash).
ANONYMOUS_KEY: Final = "anonymous"


class Unset(enum.Enum):
    """Type of :data:`UNSET`: "leave this setting as it is" (``None`` already means "none")."""

    UNSET = enum.auto()


UNSET: Final = Unset.UNSET


def key_hash(key: str) -> str:
    """Stats label of an API key: a short sha256 prefix, so the raw key is never stored or printed."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def auth_key_label(authorization: str | None) -> str:
    """Label of an ``Authorization`` header value: the hash of its bearer token (of the whole value
    if it is not a bearer token), or :data:`ANONYMOUS_KEY` without the header."""
    if authorization is None:
        return ANONYMOUS_KEY
    scheme, _, token = authorization.partition(" ")
    return key_hash(token.strip() if scheme.lower() == "bearer" else authorization)


_QUOTA_FIELDS: Final[Mapping[str, Checker]] = {
    "quota": opt_int,
    "per_key_quota": opt_int,
    "retry_after_s": opt_number,
    "send_retry_after": flag,
}


def parse_quota_body(body: object) -> dict[str, Any]:
    """``POST /admin/quota`` body -> keyword arguments of ``set_quota`` (absent fields stay as they are).
    Raises ValueError with a message fit for the HTTP answer."""
    return parse_fields(body, _QUOTA_FIELDS)


class FaultControlMixin:
    """``set_quota``/``set_outage`` and the ``/admin/*`` endpoints of :class:`ApiSimServer`.

    The server owns ``config`` (replaced, never mutated, so a bad value changes nothing) and
    ``_outages``; the request handlers read both on every request, so changes apply at once. Call
    these from the thread that runs the server's event loop (nothing here is locked).
    """

    config: ApiSimConfig
    _outages: OutageControl

    if TYPE_CHECKING:

        def _outage_changed(self) -> None:
            """The server's hook: open or close its port to match the outage in force."""

    def set_quota(
        self,
        quota: int | None,
        *,
        per_key_quota: int | Unset | None = UNSET,
        retry_after_s: float | Unset | None = UNSET,
        send_retry_after: bool | Unset = UNSET,
    ) -> None:
        """Change the limits while requests run (None: no limit); omitted settings stay as they are.

        New requests see the new limits at once; requests already admitted are never cut, so after
        lowering a quota the in-flight count drains down to it. Invalid values raise ValueError and
        change nothing.
        """
        changes: dict[str, Any] = {"quota": quota}
        if not isinstance(per_key_quota, Unset):
            changes["per_key_quota"] = per_key_quota
        if not isinstance(retry_after_s, Unset):
            changes["retry_after_s"] = retry_after_s
        if not isinstance(send_retry_after, Unset):
            changes["send_retry_after"] = send_retry_after
        self.config = replace(self.config, **changes)  # replace() validates through __post_init__

    def set_outage(
        self,
        mode: OutageMode | None,
        duration_s: float | None = None,
        *,
        retry_after_s: float | Unset | None = UNSET,
    ) -> None:
        """Start an outage now (ending one in force and any scheduled one), or end it with None.

        ``duration_s`` ends it by itself (None: until ``set_outage(None)`` or stop). ``retry_after_s``
        is the ``Retry-After`` of its 503/429 answers, None for none; by default the config's (as a
        quota 429), except ``insufficient_quota`` which, as OpenAI's, has none. ``refuse`` closes the
        port before this returns (and re-opens it when the outage ends); call it from the server's loop.
        """
        check_outage_args(mode, duration_s)
        if isinstance(retry_after_s, Unset):
            header = self._outage_retry_after(mode)
        elif retry_after_s is None:
            header = None
        elif retry_after_s >= 0 and math.isfinite(retry_after_s):
            header = f"{retry_after_s:g}"
        else:
            raise ValueError(f"retry_after_s must be >= 0, got {retry_after_s!r}")
        self._outages.set(mode, duration_s, header)
        self._outage_changed()

    def _outage_retry_after(self, mode: OutageMode | None) -> str | None:
        return None if mode == "insufficient_quota" else self.config.retry_after_header

    def _admin_routes(self) -> list[web.RouteDef]:
        """Control endpoints: never counted in stats, never affected by an outage."""
        return [
            web.get("/admin/quota", self._admin_quota),
            web.post("/admin/quota", self._admin_quota),
            web.get("/admin/outage", self._admin_outage),
            web.post("/admin/outage", self._admin_outage),
        ]

    async def _admin_quota(self, request: web.Request) -> web.Response:
        """``POST``: ``set_quota`` from a JSON object (absent fields stay); both: the current limits."""
        if request.method == "POST":
            try:
                kwargs = parse_quota_body(await json_body(request))
                self.set_quota(kwargs.pop("quota", self.config.quota), **kwargs)
            except ValueError as exc:
                return admin_error(str(exc))
        cfg = self.config
        return admin_ok(
            quota=cfg.quota,
            per_key_quota=cfg.per_key_quota,
            retry_after_s=cfg.retry_after_s,
            send_retry_after=cfg.send_retry_after,
        )

    async def _admin_outage(self, request: web.Request) -> web.Response:
        """``POST``: ``set_outage`` from ``{"mode": ..., "duration_s": ..., "retry_after_s": ...}``;
        both: the outage stats (``outage``, ``requests_during_outage``, ``outages``)."""
        if request.method == "POST":
            try:
                kwargs = parse_outage_body(await json_body(request))
                self.set_outage(kwargs.pop("mode"), **kwargs)
            except ValueError as exc:
                return admin_error(str(exc))
        return admin_ok(**self._outages.stats())
