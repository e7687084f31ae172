"""Task-log lines keep their phrase: its id and its values as JSON, beside the English text.

Both are NULL for the lines written before (they are shown as their stored English).
"""

from __future__ import annotations

from alembic import op

revision = "0006_log_ids"
down_revision = "0005_economy"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE task_log ADD COLUMN message_id VARCHAR")
    op.execute("ALTER TABLE task_log ADD COLUMN message_params VARCHAR")


def downgrade() -> None:
    with op.batch_alter_table("task_log") as batch:
        batch.drop_column("message_params")
        batch.drop_column("message_id")
