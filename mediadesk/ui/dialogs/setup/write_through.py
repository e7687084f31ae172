"""The Setup editor's write-through to config.toml: Save writes the file keeping the operator's
comments and order (validated first), refuses to overwrite a file changed on disk meanwhile unless
the operator says so, applies at once what a running scheduler can change live (API concurrency of a profile or an
endpoint, need_empty_prompt, account on/off) and offers "Restart lanes" for the rest (the window
stops the lanes cleanly and starts them again from the saved file).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from mediadesk.config.edit import ConfigChangedOnDisk, ConfigDoc, ConfigInvalid, live_changes
from mediadesk.config.model import AppConfig, ConfigError
from mediadesk.files.safe import UnsafePathError
from mediadesk.ui.dialogs.config_text import config_error_text
from mediadesk.ui.dialogs.setup.fields import ERROR_STYLE

if TYPE_CHECKING:
    from mediadesk.scheduler.scheduler import Scheduler

log = logging.getLogger("mediadesk.ui.dialogs.setup_editor")

__all__ = ["SetupSaver"]


class SetupSaver:
    """Saves ``doc`` and applies what ``scheduler`` (the running one, if any) can change live; says
    what it did on ``status`` (texts keep the ``SetupEditor`` context).

    ``baseline``: what the running app uses (restart-needed changes are measured against it).
    ``offer_restart`` shows "Restart lanes" where the window can restart them and says whether it
    can; ``revalidate`` shows why an invalid document was refused; ``saved`` gets the config now on
    disk. ``parent``: the window the overwrite question belongs to."""

    def __init__(
        self,
        doc: ConfigDoc,
        *,
        baseline: AppConfig | None,
        scheduler: Scheduler | None,
        status: QLabel,
        offer_restart: Callable[[], bool],
        revalidate: Callable[[], None],
        saved: Callable[[AppConfig], None],
        parent: QWidget,
    ) -> None:
        self.doc = doc
        self.baseline = baseline
        self.scheduler = scheduler
        self.status = status
        self.offer_restart = offer_restart
        self.revalidate = revalidate
        self.saved = saved
        self.parent = parent
        #: Asked before overwriting a file changed on disk: (message) -> overwrite?
        self.confirm_overwrite: Callable[[str], bool] = self.ask_overwrite

    def ask_overwrite(self, message: str) -> bool:
        answer = QMessageBox.question(
            self.parent, QCoreApplication.translate("SetupEditor", "Config changed on disk"),
            QCoreApplication.translate(
                "SetupEditor", "{message}\n\nOverwrite the file with the edits made here?").format(message=message),
        )
        return answer == QMessageBox.StandardButton.Yes

    def save(self) -> bool:
        """Write the file (validated first); apply what the running app can apply live; say what
        waits for a restart. False (nothing written) when refused."""
        path = self.doc.path
        try:
            try:
                cfg = self.doc.save()
            except ConfigChangedOnDisk as exc:
                if not self.confirm_overwrite(str(exc)):
                    self.say(QCoreApplication.translate(
                        "SetupEditor", "Not saved: {path} changed on disk. Close and reopen Setup to see "
                        "that change.").format(path=path), error=True)
                    return False
                cfg = self.doc.save(force=True)
        except ConfigInvalid:
            self.revalidate()
            return False
        except (ConfigError, UnsafePathError, OSError) as exc:
            self.say(QCoreApplication.translate("SetupEditor", "Not saved: {error}").format(
                error=config_error_text(exc)), error=True)
            return False
        parts = [QCoreApplication.translate("SetupEditor", "Saved {path}.").format(path=path)]
        parts += self._apply_live(cfg)
        self.say(" ".join(parts))
        self.saved(cfg)
        return True

    def _apply_live(self, cfg: AppConfig) -> list[str]:
        if self.baseline is None:
            return []
        changes = live_changes(self.baseline, cfg)
        out: list[str] = []
        applied: list[str] = []
        scheduler = self.scheduler
        if scheduler is not None:
            known = set(scheduler.profile_names())
            for profile, conc in changes.concurrency:
                if profile in known:
                    try:
                        scheduler.set_profile_setting(profile, concurrency=conc)
                        applied.append(QCoreApplication.translate("SetupEditor", "{profile} concurrency {n}").format(
                            profile=profile, n=conc))
                    except ValueError as exc:
                        log.warning("setup: %s concurrency not applied: %s", profile, exc)
            for profile, on in changes.empty_prompt:
                if profile in known:
                    scheduler.set_profile_setting(profile, need_empty_prompt=on)
                    applied.append(QCoreApplication.translate("SetupEditor", "{profile} empty prompt {state}").format(
                        profile=profile, state=QCoreApplication.translate("SetupEditor", "on") if on
                        else QCoreApplication.translate("SetupEditor", "off")))
            for endpoint, conc in changes.endpoint_concurrency:
                try:
                    scheduler.set_endpoint_concurrency(endpoint, conc)
                    applied.append(QCoreApplication.translate("SetupEditor", "endpoint {name} concurrency {n}").format(
                        name=endpoint, n=conc))
                except (KeyError, ValueError) as exc:
                    log.warning("setup: endpoint %s concurrency not applied: %s", endpoint, exc)
            lanes = {lane.account for lane in scheduler.lanes if lane.account}
            for account, on in changes.enabled:
                if account in lanes:
                    scheduler.set_account_enabled(account, on)
                    applied.append(QCoreApplication.translate("SetupEditor", "{account} {state}").format(
                        account=account, state=QCoreApplication.translate("SetupEditor", "enabled") if on
                        else QCoreApplication.translate("SetupEditor", "disabled")))
            if applied:
                out.append(QCoreApplication.translate("SetupEditor", "Applied now: {what}.").format(
                    what=", ".join(applied)))
            if changes.restart:
                what = "; ".join(self._describe(*change) for change in changes.restart)
                if self.offer_restart():
                    out.append(QCoreApplication.translate(
                        "SetupEditor", "Applies when the lanes restart: {what}. Use “Restart lanes” to do it now "
                        "(running tasks go back to the queue uncharged and resume).").format(what=what))
                else:
                    out.append(QCoreApplication.translate("SetupEditor", "Applies at the next start: {what}.").format(
                        what=what))
        else:
            self.baseline = cfg
        return out

    @staticmethod
    def _describe(what: str, name: str, change: str) -> str:
        texts = {
            ("endpoint", "added"): QCoreApplication.translate("SetupEditor", "endpoint {name} added"),
            ("endpoint", "removed"): QCoreApplication.translate("SetupEditor", "endpoint {name} removed"),
            ("endpoint", "changed"): QCoreApplication.translate("SetupEditor", "endpoint {name} changed"),
            ("profile", "added"): QCoreApplication.translate("SetupEditor", "profile {name} added"),
            ("profile", "removed"): QCoreApplication.translate("SetupEditor", "profile {name} removed"),
            ("profile", "changed"): QCoreApplication.translate("SetupEditor", "profile {name} changed"),
            ("account", "added"): QCoreApplication.translate("SetupEditor", "account {name} added"),
            ("account", "removed"): QCoreApplication.translate("SetupEditor", "account {name} removed"),
            ("account", "changed"): QCoreApplication.translate("SetupEditor", "account {name} changed"),
            ("browser", "changed"): QCoreApplication.translate("SetupEditor", "the browser settings changed"),
        }
        return texts.get((what, change), f"{what} {{name}} {change}").format(name=name)

    def say(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet(ERROR_STYLE if error else "")
        self.status.setText(text)
