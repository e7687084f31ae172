"""The API lane's backend: one OpenAI-compatible endpoint over one shared httpx client (``backend``),
how it classifies failures (``failures``) and how it reads a server without trusting it (``reading``)."""

from __future__ import annotations

from mediadesk.providers.api.backend import ApiBackend

__all__ = ["ApiBackend"]
