"""Spend: the cost of each task (with its currency), and the caps an operator set or raised."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_spend"
down_revision = "0003_usage"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("task", sa.Column("cost", sa.Float()))
    op.add_column("task", sa.Column("currency", sa.String()))
    op.create_table(
        "budget_cap",
        sa.Column("key", sa.String(), primary_key=True),
        sa.Column("cap", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("budget_cap")
    with op.batch_alter_table("task") as batch:
        batch.drop_column("currency")
        batch.drop_column("cost")
