"""The chat simulator's queued answers (``POST /admin/answers``, ``WebSimServer.queue_answers``): the next
generations give them exactly and in order, then the default answers again; a refused run takes none.
A real server on 127.0.0.1:0, driven over plain HTTP (httpx)."""

from __future__ import annotations

import json
import ssl

import httpx
import pytest

from mediadesk.sim.web_server import WebSimConfig, WebSimServer, answer_tokens

#: The simulators speak plain HTTP; one TLS context serves every client (httpx builds one per client otherwise).
TLS = ssl.create_default_context()

pytestmark = [pytest.mark.timeout(60), pytest.mark.asyncio(loop_scope="module")]

#: Answers whose exact bytes matter: Markdown marks, indentation, Chinese punctuation, a trailing space.
QUEUED = (
    "| a | b |\n|:--|--:|\n| 1 | 2 |\n\n1. 第一，\n   * 子项：`x`\n",
    "```python\ndef f():\n    return 1\n```\n\n$$E = mc^2$$ 完毕！ ",
)


async def generate(c: httpx.AsyncClient, prompt: str) -> tuple[int, str]:
    """(status, the streamed answer's text) of one run."""
    tokens: list[str] = []
    async with c.stream("POST", "/api/generate", json={"prompt": prompt}) as resp:
        if resp.status_code != 200:
            await resp.aread()
            return resp.status_code, ""
        async for line in resp.aiter_lines():
            event = json.loads(line)
            if event["t"] == "token":
                tokens.append(event["d"])
    return resp.status_code, "".join(tokens)


async def test_queued_answers_come_exactly_in_order_then_the_default_ones() -> None:
    async with (
        WebSimServer(WebSimConfig(time_scale=0.01, fixed_run_s=10, answer_tokens=8, seed=3)) as sim,
        httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c,
    ):
        await c.post("/login", data={"account": "acct", "password": "x"})
        r = await c.post("/admin/answers", json={"answers": list(QUEUED)})
        assert r.status_code == 200 and r.json() == {"queued": 2}
        # a run refused before it starts (a busy period) takes none of them
        sim.set_busy(30)
        assert await generate(c, "refused") == (429, "")
        sim.set_busy(0)
        assert (await c.get("/admin/answers")).json() == {"queued": 2}
        got = [await generate(c, f"q{i}") for i in range(3)]
        assert got[0] == (200, QUEUED[0]) and got[1] == (200, QUEUED[1])
        assert got[2] == (200, "".join(answer_tokens("q2", 8)))  # the queue is empty: the default answer again
        records = [g for g in sim.stats()["generations"] if g["status"] == "completed"]
        assert [(g["prompt"], g["answer"]) for g in records] == [("q0", QUEUED[0]), ("q1", QUEUED[1]),
                                                                 ("q2", got[2][1])]  # fmt: skip
        assert (await c.get("/admin/answers")).json() == {"queued": 0}


async def test_a_bad_queue_request_is_refused_and_queues_nothing() -> None:
    async with (
        WebSimServer(WebSimConfig(time_scale=0.01, fixed_run_s=10, answer_tokens=8)) as sim,
        httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c,
    ):
        for body in ({"answers": ["fine", "  "]}, {"answers": "one"}, {"answer": ["x"]}, ["x"]):
            r = await c.post("/admin/answers", json=body)
            assert r.status_code == 400 and r.json()["error"], body
        assert (await c.post("/admin/answers", content=b"not json")).status_code == 400
        with pytest.raises(ValueError, match="non-empty strings"):
            sim.queue_answers(["ok", 3])  # type: ignore[list-item]
        assert (await c.get("/admin/answers")).json() == {"queued": 0}
        assert sim.queue_answers(iter(["a", "b"])) == 2
