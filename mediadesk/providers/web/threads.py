"""Conversations on a web account: where each conversation's chat thread is, so a later turn is typed
into the same thread instead of a new chat.

A chat site keeps the conversation itself (its thread has the earlier turns and the instructions), so
a later turn sends only the new prompt. A thread is found again by its URL, remembered after each turn
(many sites give the thread its URL only after the first answer). A site whose threads have no URL of
their own (the chat page's URL never changes) can only continue a thread while the page still shows it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from urllib.parse import urlsplit

#: Conversations per account whose thread URL is kept (least recently used are forgotten).
THREADS_KEPT = 1000


def same_url(a: str, b: str) -> bool:
    """Same address, ignoring a trailing slash of the path (query and fragment count: they may
    name the thread)."""
    x, y = urlsplit(a), urlsplit(b)
    return (x.scheme, x.netloc, x.path.rstrip("/"), x.query, x.fragment) == (
        y.scheme, y.netloc, y.path.rstrip("/"), y.query, y.fragment)


class ThreadBook:
    """route_key -> thread URL on this account, plus which conversation the warm page shows now."""

    def __init__(self, chat_url: str, kept: int = THREADS_KEPT) -> None:
        self.chat_url = chat_url
        self._kept = kept
        self._urls: OrderedDict[str, str] = OrderedDict()
        #: (page, route_key) the warm page shows; compared by page identity, so a replaced page
        #: (after a failure) or a new chat forgets it.
        self._shown: tuple[object, str] | None = None

    def url(self, route_key: str) -> str | None:
        return self._urls.get(route_key)

    def shows(self, page: object, route_key: str) -> bool:
        """True while ``page`` still shows the thread of ``route_key`` (nothing else ran on it)."""
        return self._shown is not None and self._shown[0] is page and self._shown[1] == route_key

    def addressable(self, url: str) -> bool:
        """Whether loading ``url`` reopens the thread (it is not just the site's new-chat page)."""
        return not same_url(url, self.chat_url)

    def after_turn(self, page: object, url: str, route_key: str | None) -> None:
        """A run ended well on ``page`` (now at ``url``): remember the thread of its conversation."""
        if route_key is None:
            self._shown = None
            return
        self._shown = (page, route_key)
        self._urls[route_key] = url
        self._urls.move_to_end(route_key)
        while len(self._urls) > self._kept:
            self._urls.popitem(last=False)

    def page_moved(self) -> None:
        """The warm page left the thread it showed (new chat, reload)."""
        self._shown = None


def replay(history: Sequence[tuple[str, str]], prompt: str) -> str:
    """One message carrying the earlier turns and the new prompt, for a later turn whose thread
    cannot be reopened on this account (it ran elsewhere, or the site has no thread URLs)."""
    lines = ["Earlier in this conversation:"]
    for asked, answered in history:
        lines += [f"User: {asked}", f"Assistant: {answered}"]
    lines += ["", "Now:", prompt]
    return "\n".join(lines)
