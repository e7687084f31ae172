"""The operator's switches and edits kept in the store: account enabled/health, profile settings
(the console's overrides of the config file). Part of :class:`~mediadesk.store.taskstore.TaskStore`."""

from __future__ import annotations

import time

from mediadesk.store.connection import StoreBase, faults_typed
from mediadesk.store.spend import SpendBy, SpendRow, spend_rows

__all__ = ["StoreSettings"]


@faults_typed
class StoreSettings(StoreBase):
    """Rows of ``account_state``, ``profile_setting`` and ``budget_cap``: upserts, one short transaction
    each; and the spend sums the budgets start from."""

    #: The PostgreSQL store says so (its day arithmetic differs).
    _is_pg = False

    def account_states(self) -> dict[str, tuple[bool, str, str | None]]:
        rows = self._conn.execute("SELECT name, enabled, health, last_error FROM account_state").fetchall()
        return {r[0]: (bool(r[1]), r[2], r[3]) for r in rows}

    def set_account_enabled(self, name: str, enabled: bool, now: float | None = None) -> None:
        now = time.time() if now is None else now
        with self._tx():
            self._conn.execute(
                "INSERT INTO account_state(name, enabled, health, updated_at) VALUES (?,?, 'ready', ?)"
                " ON CONFLICT(name) DO UPDATE SET enabled=excluded.enabled, updated_at=excluded.updated_at",
                (name, bool(enabled), now),
            )

    def set_account_health(self, name: str, health: str, last_error: str | None, enabled_default: bool) -> None:
        with self._tx():
            self._conn.execute(
                "INSERT INTO account_state(name, enabled, health, last_error, updated_at) VALUES (?,?,?,?,?)"
                " ON CONFLICT(name) DO UPDATE SET health=excluded.health, last_error=excluded.last_error,"
                " updated_at=excluded.updated_at",
                (name, bool(enabled_default), health, last_error, time.time()),
            )

    def profile_settings(self) -> dict[str, tuple[bool | None, int | None]]:
        rows = self._conn.execute("SELECT name, need_empty_prompt, concurrency FROM profile_setting").fetchall()
        return {r[0]: (None if r[1] is None else bool(r[1]), r[2]) for r in rows}

    def set_profile_setting(
        self, name: str, *, need_empty_prompt: bool | None = None, concurrency: int | None = None
    ) -> None:
        cur = self.profile_settings().get(name, (None, None))
        nep = cur[0] if need_empty_prompt is None else need_empty_prompt
        conc = cur[1] if concurrency is None else concurrency
        with self._tx():
            self._conn.execute(
                "INSERT INTO profile_setting(name, need_empty_prompt, concurrency, updated_at) VALUES (?,?,?,?)"
                " ON CONFLICT(name) DO UPDATE SET need_empty_prompt=excluded.need_empty_prompt,"
                " concurrency=excluded.concurrency, updated_at=excluded.updated_at",
                (name, None if nep is None else bool(nep), conc, time.time()),
            )

    # ------------------------------------------------------------------ budget caps
    def budget_caps(self) -> dict[str, float]:
        """Caps set at submit (a batch's budget) or raised by the operator, by budget key."""
        return {r[0]: float(r[1]) for r in self._conn.execute("SELECT key, cap FROM budget_cap").fetchall()}

    def set_budget_cap(self, key: str, cap: float) -> None:
        with self._tx():
            self._conn.execute(
                "INSERT INTO budget_cap(key, cap, updated_at) VALUES (?,?,?)"
                " ON CONFLICT(key) DO UPDATE SET cap=excluded.cap, updated_at=excluded.updated_at",
                (key, float(cap), time.time()),
            )

    def spend_rows(self, by: SpendBy, *, since: float | None = None, utc_offset_s: float = 0.0) -> list[SpendRow]:
        """Spend per group and currency (see :func:`mediadesk.store.spend.spend_rows`)."""
        return spend_rows(self._conn, by, since=since, utc_offset_s=utc_offset_s, pg=self._is_pg)
