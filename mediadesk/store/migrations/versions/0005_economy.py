"""The economy channel: provider batches (Batch API) in flight, so a restart resumes them."""

from __future__ import annotations

from alembic import op

revision = "0005_economy"
down_revision = "0004_spend"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # ref: ours, written BEFORE the provider is asked (its batch_id comes after); task_ids: a JSON list
    op.execute(
        "CREATE TABLE economy_batch ("
        " ref VARCHAR NOT NULL PRIMARY KEY,"
        " profile VARCHAR NOT NULL,"
        " batch_id VARCHAR,"
        " state VARCHAR NOT NULL,"
        " task_ids VARCHAR NOT NULL,"
        " provider_status VARCHAR,"
        " created_at FLOAT NOT NULL,"
        " updated_at FLOAT NOT NULL)"
    )
    op.execute("CREATE INDEX ix_economy_batch_open ON economy_batch (profile, state)")


def downgrade() -> None:
    op.execute("DROP INDEX ix_economy_batch_open")
    op.execute("DROP TABLE economy_batch")
