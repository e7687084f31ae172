"""Baseline: the schema of MediaDesk's SQLite ``user_version`` 3, exactly (tables, indexes), on any back-end.

Frozen: a later change is a new revision. SQLite databases of the ``user_version`` era are brought to
version 3 by ``schema.MIGRATIONS`` and then stamped with this revision.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    s, f, i, b = sa.String, sa.Float, sa.Integer, sa.Boolean
    op.create_table(
        "task",
        sa.Column("task_id", s(), nullable=False),
        sa.Column("model_kind", s(), nullable=False),
        sa.Column("state", s(), nullable=False),
        sa.Column("attempt", i(), nullable=False),
        sa.Column("started_at", f()),
        sa.Column("heartbeat_at", f()),
        sa.Column("profile", s(), nullable=False),
        sa.Column("account", s()),
        sa.Column("lane", s()),
        sa.Column("prompt", s(), nullable=False),
        sa.Column("system", s()),
        sa.Column("priority", i(), nullable=False),
        sa.Column("route_key", s()),
        sa.Column("batch", s()),
        sa.Column("result", s()),
        sa.Column("error_kind", s()),
        sa.Column("error_message", s()),
        sa.Column("created_at", f(), nullable=False),
        sa.Column("updated_at", f(), nullable=False),
        sa.Column("finished_at", f()),
        sa.Column("cancel_requested", b(), nullable=False),
        sa.Column("version", i(), nullable=False),
        sa.Column("not_before", f(), nullable=False),
        sa.Column("seq", i(), nullable=False),
        sa.Column("attempt_base", i(), nullable=False),
        sa.Column("owner", s()),
        sa.Column("queued_at", f()),
        sa.Column("crash_count", i(), nullable=False),
        sa.Column("served_by", s()),
        sa.Column("origin_profile", s()),
        sa.Column("resolution", s()),
        sa.Column("resolution_note", s()),
        sa.Column("resolved_at", f()),
        sa.Column("truncated", b(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("task_id"),
    )
    op.create_index("ix_task_state_hb", "task", ["state", "heartbeat_at"])
    op.create_table(
        "task_log",
        sa.Column("id", i(), nullable=False),
        sa.Column("task_id", s(), nullable=False),
        sa.Column("ts", f(), nullable=False),
        sa.Column("lane", s(), nullable=False),
        sa.Column("message", s(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_task_log_task_id", "task_log", ["task_id"])
    op.create_table(
        "account_state",
        sa.Column("name", s(), nullable=False),
        sa.Column("enabled", b(), nullable=False),
        sa.Column("health", s(), nullable=False),
        sa.Column("last_error", s()),
        sa.Column("updated_at", f(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    op.create_table(
        "profile_setting",
        sa.Column("name", s(), nullable=False),
        sa.Column("need_empty_prompt", b()),
        sa.Column("concurrency", i()),
        sa.Column("updated_at", f(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    # claim: head pending task of a profile, by priority (high first) then submission order; the DESC
    # must be in the index or each claim sorts every pending row
    op.execute("CREATE INDEX ix_task_claim ON task (state, profile, priority DESC, seq)")
    # conversations: earlier turns of a route_key, in submit order
    op.execute("CREATE INDEX ix_task_route ON task (route_key, seq) WHERE route_key IS NOT NULL")


def downgrade() -> None:
    raise NotImplementedError("the baseline is not downgraded: restore a backup instead")
