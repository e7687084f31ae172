"""Backends that do the work of one attempt: ``api`` (httpx, OpenAI-compatible) and ``web`` (browser)."""
