"""A reasoning model's thinking, kept apart from the answer, and the tokens the provider counted for it.

Both are NULL for the tasks finished before (and for answers without thinking).
"""

from __future__ import annotations

from alembic import op

revision = "0007_reasoning"
down_revision = "0006_log_ids"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE task ADD COLUMN reasoning TEXT")
    op.execute("ALTER TABLE task ADD COLUMN reasoning_tokens INTEGER")


def downgrade() -> None:
    with op.batch_alter_table("task") as batch:
        batch.drop_column("reasoning_tokens")
        batch.drop_column("reasoning")
