"""Two invariants every test keeps when it drives the chat simulator (``mediadesk.sim.web_server``).

They are judged after EVERY test by the autouse fixture ``web_invariants`` in ``tests/conftest.py``:

1. **One generation at a time per session.** The simulator refuses a second generation while one is
   active on the same account (HTTP 409) and records the attempt in its ledger. Any such violation
   recorded during a test fails that test at teardown (naming the account, the prompts and the test).
   A simulator shared between tests (a module-scoped fixture) is judged per test: its ledger's counts
   are taken at setup and only the entries added since are judged. Tests that send overlapping
   generations THEMSELVES (plain HTTP or a hand-driven page, never through the product) to prove the
   refusal carry ``@pytest.mark.sim_concurrency_probe`` and are not judged on this invariant.

2. **A success stores what the site generated.** Every successful ``PageDriver.run`` of the test is
   recorded (page URL, typed text, answer, the adapter's ``answer_format``). A success on a page of a
   tracked simulator (same scheme://host:port as its ``base_url`` while it serves, when the run returned) must have an
   answer equal, after ``.strip()``, to the answer of one of the simulator's "completed" generations
   for that prompt (the prompt the simulator received equals the typed text, whitespace normalised).
   A success for a prompt the simulator completed nothing for fails the test. No normalisation of the
   answers is made: a footer, a status label, an icon's name or an empty string never passes.

How: :func:`install` wraps ``WebSimServer.__init__`` (every simulator of the process is tracked) and
``PageDriver.run`` (successes are recorded through :func:`record_success`, which tests may call
directly) once per test process (per xdist worker) with a ``pytest.MonkeyPatch``; :class:`TestWatch`
takes the per-test snapshot and judges. A test that creates no simulator costs a few list operations.
The simulator's ``ledger()`` covers every generation and violation since the object was created (never
cleared by ``reset_stats()``), so a test that resets the stats cannot hide anything.
"""

from __future__ import annotations

import functools
import threading
import weakref
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest

from mediadesk.providers.web.driver import PageDriver, RunResult
from mediadesk.sim.web_server import WebSimServer

__all__ = ["MARKER", "MARKER_HELP", "Success", "TestWatch", "install", "record_success"]

MARKER = "sim_concurrency_probe"
MARKER_HELP = (
    f"{MARKER}: the test itself sends overlapping generations on one simulator session (plain HTTP or a "
    "hand-driven page, never through the product) to prove the simulator refuses them; the "
    "one-generation-per-session invariant (tests/web_invariants.py) is not judged for it"
)

_lock = threading.Lock()
#: Every simulator created in this process, while it lives.
_sims: weakref.WeakSet[WebSimServer] = weakref.WeakSet()
#: Simulators created since the last judgement, held strongly so one made and dropped inside a test body
#: is still judged at its teardown.
_fresh: list[WebSimServer] = []
#: Successes recorded since the current test's setup.
_successes: list[Success] = []
#: Loopback spellings of one host (a page opened on localhost is the simulator on 127.0.0.1).
_LOOPBACK = {"localhost": "127.0.0.1", "[::1]": "127.0.0.1", "::1": "127.0.0.1"}


@dataclass(frozen=True)
class Success:
    """One successful run, as the driver returned it."""

    url: str
    prompt: str
    answer: str
    answer_format: str
    #: The tracked simulator serving ``url`` when the run returned (None: another site).
    sim: weakref.ref[WebSimServer] | None
    #: How the run decided "done" (its rule, timings and stream events), for the failure message.
    how: str = ""


def _origin(url: str) -> str:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    host = _LOOPBACK.get(host, host)
    return f"{parts.scheme.lower()}://{host}:{parts.port}" if parts.port is not None else ""


def _sim_origin(sim: WebSimServer) -> str:
    if not sim.started:  # stopped: its old port may serve another test's page now
        return ""
    try:
        return _origin(sim.base_url)
    except RuntimeError:  # not started (no port yet)
        return ""


def _live_sims() -> list[WebSimServer]:
    with _lock:
        return [*_sims, *(s for s in _fresh if s not in _sims)]


def record_success(url: str, prompt: str, answer: str, answer_format: str, how: str = "") -> None:
    """Record one successful run (what the ``PageDriver.run`` wrapper calls), judged at teardown."""
    origin = _origin(url)
    sim = next((s for s in _live_sims() if origin and _sim_origin(s) == origin), None) if origin else None
    success = Success(url, prompt, answer, answer_format, weakref.ref(sim) if sim is not None else None, how)
    with _lock:
        _successes.append(success)


def _track(sim: WebSimServer) -> None:
    with _lock:
        _sims.add(sim)
        _fresh.append(sim)


