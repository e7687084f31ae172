"""Usage per task: prompt, completion and cached tokens, and whether they are an estimate."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_usage"
down_revision = "0002_team"
branch_labels = None
depends_on = None

_COUNTS = ("prompt_tokens", "completion_tokens", "cached_tokens")


def upgrade() -> None:
    for name in _COUNTS:
        op.add_column("task", sa.Column(name, sa.Integer()))
    op.add_column("task", sa.Column("usage_estimated", sa.Boolean(), server_default="0", nullable=False))


def downgrade() -> None:
    # SQLite drops a column only by copying the table: batch mode does that where needed
    with op.batch_alter_table("task") as batch:
        for name in ("usage_estimated", *reversed(_COUNTS)):
            batch.drop_column(name)
