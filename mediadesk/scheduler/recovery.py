"""What a crash left behind, and the team seat: the two ways a scheduler learns that a 'running'
row has no live owner.

SQLite: the scheduler holds the database lock, so every 'running' row at start is an orphan.
PostgreSQL (team mode): several desktops share the queue; only the rows of desktops the database
knows to be dead are recovered, at join and on every beat of the team link.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import socket
from collections.abc import Callable
from typing import Any

from mediadesk.config.model import AppConfig
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.log_lines import LOG
from mediadesk.core.policy import RetryPolicy
from mediadesk.core.states import TaskState
from mediadesk.core.team_policy import beat_interval_s
from mediadesk.platform.files import current_uid
from mediadesk.scheduler.finalizer import apply_failure
from mediadesk.scheduler.team_link import TeamLink
from mediadesk.store import TaskStore
from mediadesk.store.economy import ECONOMY_LANE_PREFIX
from mediadesk.store.team import TeamCoordinator


def recover(store: TaskStore, policy: RetryPolicy, now: float, owners: set[str] | None = None) -> None:
    """Running rows with no live owner (``owners``: only those of these dead desktops; None: every
    one) go by the retry rules, as a failed attempt (``owner_lost``); a cancel that was requested
    before the crash is honoured."""
    for rec in store.running():
        if owners is not None and rec.owner not in owners:
            continue
        if (rec.lane or "").startswith(ECONOMY_LANE_PREFIX):
            continue  # in a provider batch: the economy channel resumes it (never sent twice)
        if rec.cancel_requested:
            store.finish(
                rec, TaskState.CANCELED, error_kind=ErrorKind.CANCELED.value,
                error_message="canceled (cancel was requested before a crash)",
                log=LOG.recovered_after_crash_cancel(), now=now,
            )
        else:
            apply_failure(
                store, policy, rec,
                TaskFailure(ErrorKind.OWNER_LOST, f"the process that ran it ({rec.owner}) is gone"), now,
            )


def join_team(
    store: TaskStore,
    config: AppConfig,
    owner: str,
    *,
    on_dead_owners: Callable[[list[str]], None],
    on_lost_account: Callable[[str], None],
    on_notice: Callable[[str], None] = lambda _message: None,
) -> tuple[TeamLink, Any]:
    """This desktop's seat on a shared queue, and the connection it holds (closed on leave)."""
    hb = config.heartbeat
    conn = store.connect_shared()
    try:
        coord = TeamCoordinator(
            conn, owner=owner, host=socket.gethostname(), operator=operator(),
            pid=os.getpid(), stale_after_s=hb.stale_after_s, dialect="postgresql",
            fault=getattr(store, "team_fault", None),
        )
        team = TeamLink(
            coord, accounts=tuple(a.name for a in config.accounts),
            heartbeat_s=beat_interval_s(hb.stale_after_s, hb.interval_s),
            retry_s=config.scheduler.poll_interval_s, on_dead_owners=on_dead_owners,
            on_lost_account=on_lost_account, on_clock_skew=lambda offset_s: on_notice(
                f"this computer's clock is {-offset_s:+.0f} s off the database server's: the team uses the "
                "database's clock; check this computer's time settings"),
        )
        team.join()
    except BaseException:
        with contextlib.suppress(Exception):
            conn.close()
        raise
    return team, conn


def operator() -> str:
    """Who sits at this desktop (the OS user), for the other desktops' console."""
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment (containers): the uid
        uid = current_uid()
        return str(uid) if uid is not None else "unknown"