def install(mp: pytest.MonkeyPatch) -> None:
    """Wrap ``WebSimServer.__init__`` and ``PageDriver.run`` (undone by ``mp.undo()``)."""
    sim_init = WebSimServer.__init__

    @functools.wraps(sim_init)
    def tracked_init(self: WebSimServer, *args: Any, **kwargs: Any) -> None:
        sim_init(self, *args, **kwargs)
        _track(self)

    driver_run = PageDriver.run

    @functools.wraps(driver_run)
    async def recorded_run(self: PageDriver, page: Any, text: str, *args: Any, **kwargs: Any) -> RunResult:
        result = await driver_run(self, page, text, *args, **kwargs)
        record_success(str(getattr(page, "url", "") or ""), text, result.answer, self.adapter.answer_format,
                       f"{result.timings}; warnings {list(result.warnings)}")
        return result

    mp.setattr(WebSimServer, "__init__", tracked_init)
    mp.setattr(PageDriver, "run", recorded_run)


def _ledger(sim: WebSimServer) -> dict[str, Any]:
    return sim.ledger()


def _words(text: str) -> str:
    return " ".join(text.split())


def _short(text: str, limit: int = 400) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


class TestWatch:
    """One test's view: the simulators' ledger counts at setup, judged at teardown."""

    __test__ = False  # not a test class, whatever pytest's name rules say

    def __init__(self, test: str) -> None:
        self.test = test
        with _lock:
            _successes.clear()
            _fresh.clear()  # those made before setup (module fixtures) are live below, counted now
            live = list(_sims)
        #: simulator -> (generations, violations) in its ledger at setup (held strongly until teardown)
        self.baseline: dict[WebSimServer, tuple[int, int]] = {}
        for sim in live:
            ledger = _ledger(sim)
            self.baseline[sim] = (len(ledger["generations"]), len(ledger["violations"]))

    def judge(self, *, concurrency: bool = True) -> list[str]:
        """What this test broke (empty: nothing); forgets the test's state either way."""
        with _lock:
            successes, _successes[:] = list(_successes), []
            sims = [*self.baseline, *(s for s in _fresh if s not in self.baseline)]
            _fresh.clear()
        if not sims and not successes:
            return []
        problems: list[str] = []
        ledgers = {sim: _ledger(sim) for sim in sims}
        if concurrency:
            for sim, ledger in ledgers.items():
                for v in ledger["violations"][self.baseline.get(sim, (0, 0))[1] :]:
                    problems.append(self._violation(sim, ledger, v))
        for success in successes:
            served_by = success.sim() if success.sim is not None else None
            if served_by is None:
                continue
            ledger = ledgers.get(served_by) or _ledger(served_by)
            problem = self._answer(success, ledger)
            if problem:
                problems.append(problem)
        self.baseline.clear()
        return problems

    def _violation(self, sim: WebSimServer, ledger: dict[str, Any], v: dict[str, Any]) -> str:
        account = v.get("account")
        running = [
            g["prompt"] for g in ledger["generations"]
            if g.get("account") == account and g.get("started", 0) <= v.get("at", 0)
            and (g.get("ended") is None or g["ended"] >= v.get("at", 0))
        ]  # fmt: skip
        active = ", ".join(_short(p, 120) for p in running) or "none left in the ledger"
        return (
            f"{self.test}: invariant 1 (one generation per session) broken on the chat simulator "
            f"{_sim_origin(sim) or '(stopped)'}: account {account!r} got prompt {_short(v.get('prompt', ''))} "
            f"while a generation was active (active then: {active}); the "
            f"simulator refused it with 409. Only a test that sends overlapping generations itself may carry "
            f"@pytest.mark.{MARKER}."
        )

    def _answer(self, success: Success, ledger: dict[str, Any]) -> str | None:
        want = _words(success.prompt)
        same = [g for g in ledger["generations"] if _words(g.get("prompt", "")) == want]
        completed = [g["answer"] for g in same if g.get("status") == "completed"]
        head = (
            f"{self.test}: invariant 2 (a success stores what the site generated) broken: the run of prompt "
            f"{_short(success.prompt, 200)} on {success.url} (answer_format {success.answer_format!r}) "
        )
        if not completed:
            statuses = [g.get("status") for g in same]
            return head + (
                f"returned a success, but the simulator completed no generation for that prompt "
                f"(its generations for it: {statuses or 'none'}); stored answer {_short(success.answer)}; "
                f"the run: {success.how}"
            )
        if any(success.answer.strip() == a.strip() for a in completed):
            return None
        return head + (
            f"stored {_short(success.answer.strip())}, but the simulator generated "
            f"{' or '.join(_short(a.strip()) for a in dict.fromkeys(completed))}; the run: {success.how}"
        )
