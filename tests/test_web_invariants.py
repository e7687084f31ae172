"""The web invariants' fixture (tests/web_invariants.py) can fail a test: each case runs a tiny generated
test file in its own pytest process (``pytester``), with tests/conftest.py loaded as a plugin (so the
wiring checked is the real one), against a real ``WebSimServer`` on 127.0.0.1."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from tests.support import ROOT

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.timeout(120)

HEADER = '''
import asyncio
import contextlib

import httpx
import pytest

from mediadesk.sim.web_server import WebSimConfig, WebSimServer, answer_tokens
from tests import web_invariants

CONFIG = WebSimConfig(time_scale=0.01, fixed_run_s=30, answer_tokens=6)


@contextlib.asynccontextmanager
async def logged_in(sim):
    async with httpx.AsyncClient(base_url=sim.base_url) as c:
        await c.post("/login", data={"account": "acct-1", "password": "x"})
        yield c


async def two_at_once(sim):
    async with logged_in(sim) as c:
        first, second = await asyncio.gather(
            c.post("/api/generate", json={"prompt": "first prompt"}),
            c.post("/api/generate", json={"prompt": "overlapping prompt"}),
        )
    assert sorted([first.status_code, second.status_code]) == [200, 409]


async def generate(sim, prompt):
    async with logged_in(sim) as c:
        r = await c.post("/api/generate", json={"prompt": prompt})
    assert r.status_code == 200
    return "".join(answer_tokens(prompt, 6))
'''


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], pytest.RunResult]:
    """Runs a generated test file (``HEADER`` + the body) in its own pytest process."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))

    def run(body: str) -> pytest.RunResult:
        pytester.makepyfile(test_case=HEADER + body)
        return pytester.runpytest_subprocess(
            "-p", "tests.conftest", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto",
            "-o", "asyncio_default_fixture_loop_scope=function", "-rA",
        )  # fmt: skip

    return run


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """test name -> its last reported outcome (``-rA`` lists a teardown error after the call's PASSED)."""
    seen: dict[str, str] = {}
    for line in result.outlines:
        word, _, rest = line.partition(" test_case.py::")
        if rest and word in ("PASSED", "FAILED", "ERROR"):
            seen[rest.split(" ", 1)[0]] = word
    return seen


def test_broken_invariants_fail_the_test_at_teardown(inner: Callable[[str], pytest.RunResult]) -> None:
    result = inner('''
import pytest_asyncio


async def test_overlap():  # the simulator is made and dropped inside the test: still judged
    async with WebSimServer(CONFIG) as sim:
        await two_at_once(sim)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared():
    async with WebSimServer(CONFIG) as s:
        yield s


@pytest.mark.asyncio(loop_scope="module")
async def test_overlap_on_a_module_simulator(shared):
    await two_at_once(shared)
    shared.reset_stats()  # the ledger is not cleared: the violation is still judged


@pytest.mark.asyncio(loop_scope="module")
async def test_clean_after_on_the_module_simulator(shared):
    await generate(shared, "a later prompt")  # judged on what happened during this test only


async def test_wrong_answer():
    async with WebSimServer(CONFIG) as sim:
        answer = await generate(sim, "say  hello\\n")
        web_invariants.record_success(sim.chat_url, "say hello", answer + " Copy", "text")


async def test_empty_answer():
    async with WebSimServer(CONFIG) as sim:
        await generate(sim, "say hello")
        web_invariants.record_success(sim.chat_url, "say hello", "", "text")


async def test_nothing_generated():
    async with WebSimServer(CONFIG) as sim:
        await generate(sim, "say hello")
        web_invariants.record_success(sim.chat_url, "another prompt", "anything", "text")
''')
    assert outcomes(result) == {
        "test_overlap": "ERROR", "test_overlap_on_a_module_simulator": "ERROR",
        "test_clean_after_on_the_module_simulator": "PASSED", "test_wrong_answer": "ERROR",
        "test_empty_answer": "ERROR", "test_nothing_generated": "ERROR",
    }, result.stdout.str()  # fmt: skip
    result.assert_outcomes(passed=6, errors=5)  # every test body passed; the teardowns failed
    out = result.stdout.str()
    assert "ERROR at teardown of test_overlap" in out
    assert "test_case.py::test_overlap: invariant 1 (one generation per session) broken" in out
    assert "account 'acct-1' got prompt 'overlapping prompt'" in out and "(active then: 'first prompt')" in out
    assert "test_case.py::test_overlap_on_a_module_simulator: invariant 1" in out
    assert "test_case.py::test_wrong_answer: invariant 2 (a success stores what the site generated) broken" in out
    assert "Copy'" in out and "test_case.py::test_empty_answer: invariant 2" in out
    assert "test_case.py::test_nothing_generated: invariant 2" in out
    assert "completed no generation for that prompt" in out


def test_clean_tests_and_probes_pass(inner: Callable[[str], pytest.RunResult]) -> None:
    result = inner('''
@pytest.mark.sim_concurrency_probe
async def test_probe_may_overlap():
    async with WebSimServer(CONFIG) as sim:
        await two_at_once(sim)


async def test_right_answer():
    async with WebSimServer(CONFIG) as sim:
        answer = await generate(sim, "say hello")
        # The typed text may differ in whitespace; the stored answer may carry outer whitespace.
        url = sim.chat_url.replace("127.0.0.1", "localhost")
        web_invariants.record_success(url, " say\\n hello", f"\\n{answer} ", "text")
        await generate(sim, "one after the other")  # sequential generations on one session are fine


async def test_other_sites_are_not_judged():
    web_invariants.record_success("http://127.0.0.1:9/chat", "x", "whatever", "text")


def test_no_simulator():
    assert True
''')
    result.assert_outcomes(passed=4)
