"""Team mode: the shared tables (desktops, account leases, endpoint slots, rate buckets)."""

from __future__ import annotations

from alembic import op

from mediadesk.store.team_schema import TEAM_TABLES_V1

revision = "0002_team"
down_revision = "0001_baseline"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for ddl in TEAM_TABLES_V1:
        op.execute(ddl)


def downgrade() -> None:
    for index in ("ix_endpoint_slot_owner", "ix_account_lease_owner"):
        op.execute(f"DROP INDEX {index}")
    for table in ("rate_bucket", "endpoint_slot", "account_lease", "desktop"):
        op.execute(f"DROP TABLE {table}")
