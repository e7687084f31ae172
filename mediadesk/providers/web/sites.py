"""Which site adapter a web profile uses: the bundled ones, overridden by the operator's sites dir,
then the profile's own URL and time limit on top."""

from __future__ import annotations

from dataclasses import replace

from mediadesk.config.model import AppConfig, ConfigError, ProfileConfig
from mediadesk.config.workspace import Workspace, resources_dir
from mediadesk.providers.web.adapter import AdapterError, SiteAdapter, load_adapters, with_url


def site_adapters(config: AppConfig, workspace: Workspace) -> dict[str, SiteAdapter]:
    """Every known adapter by name; a broken adapter file is a config error for the operator."""
    user_dir = workspace.user_sites_dir(config.browser.sites_dir)
    try:
        return load_adapters(resources_dir() / "sites", user_dir if user_dir.is_dir() else None)
    except AdapterError as exc:
        raise ConfigError(str(exc)) from None


def adapter_for(config: AppConfig, workspace: Workspace, profile: ProfileConfig) -> SiteAdapter:
    """The adapter of a web profile, with the profile's ``url`` and ``max_run_s`` applied."""
    adapters = site_adapters(config, workspace)
    assert profile.site is not None
    adapter = adapters.get(profile.site)
    if adapter is None:
        raise ConfigError(
            f"profile {profile.name!r}: no site adapter {profile.site!r} "
            f"(known: {', '.join(sorted(adapters)) or 'none'}; add <sites_dir>/{profile.site}.toml)"
        )
    if profile.url:
        adapter = with_url(adapter, profile.url)
    if profile.max_run_s:
        adapter = replace(adapter, max_run_s=profile.max_run_s)
    return adapter
