"""Default backends: the only place where the scheduler meets concrete providers (imported lazily,
so the headless API path never loads Playwright)."""

from __future__ import annotations

from mediadesk.config.model import AccountConfig, AppConfig, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import LaneBackend
from mediadesk.core.economy import BatchApi


def default_backend(
    config: AppConfig, workspace: Workspace, profile: ProfileConfig, account: AccountConfig | None
) -> LaneBackend:
    if profile.kind == "api":
        from mediadesk.providers.api import ApiBackend

        ep = next(e for e in config.api_endpoints() if profile.name in e.profiles)
        assert profile.model is not None
        return ApiBackend(
            name=profile.name,
            base_url=ep.base_url,
            model=profile.model,
            api_key_env=ep.api_key_env,
            api_key_keyring=ep.api_key_keyring,
            stream=profile.stream,
            timeout_s=profile.timeout_s,
            max_answer_chars=profile.max_answer_chars,
            max_run_s=profile.api_max_run_s,
            stream_usage=profile.stream_usage,
            max_tokens=profile.max_tokens,
        )
    assert account is not None, "web lanes are per account"
    from mediadesk.providers.web.backend import build_web_backend

    return build_web_backend(config, workspace, profile, account)


#: What starting the lanes imports on its first run: the API provider, Alembic (a new database is
#: created through its migrations) and, for web lanes only, the web provider (Playwright's client).
PRELOAD = ("mediadesk.providers.api", "alembic.command", "alembic.config")
PRELOAD_WEB = ("mediadesk.providers.web.backend",)


def preload(web: bool = True) -> None:
    """Import :data:`PRELOAD` (and :data:`PRELOAD_WEB` when ``web``: a workspace with web profiles)
    now. A console calls it in a thread before starting a workspace, so those seconds of imports (on
    a loaded machine) pass while its window keeps painting, instead of freezing the event loop
    inside ``Scheduler.start``. A module that fails to import is left for the real start to report."""
    import importlib

    for name in (*PRELOAD, *(PRELOAD_WEB if web else ())):
        try:
            importlib.import_module(name)
        except Exception:
            continue


def batch_api(backend: LaneBackend) -> BatchApi:
    """The Batch API of an API profile's backend (the economy channel's provider side)."""
    from mediadesk.providers.api import ApiBackend
    from mediadesk.providers.api.batches import ApiBatchClient

    if not isinstance(backend, ApiBackend):
        raise TypeError(f"the economy channel needs an API backend, got {type(backend).__name__}")
    return ApiBatchClient(backend)
