"""The chat simulator's page modes: the ways real chat pages get in a driver's way, switched by
``WebSimConfig`` fields, a ``/chat?overlay=...`` query or ``POST /admin/page``.

``overlay``: a "What's New" dialog over the whole page after login (``"escape"``: closed by its
button or the Escape key; ``"sticky"``: by its button only). ``send_block_ms``: the send button's
click handler sends the message, then blocks the page this long (the click does not return although
the prompt went). ``code_widget``: answers with code (:func:`code_answer`) rendered by a
CodeMirror-like editor (``"codemirror"``) or as line-numbered spans (``"lines"``). ``GET /plain`` is
the same chat with other markup (no classes or ids, aria labels only), for adapters that name nothing.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Protocol

from aiohttp import web


class PageSettings(Protocol):
    """The page-mode fields of the server's config (``WebSimConfig``), where the modes live."""

    overlay: str | None
    send_block_ms: int
    code_widget: str


class PageModes:
    """Page-mode routes and switches. ``config`` gives the server's current config; ``account_of`` the
    logged-in account of a request; ``page`` renders one of the site's pages by name."""

    def __init__(
        self,
        config: Callable[[], PageSettings],
        account_of: Callable[[web.Request], str | None],
        page: Callable[[str], web.Response],
    ) -> None:
        self._config = config
        self._account_of = account_of
        self._page = page

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/plain", self._h_plain),
            web.get("/admin/page", self._h_admin_page),
            web.post("/admin/page", self._h_admin_page),
        ]

    def set_page_modes(self, *, overlay: str | None = None, send_block_ms: int = 0, code_widget: str = "pre") -> None:
        """Switch the page modes of later page loads (and of later answers, for ``code_widget``)."""
        _check_page_modes(overlay, send_block_ms, code_widget)
        c = self._config()
        c.overlay, c.send_block_ms, c.code_widget = overlay, send_block_ms, code_widget

    def page_values(self, request: web.Request) -> dict[str, str]:
        """The chat page's template values for the modes (a query overrides the config)."""
        q, c = request.query, self._config()
        overlay = q.get("overlay", c.overlay or "")
        block = q.get("send_block_ms", str(c.send_block_ms))
        widget = q.get("code_widget", c.code_widget)
        return {"overlay": html.escape(overlay, quote=True), "send_block_ms": str(int(block) if block.isdigit() else 0),
                "code_widget": html.escape(widget, quote=True)}

    async def _h_plain(self, request: web.Request) -> web.Response:
        if self._account_of(request) is None:
            return web.Response(status=303, headers={"Location": "/login"})
        return self._page("plain.html")

    async def _h_admin_page(self, request: web.Request) -> web.Response:
        """``POST {"overlay", "send_block_ms", "code_widget"}``: :meth:`set_page_modes`; both: the modes."""
        if request.method == "POST":
            try:
                body = await request.json()
                if not isinstance(body, dict) or set(body) - {"overlay", "send_block_ms", "code_widget"}:
                    raise ValueError("known fields: overlay, send_block_ms, code_widget")
                self.set_page_modes(**body)
            except (ValueError, TypeError) as exc:
                return web.json_response({"error": str(exc)}, status=400)
        c = self._config()
        return web.json_response({"overlay": c.overlay, "send_block_ms": c.send_block_ms, "code_widget": c.code_widget})


OVERLAYS = ("escape", "sticky")
CODE_WIDGETS = ("pre", "codemirror", "lines")


def _check_page_modes(overlay: str | None, send_block_ms: int, code_widget: str) -> None:
    if overlay is not None and overlay not in OVERLAYS:
        raise ValueError(f"overlay must be null or one of {', '.join(OVERLAYS)}, got {overlay!r}")
    if isinstance(send_block_ms, bool) or not isinstance(send_block_ms, int) or not 0 <= send_block_ms <= 60_000:
        raise ValueError(f"send_block_ms must be an integer in 0..60000, got {send_block_ms!r}")
    if code_widget not in CODE_WIDGETS:
        raise ValueError(f"code_widget must be one of {', '.join(CODE_WIDGETS)}, got {code_widget!r}")


#: The code of :func:`code_answer`: nested indentation and a blank line, exactly.
CODE_SAMPLE = "def first(items):\n    if not items:\n        return None\n\n    return items[0]  # 完毕"


def code_answer(prompt: str) -> str:
    """The deterministic Markdown answer of the ``code_widget`` modes: a paragraph, a fenced Python
    block (:data:`CODE_SAMPLE`), a table whose columns are left-, right- and centre-aligned, a closing
    paragraph; in the form an HTML-to-Markdown converter gives back."""
    shown = " ".join(prompt.split())
    if len(shown) > 40:
        shown = shown[:40] + "…"
    shown = re.sub(r"[\\`*_\[\]<>#|~-]", "", shown) or "…"
    return (
        f"好的，这是对「{shown}」的代码 🚀\n\n"
        f"```python\n{CODE_SAMPLE}\n```\n\n"
        "| 名称 | 数量 | 状态 |\n"
        "| :--- | ---: | :---: |\n"
        "| alpha | 12 | ok |\n\n"
        "完毕 ✅"
    )


def code_tokens(prompt: str) -> list[str]:
    """:func:`code_answer` in streamed pieces: one line at a time (with its newline), so a half-built
    line is never re-rendered mid-indentation."""
    return re.findall(r"[^\n]*\n|[^\n]+", code_answer(prompt))
