"""Simulators shipped with MediaDesk: real HTTP servers on 127.0.0.1 for the demo, the tests and benchmarks.

They stand in for the callees (an OpenAI-compatible API, a chat web site) so every failure the
scheduler must survive (429 quotas, 5xx, hangs, resets, logouts) can be produced on demand.
"""
