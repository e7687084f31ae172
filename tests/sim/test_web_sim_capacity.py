"""The chat simulator's capacity modes over plain HTTP: outages (refused connections, a 502 gateway
page), a bot check, a usage limit with a reset time, and a final model error."""

from __future__ import annotations

import json
import ssl
import time

import httpx
import pytest

from mediadesk.sim.web_server import CHALLENGE_MESSAGE, MODEL_ERROR_MESSAGE, WebSimConfig, WebSimServer
from tests.support import until

#: The simulators speak plain HTTP; httpx builds a TLS context for every client (~0.2 s each on a loaded
#: machine) unless given one: this one serves them all.
TLS = ssl.create_default_context()

pytestmark = pytest.mark.timeout(60)


def sim_config() -> WebSimConfig:
    return WebSimConfig(time_scale=0.01, fixed_run_s=2, answer_tokens=6)


async def test_refuse_outage_closes_the_port_and_reopens_it_on_the_same_one() -> None:
    async with WebSimServer(sim_config()) as sim:
        port = sim.port
        async with httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
            await c.post("/login", data={"account": "acct-a", "password": "x"})
            # a stream under way is cut when the site goes down
            async with c.stream("POST", "/api/generate", json={"prompt": "[[sim:slow=500]] long"}) as resp:
                assert resp.status_code == 200
                sim.set_outage("refuse")
                with pytest.raises(httpx.HTTPError):
                    async for _ in resp.aiter_lines():
                        pass
            with pytest.raises(httpx.ConnectError):
                await c.get("/chat")
            sim.set_outage(None)
            assert sim.port == port
            assert (await c.get("/chat")).status_code == 200
        # over HTTP: it needs a duration (the admin route is on the closed port) and ends by itself
        async with httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
            assert (await c.post("/admin/outage", json={"mode": "refuse"})).status_code == 400
            assert (await c.post("/admin/outage", json={"mode": "refuse", "seconds": 0.5})).status_code == 200
        await until(lambda: not sim.listening, "the outage to start (just after the answer went out)")
        await until(lambda: sim.listening, "the port to reopen by itself")
        async with httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
            assert (await c.get("/admin/outage")).json() == {"outage": None}
        st = sim.stats()
    assert st["generations"][0]["status"] == "disconnected"


async def test_gateway_outage_serves_502_pages_but_not_the_admin_routes() -> None:
    async with WebSimServer(sim_config()) as sim, httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
        await c.post("/login", data={"account": "acct-a", "password": "x"})
        assert (await c.post("/admin/outage", json={"mode": "502"})).status_code == 200
        await until(lambda: sim.stats()["outage"] == "502", "the outage (in force just after the answer)")
        page = await c.get("/chat")
        assert page.status_code == 502 and "Bad Gateway" in page.text
        assert (await c.post("/api/generate", json={"prompt": "x"})).status_code == 502
        assert (await c.get("/admin/outage")).json() == {"outage": "502"}
        sim.set_outage(None)
        assert (await c.get("/chat")).status_code == 200
        assert sim.stats()["outage_requests"] == 2
        assert (await c.post("/admin/outage", json={"mode": "flood"})).status_code == 400


async def test_challenge_page_and_refused_sends_until_solved() -> None:
    async with WebSimServer(sim_config()) as sim, httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
        await c.post("/login", data={"account": "acct-a", "password": "x"})
        r = await c.post("/admin/challenge", json={"kind": "turnstile", "account": "acct-a"})
        assert r.json() == {"challenge": {"acct-a": "turnstile"}}
        page = await c.get("/chat")
        assert page.status_code == 403 and "turnstile" in page.text and "Verify you are human" in page.text
        refused = await c.post("/api/generate", json={"prompt": "x"})
        assert refused.status_code == 403 and refused.json()["message"] == CHALLENGE_MESSAGE
        assert (await c.get("/challenge/status")).json() == {"challenge": True}
        await c.post("/admin/challenge", json={"kind": None, "account": "acct-a"})
        assert (await c.get("/challenge/status")).json() == {"challenge": False}
        assert (await c.get("/chat")).status_code == 200
        st = sim.stats()
    assert (st["challenge_pages"], st["challenge_refusals"], st["generations_started"]) == (1, 1, 0)


async def test_usage_limit_banner_names_its_reset_time_then_ends_by_itself() -> None:
    async with WebSimServer(sim_config()) as sim, httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
        await c.post("/login", data={"account": "acct-a", "password": "x"})
        reset = time.time() + 0.5
        sim.set_limit(reset)
        r = await c.post("/api/generate", json={"prompt": "x"})
        body = r.json()
        assert r.status_code == 429 and body["style"] == "banner"
        assert f"resets at {time.strftime('%H:%M:%S', time.localtime(reset))}" in body["message"]
        await until(lambda: time.time() >= reset, "the reset time")
        ok = await c.post("/api/generate", json={"prompt": "after"})
        assert ok.status_code == 200 and json.loads(ok.text.splitlines()[-1]) == {"t": "done"}
        limit = await c.post("/admin/limit", json={"in_s": 30, "message": "额度已用完，{reset} 恢复"})
        assert limit.status_code == 200
        assert "额度已用完" in (await c.post("/api/generate", json={"prompt": "y"})).json()["message"]
        assert sim.stats()["limit_refusals"] == 2


async def test_model_error_is_a_400_until_turned_off() -> None:
    async with WebSimServer(sim_config()) as sim, httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
        await c.post("/login", data={"account": "acct-a", "password": "x"})
        assert (await c.post("/admin/model_error", json={})).json() == {"model_error": MODEL_ERROR_MESSAGE}
        r = await c.post("/api/generate", json={"prompt": "x"})
        assert r.status_code == 400 and r.json()["message"] == MODEL_ERROR_MESSAGE
        sim.set_model_error(None)
        assert (await c.post("/api/generate", json={"prompt": "x"})).status_code == 200
        assert sim.stats()["model_errors"] == 1
