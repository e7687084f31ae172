"""What the Setup editor shows: the values IN EFFECT, not only the file's.

The console changes some settings without the file (the profiles tab's concurrency and "empty
prompt" toggle, the accounts panel's switch): they are kept in the workspace's database and win
over config.toml. Setup opened after such a change must not show the file's old value (and Save
must not silently put it back): each value the running scheduler holds differently is put into the
editor's document, so Save writes it through to the file, and the editor says which ones it took.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication

from mediadesk.config.edit import ConfigDoc
from mediadesk.scheduler.scheduler import Scheduler

__all__ = ["take_values_in_effect"]


def take_values_in_effect(doc: ConfigDoc, scheduler: Scheduler) -> list[str]:
    """Put the scheduler's live values into ``doc`` where they differ from it; returns what was taken,
    in words (empty: the file already says what is in effect)."""
    cfg, _errors = doc.validate()
    if cfg is None:  # a file that does not load: shown as it is, with its errors
        return []
    taken: list[str] = []
    on, off = QCoreApplication.translate("SetupEditor", "on"), QCoreApplication.translate("SetupEditor", "off")
    enabled_word = QCoreApplication.translate("SetupEditor", "enabled")
    disabled_word = QCoreApplication.translate("SetupEditor", "disabled")
    known = set(scheduler.profile_names())
    for index, prof in enumerate(cfg.profiles):
        if prof.name not in known:
            continue
        view = scheduler.profile_view(prof.name)
        updates: dict[str, Any] = {}
        if prof.kind == "api" and view.concurrency != prof.api_concurrency:
            updates["concurrency"] = view.concurrency
            taken.append(QCoreApplication.translate("SetupEditor", "{profile} concurrency {n}").format(
                profile=prof.name, n=view.concurrency))
        if view.need_empty_prompt != prof.need_empty_prompt:
            updates["need_empty_prompt"] = view.need_empty_prompt
            taken.append(QCoreApplication.translate("SetupEditor", "{profile} empty prompt {state}").format(
                profile=prof.name, state=on if view.need_empty_prompt else off))
        if updates:
            doc.update("profiles", index, updates)
    try:
        states = scheduler.account_states()
    except Exception:  # no store to ask: the file's switches are shown
        states = {}
    lanes = {lane.account: lane for lane in scheduler.lanes if lane.account}
    for index, acc in enumerate(cfg.accounts):
        lane = lanes.get(acc.name)
        enabled = lane.enabled if lane is not None else states.get(acc.name, (acc.enabled,))[0]
        if enabled != acc.enabled:
            doc.update("accounts", index, {"enabled": enabled})
            taken.append(QCoreApplication.translate("SetupEditor", "{account} {state}").format(
                account=acc.name, state=enabled_word if enabled else disabled_word))
    return taken
