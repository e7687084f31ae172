"""The API lane's backend: one OpenAI-compatible endpoint over one shared httpx client."""

from __future__ import annotations

from mediadesk.providers.api.backend import ApiBackend

__all__ = ["ApiBackend"]
