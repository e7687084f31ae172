"""The page-side code of the web driver: the scripts in ``js/*.js`` (one page function body each, with
``js/helpers.js`` in scope), read once, and the calls into the watcher that ``install.js`` leaves in
the page. Some scripts are joined so that steps that need not wait for each other go out as one
round trip."""

from __future__ import annotations

from importlib import resources

__all__ = [
    "AIM_SEND_JS",
    "CONFIRM_SENT_JS",
    "DISMISS_JS",
    "HOLDS_JS",
    "INSTALL_JS",
    "LOGGED_IN_JS",
    "MARK_JS",
    "NEW_CHAT_JS",
    "NEW_CHAT_TYPE_JS",
    "NEXT_JS",
    "READY_JS",
    "READY_TO_SEND_JS",
    "READY_TYPE_JS",
    "RESUME_JS",
    "SELECT_PROMPT_JS",
    "SET_STREAM_JS",
    "STOP_JS",
    "WAIT_IDLE_JS",
    "WAIT_UNCOVERED_JS",
]


def _read_js(name: str) -> str:
    return resources.files("mediadesk.providers.web").joinpath("js", name).read_text(encoding="utf-8")


_HELPERS = _read_js("helpers.js")


def _script(name: str) -> str:
    """The page function ``(cfg) => {...}`` of ``js/<name>``, with the shared helpers in scope."""
    return "(cfg) => {\n" + _HELPERS + "\n" + _read_js(name) + "\n}"


# The readiness wait, resolving {state, busyWaitMs} (how long a generation in progress was waited out).
READY_JS = ("(cfg) => {\n" + _HELPERS + "\nconst __ready = (() => {\n" + _read_js("ready.js")
            + "\n})();\nreturn __ready.then((state) => ({state, busyWaitMs: window.__mediadeskBusyWaitMs || 0}));\n}")
NEW_CHAT_JS = _script("new_chat.js")
INSTALL_JS = _script("install.js")
STOP_JS = _script("stop.js")
WAIT_IDLE_JS = _script("wait_idle.js")
LOGGED_IN_JS = _script("logged_in.js")
# prepare() given the text: wait until ready, then install the watcher and type, in one
# round trip: {state} or {state: 'ready', info} (info: what install.js returns).
_READY_TYPE_BODY = ("const __ready = (() => {\n" + _read_js("ready.js")
                    + "\n})();\nreturn __ready.then((state) => state !== 'ready' ? {state} : Promise.resolve((() => {\n"
                    + _read_js("install.js") + "\n})()).then((info) => ({state, info, "
                    + "busyWaitMs: window.__mediadeskBusyWaitMs || 0})));")
READY_TYPE_JS = "(cfg) => {\n" + _HELPERS + "\n" + _READY_TYPE_BODY + "\n}"
# prepare() with the new-chat click made from the page (js/new_chat_click.js): one round trip.
NEW_CHAT_TYPE_JS = ("(cfg) => {\n" + _HELPERS + "\n" + _read_js("new_chat_click.js")
                    .replace("__NEW_CHAT__", _read_js("new_chat.js"))
                    .replace("__READY_TYPE__", _READY_TYPE_BODY) + "\n}")
# Calls into the watcher that install.js left in the page.
READY_TO_SEND_JS = "(text) => window.__mediadeskWatch.readyToSend(text)"
SELECT_PROMPT_JS = "() => window.__mediadeskWatch.selectPrompt()"
NEXT_JS = "([v, progress]) => window.__mediadeskWatch.next(v, progress)"
RESUME_JS = "(s) => window.__mediadeskWatch.resume(s)"
CONFIRM_SENT_JS = "([text, ms]) => window.__mediadeskWatch.confirmSent(text, ms)"
SET_STREAM_JS = "([s, n]) => { const w = window.__mediadeskWatch; if (w && w.setStream) w.setStream(s, n); }"
AIM_SEND_JS = "() => window.__mediadeskWatch.aimSend()"
WAIT_UNCOVERED_JS = "([what, ms]) => window.__mediadeskWatch.waitUncovered(what, ms)"
DISMISS_JS = "() => window.__mediadeskWatch.dismiss()"
MARK_JS = "(what) => window.__mediadeskWatch.mark(what)"
HOLDS_JS = "(text) => window.__mediadeskWatch.holds(text)"
