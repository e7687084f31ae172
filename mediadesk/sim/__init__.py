"""Simulators shipped with MediaDesk: real HTTP servers on 127.0.0.1 for the demo, the tests and benchmarks.

They stand in for the callees (an OpenAI-compatible API, a chat web site) so every failure the scheduler must
survive (429 quotas, 5xx, hangs, resets, logouts) can be produced on demand. ``api_server`` and ``web_server``
are the two simulators, both on the loopback server ``_server``; the API simulator's modules import only
downwards, in the layer order that ``pyproject.toml`` gives ``lint-imports``.
"""
