"""The shared Playwright driver belongs to its event loop: a second loop in the same process gets its
own, even when a user on the first never released it (a stop cancelled half-way, a command or a test
run before). Real Playwright drivers; two lanes acquire at once, as the demo's two accounts do."""

from __future__ import annotations

import asyncio

from mediadesk.providers.web.playwright_hub import PlaywrightHub


async def _two_lanes_acquire() -> tuple[object, object]:
    return tuple(await asyncio.gather(PlaywrightHub.acquire(), PlaywrightHub.acquire()))  # type: ignore[return-value]


def test_a_second_loop_gets_its_own_driver_though_the_first_was_never_released() -> None:
    async def first_loop() -> None:
        a, b = await _two_lanes_acquire()  # contended: the start lock is now bound to this loop
        assert a is b
        await PlaywrightHub.release()  # one user never releases

    async def second_loop() -> None:
        a, b = await _two_lanes_acquire()
        try:
            assert a is b
            # a working driver of this loop: it answers (the first loop's would raise here)
            assert a.chromium.name == "chromium"  # type: ignore[attr-defined]
            assert await asyncio.wait_for(a.request.new_context(), 30) is not None  # type: ignore[attr-defined]
        finally:
            await PlaywrightHub.release()
            await PlaywrightHub.release()

    asyncio.run(first_loop())
    asyncio.run(second_loop())
