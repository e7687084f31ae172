"""Tables (SQLModel). The schema is declared here once; hot transitions use plain SQL (see taskstore)."""

from __future__ import annotations

from sqlalchemy import Index
from sqlmodel import Field, SQLModel


class Task(SQLModel, table=True):
    __tablename__ = "task"
    __table_args__ = (
        # (the claim index needs "priority DESC": created in schema.py)
        # reaper: running tasks by heartbeat age
        Index("ix_task_state_hb", "state", "heartbeat_at"),
    )

    # --- the six core columns ---
    task_id: str = Field(primary_key=True)
    model_kind: str
    state: str = "pending"
    attempt: int = 0
    started_at: float | None = None
    heartbeat_at: float | None = None
    # --- the rest ---
    profile: str
    account: str | None = None
    lane: str | None = None
    prompt: str
    system: str | None = None
    priority: int = 0
    route_key: str | None = None
    batch: str | None = None
    result: str | None = None
    error_kind: str | None = None
    error_message: str | None = None
    created_at: float
    updated_at: float
    finished_at: float | None = None
    cancel_requested: bool = False
    version: int = 0
    not_before: float = 0.0
    seq: int = 0
    #: attempts made before the operator last re-queued the task (retry budget restarts there)
    attempt_base: int = 0
    owner: str | None = None
    # --- schema 2: capacity-aware dispatch ---
    #: When the task last entered the queue (submit or operator retry): the max_wait_s budget starts here.
    queued_at: float | None = None
    #: Attempts that crashed a browser/page or timed out the whole run (poison-pill count).
    crash_count: int = 0
    #: Who produced the result: the profile, ``rule_reply`` or ``operator``.
    served_by: str | None = None
    #: The profile the task was first submitted to (it may move down a fallback chain).
    origin_profile: str | None = None
    #: A person's resolution of an exception: retry | reroute | answer | drop, with a note.
    resolution: str | None = None
    resolution_note: str | None = None
    resolved_at: float | None = None
    # --- schema 3 ---
    #: A success whose answer the provider cut at its length limit (finish_reason "length").
    #: (A server default: inserts that do not name it, such as ``add_tasks``, must not break NOT NULL.)
    truncated: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})


class TaskLog(SQLModel, table=True):
    __tablename__ = "task_log"
    id: int | None = Field(default=None, primary_key=True)
    task_id: str = Field(index=True)
    ts: float
    lane: str
    message: str


class AccountState(SQLModel, table=True):
    """The operator's switch (``enabled``) and the program's view (``health``) are kept apart:
    the program never changes ``enabled``."""

    __tablename__ = "account_state"
    name: str = Field(primary_key=True)
    enabled: bool = True
    health: str = "ready"
    last_error: str | None = None
    updated_at: float = 0.0


class ProfileSetting(SQLModel, table=True):
    """Console edits of a profile, overriding the config file's values."""

    __tablename__ = "profile_setting"
    name: str = Field(primary_key=True)
    need_empty_prompt: bool | None = None
    concurrency: int | None = None
    updated_at: float = 0.0
