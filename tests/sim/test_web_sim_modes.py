"""The chat simulator's optional modes: a session-cookie login, logged-out visits sent to the login
form, failed logins counted, and answers streamed as Markdown (over plain HTTP, a real server)."""

from __future__ import annotations

import argparse
import json
import ssl

import httpx
import pytest

from mediadesk.sim.web_server import (
    SESSION_COOKIE,
    WebSimConfig,
    WebSimServer,
    add_arguments,
    config_from_args,
    markdown_answer,
    markdown_tokens,
)

#: The simulators speak plain HTTP; httpx builds a TLS context for every client (~0.2 s each on a loaded
#: machine) unless given one: this one serves them all.
TLS = ssl.create_default_context()


@pytest.mark.parametrize("session", [True, False])
async def test_login_cookie_is_a_session_cookie_only_in_that_mode(session: bool) -> None:
    async with (
        WebSimServer(WebSimConfig(time_scale=0.01, session_cookie=session)) as sim,
        httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c,
    ):
        r = await c.post("/login", data={"account": "a", "password": "pw"})
        header = r.headers["set-cookie"].lower()
        assert header.startswith(SESSION_COOKIE + "=")
        assert ("max-age" in header or "expires" in header) is not session


async def test_login_redirect_and_failed_logins_are_counted() -> None:
    async with (
        WebSimServer(WebSimConfig(time_scale=0.01, password="right", login_redirect=True)) as sim,
        httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c,
    ):
        r = await c.get("/chat")
        assert (r.status_code, r.headers["location"]) == (303, "/login")
        assert (await c.post("/login", data={"account": "a", "password": "wrong"})).status_code == 401
        assert (await c.post("/login", data={"account": "a", "password": ""})).status_code == 400
        assert (await c.post("/login", data={"account": "a", "password": "right"})).status_code == 303
        assert (await c.get("/chat")).status_code == 200
        assert (sim.stats()["logins"], sim.stats()["login_failures"]) == (1, 2)


async def test_markdown_answers_stream_their_source_and_the_page_renders_it() -> None:
    prompt = "explain *this* `thing` please"
    source = markdown_answer(prompt)
    assert "*this*" not in source and "`thing`" not in source  # the echo carries no Markdown of the user's
    assert "".join(markdown_tokens(prompt)) == source
    async with (
        WebSimServer(WebSimConfig(time_scale=0.001, answer_style="markdown")) as sim,
        httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c,
    ):
        await c.post("/login", data={"account": "a", "password": "pw"})
        assert 'data-answer-style="markdown"' in (await c.get("/chat")).text
        assert "simchatMarkdown" in (await c.get("/static/markdown.js")).text
        async with c.stream("POST", "/api/generate", json={"prompt": prompt}) as r:
            events = [json.loads(line) async for line in r.aiter_lines() if line]
        assert "".join(e["d"] for e in events if e["t"] == "token") == source
        assert events[-1] == {"t": "done"}


def test_cli_flags_reach_the_config() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    cfg = config_from_args(parser.parse_args(["--session-cookie", "--login-redirect", "--answer-style", "markdown"]))
    assert (cfg.session_cookie, cfg.login_redirect, cfg.answer_style) == (True, True, "markdown")
    with pytest.raises(ValueError, match="answer_style"):
        WebSimConfig(answer_style="rich")
