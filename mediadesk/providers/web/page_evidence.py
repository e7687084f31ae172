"""Evidence of a failed web run: a screenshot, the page HTML and what the send step saw, written to
private files."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path

from playwright.async_api import Page

from mediadesk.files.safe import UnsafePathError, ensure_private_dir, write_private_file
from mediadesk.providers.web.page_session import first_line

__all__ = ["save_evidence"]

log = logging.getLogger("mediadesk.providers.web.driver")

_EVIDENCE_TIMEOUT_S = 5.0


async def save_evidence(
    page: Page, dir: Path, stem: str, take_trace: Callable[[Page], list[str] | None],
) -> list[Path]:
    """Save a full-page PNG and the page HTML for a failed run, and (when the send step had
    something to say: ``take_trace``) ``<stem>.txt``: what covered the button, Playwright's call
    log, what the "did it leave?" check saw. Returns what was written.

    Never raises (except for task cancellation): evidence must not mask the real failure. Folder and
    files are private (0700 / 0600) and written by us, never through a link planted at their names.
    """
    written: list[Path] = []
    try:
        await asyncio.to_thread(ensure_private_dir, dir, what="evidence folder")
    except (OSError, UnsafePathError) as exc:
        log.warning("evidence: cannot create %s: %s", dir, exc)
        return written
    png = dir / f"{stem}.png"
    try:
        shot = await page.screenshot(full_page=True, timeout=_EVIDENCE_TIMEOUT_S * 1000)
        await asyncio.to_thread(write_private_file, png, shot, "evidence file")
        written.append(png)
    except Exception as exc:
        log.warning("evidence: screenshot failed: %s", first_line(exc))
    html = dir / f"{stem}.html"
    try:
        content = await asyncio.wait_for(page.content(), _EVIDENCE_TIMEOUT_S)
        header = f"<!-- saved by MediaDesk from {json.dumps(page.url)} -->\n"
        await asyncio.to_thread(write_private_file, html, header + content, "evidence file")
        written.append(html)
    except Exception as exc:
        log.warning("evidence: page HTML failed: %s", first_line(exc))
    notes = take_trace(page)
    if notes:  # what the send step saw: covering elements, Playwright's call log, the leave check
        txt = dir / f"{stem}.txt"
        try:
            body = f"MediaDesk send diagnostics for {page.url}\n\n" + "\n\n".join(notes) + "\n"
            await asyncio.to_thread(write_private_file, txt, body, "evidence file")
            written.append(txt)
        except Exception as exc:
            log.warning("evidence: send diagnostics failed: %s", first_line(exc))
    return written
