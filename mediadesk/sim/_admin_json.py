"""The JSON plumbing of the API simulator's ``/admin/*`` endpoints: body field checks and answers.

Shared by the quota, outage and hostile controls, so a typo'd field is refused the same way on each.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from aiohttp import web

__all__ = ["JSON_HEADERS", "Checker", "admin_error", "admin_ok", "flag", "json_body", "opt_int", "opt_number",
           "parse_fields"]

JSON_HEADERS: Final = {"Content-Type": "application/json; charset=utf-8"}

#: Checks one field: ``check(name, value)`` returns the value to use or raises ValueError.
Checker = Callable[[str, object], object]


def opt_int(name: str, value: object) -> int | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ValueError(f"{name} must be an integer or null, got {value!r}")


def opt_number(name: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"{name} must be a number or null, got {value!r}")


def flag(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError(f"{name} must be true or false, got {value!r}")


def parse_fields(body: object, fields: Mapping[str, Checker]) -> dict[str, Any]:
    """Check a JSON body's shape (a typo'd field is an error, not silently ignored)."""
    if not isinstance(body, dict):
        raise ValueError("request body must be a JSON object")
    unknown = sorted(set(body) - set(fields))
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))}; known: {', '.join(fields)}")
    return {name: check(name, body[name]) for name, check in fields.items() if name in body}


async def json_body(request: web.Request) -> Any:
    try:
        return json.loads(await request.read())
    except (ValueError, UnicodeDecodeError):
        raise ValueError("request body is not valid JSON") from None


def admin_ok(**fields: Any) -> web.Response:
    return web.Response(text=json.dumps({"ok": True, **fields}), headers=JSON_HEADERS)


def admin_error(message: str) -> web.Response:
    body = {"ok": False, "error": {"message": message, "type": "invalid_request_error"}}
    return web.Response(status=400, text=json.dumps(body), headers=JSON_HEADERS)
