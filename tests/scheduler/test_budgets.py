"""Budgets over a real SQLite store: costs stored with the usage, the 80 % notice, a stop before a task
would pass the cap, a raised cap, and a day roll-over with an injected clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from mediadesk.core.hours import epoch_of
from mediadesk.core.states import TaskState
from mediadesk.core.usage import Usage
from mediadesk.scheduler.budgets import Budgets
from mediadesk.store import NewTask, TaskStore, open_store
from tests.support import make_config

URL = "http://127.0.0.1:9/v1"


def config(**budget: object) -> object:
    return make_config(
        [{"name": "writer", "kind": "api", "endpoint": "reseller", "model": "gpt-x"},
         {"name": "other", "kind": "api", "base_url": URL, "model": "gpt-x"}],
        endpoints=[{"name": "reseller", "base_url": URL,
                    "prices": {"gpt-x": {"input": 1.0, "output": 2.0, "currency": "EUR"}}}],
        prices={"gpt-x": {"input": 10.0, "output": 20.0}},
        budgets=[{"endpoint": "reseller", **budget}],
    )


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def store(tmp_path: Path) -> TaskStore:
    s = open_store(tmp_path / "t.db")
    yield s
    s.close()


def run_one(store: TaskStore, tid: str, profile: str, usage: Usage, now: float, batch: str | None = None) -> None:
    store.add_tasks([NewTask(task_id=tid, profile=profile, prompt="p" * 40, model_kind="api", batch=batch)], now=now)
    (rec,) = store.claim([profile], 1, lane=f"api:{profile}", account=None, owner="me", now=now)
    store.finish(rec, TaskState.SUCCESS, result="ok", usage=usage, now=now)


def test_costs_are_stored_at_the_endpoints_price_and_summed_per_currency(store: TaskStore) -> None:
    cfg = config(per="total", max_cost=100.0, currency="EUR")
    b = Budgets(cfg, store, clock=Clock(1e9), notice=lambda _m: None)
    store.set_pricing(b.prices, b.spent)
    run_one(store, "a", "writer", Usage(1_000_000, 500_000, 200_000), 1e9)
    run_one(store, "b", "other", Usage(1000, 1000), 1e9)
    a, o = store.get("a"), store.get("b")
    assert a is not None and a.currency == "EUR"      # the reseller's own price wins
    assert a.cost == pytest.approx(0.8 * 1.0 + 0.2 * 1.0 + 0.5 * 2.0)  # cached defaults to the input price
    assert o is not None and o.currency == "USD" and o.cost == pytest.approx((1000 * 10 + 1000 * 20) / 1e6)
    assert b.totals("endpoint", "reseller").money == {"EUR": pytest.approx(2.0)}
    rows = {(r.key, r.currency): r.cost for r in store.spend_rows("profile")}
    assert rows == {("writer", "EUR"): pytest.approx(2.0), ("other", "USD"): pytest.approx(0.03)}


def test_a_stop_before_the_cap_the_80_percent_notice_and_a_raised_cap(store: TaskStore) -> None:
    notices: list[str] = []
    cfg = config(per="total", max_cost=1.0, currency="EUR")
    b = Budgets(cfg, store, clock=Clock(1e9), notice=notices.append)
    store.set_pricing(b.prices, b.spent)
    # 0.85 EUR spent: 1,000 prompt + 1,000 completion expected next = 0.003 EUR, still fits, with a notice
    run_one(store, "a", "writer", Usage(250_000, 300_000), 1e9)
    store.add_tasks([NewTask(task_id="n", profile="writer", prompt="p" * 40, model_kind="api", priority=-1)], now=1e9)
    head = store.head_pending(["writer"], account=None, now=1e9)
    assert head is not None and b.check(head, 1e9) is None
    assert len(notices) == 1 and "budget at 85 %" in notices[0] and "endpoint reseller: €1.00 in total" in notices[0]
    assert b.check(head, 1e9) is None and len(notices) == 1  # once per cap and window
    # the next one would pass the cap: stopped, said once, the task untouched
    run_one(store, "c", "writer", Usage(100_000, 24_500), 1e9)   # 0.149 EUR: 0.999 used, ~0.001 expected next
    stop = b.check(head, 1e9)
    assert stop is not None and stop.budget.key == "endpoint:reseller:total:EUR"
    assert "budget reached: endpoint reseller: €1.00 in total (€1.00 used so far)" in stop.message()
    assert "max_cost of [[budgets]] entry 1" in stop.message() and len(notices) == 2
    assert store.get("n").state == TaskState.PENDING and store.get("n").attempt == 0
    # a task of another endpoint is not held by it
    other = store.add_tasks([NewTask(task_id="o", profile="other", prompt="q", model_kind="api")], now=1e9)
    assert other.added and b.check(store.get("o"), 1e9) is None
    # raised: kept in the database, in effect at once, and for the next process too
    b.raise_cap("endpoint:reseller:total:EUR", 2.0)
    assert b.check(head, 1e9) is None and b.stops == {}
    again = Budgets(cfg, store, clock=Clock(1e9), notice=notices.append)
    assert [x.limit for x in again.budgets] == [2.0]


def test_a_daily_cap_starts_again_when_the_local_day_rolls_over(store: TaskStore) -> None:
    evening = datetime(2026, 6, 10, 23, 59, 0)
    clock = Clock(epoch_of(evening))
    cfg = config(per="day", max_tokens=10_000)
    b = Budgets(cfg, store, clock=clock, notice=lambda _m: None)
    store.set_pricing(b.prices, b.spent)
    run_one(store, "a", "writer", Usage(5_000, 4_500), clock.t)
    store.add_tasks([NewTask(task_id="n", profile="writer", prompt="p" * 400, model_kind="api")], now=clock.t)
    head = store.head_pending(["writer"], account=None, now=clock.t)
    assert head is not None
    stop = b.check(head, clock.t)
    assert stop is not None and "10,000 tokens per day" in stop.message() and "wait for tomorrow" in stop.message()
    clock.t = epoch_of(evening + timedelta(minutes=1, seconds=1))  # 00:00:01 the next day
    assert b.check(head, clock.t) is None
    assert b.used(b.budgets[0]) == 0.0 and b.totals("endpoint", "reseller").tokens == 9_500
