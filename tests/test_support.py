"""The shared test helpers: a missing resource skips locally and fails under CI; one CLI runner."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from tests.support import Result, mediadesk, mediadesk_async, require, skip_unless, under_ci

TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize(("value", "ci"), [("", False), ("0", False), ("false", False), ("true", True),
                                           ("1", True), ("TRUE", True)])
def test_ci_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch, value: str, ci: bool) -> None:
    monkeypatch.setenv("CI", value)
    assert under_ci() is ci


def test_a_missing_resource_skips_locally(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    require(True, "present")
    with pytest.raises(pytest.skip.Exception, match="no browser"):
        require(False, "no browser")


def test_a_missing_resource_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    require(True, "present")
    with pytest.raises(pytest.fail.Exception, match=r"no browser .*fails under CI"):
        require(False, "no browser")


def test_an_environment_skip_says_so() -> None:
    mark = skip_unless(False, "needs root")
    assert mark.args == (True,)
    assert "needs root" in mark.kwargs["reason"] and "depends on the environment" in mark.kwargs["reason"]


def test_no_test_skips_by_itself() -> None:
    """Every skip goes through tests/support.py, so none can hide from CI: a test module that calls
    pytest.skip / skipif / importorskip itself is listed here."""
    direct = re.compile(r"pytest\.skip\(|pytest\.mark\.skip|skipif\(|importorskip\(")
    offenders = [
        f"{p.relative_to(TESTS)}:{n}"
        for p in sorted(TESTS.rglob("*.py")) if p.name not in ("support.py", "test_support.py")
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if direct.search(line)
    ]
    assert offenders == []


def test_the_runner_reports_exit_code_and_both_streams() -> None:
    res = mediadesk("--version-that-does-not-exist")
    assert isinstance(res, Result)
    rc, out, err = res
    assert rc == 2 and out == "" and "usage" in err.lower()


async def test_the_async_runner_keeps_the_loop_serving() -> None:
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(tick())
    try:
        res = await mediadesk_async("cancel", "t1", "--db", str(TESTS / "no-such.db"))
    finally:
        ticker.cancel()
    assert res.refused("database not found"), res
    assert ticks > 1  # the loop ran while the process did (an interpreter start takes far longer than 10 ms)
