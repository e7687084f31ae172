"""Tables of team mode (several desktops on one database), as portable DDL (PostgreSQL and SQLite).

Frozen: the Alembic revision that creates them imports :data:`TEAM_TABLES_V1`; a later change is a
new revision, never an edit here. Times are epoch seconds of the DATABASE SERVER's clock (desktops'
clocks may disagree; leases compare against one clock).
"""

from __future__ import annotations

TEAM_TABLES_V1: tuple[str, ...] = (
    # one row per scheduler process that ever joined; alive while heartbeat_at is fresh
    """CREATE TABLE desktop (
        owner VARCHAR PRIMARY KEY,
        host VARCHAR NOT NULL,
        operator VARCHAR NOT NULL,
        pid INTEGER NOT NULL,
        accounts VARCHAR NOT NULL DEFAULT '',
        started_at DOUBLE PRECISION NOT NULL,
        heartbeat_at DOUBLE PRECISION NOT NULL,
        stopped_at DOUBLE PRECISION
    )""",
    # a web account is run by at most one desktop: the holder renews expires_at with its heartbeat
    """CREATE TABLE account_lease (
        account VARCHAR PRIMARY KEY,
        owner VARCHAR NOT NULL,
        host VARCHAR NOT NULL,
        acquired_at DOUBLE PRECISION NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
    )""",
    # an endpoint's concurrency across desktops: one row per slot, taken for one request
    """CREATE TABLE endpoint_slot (
        endpoint VARCHAR NOT NULL,
        slot INTEGER NOT NULL,
        owner VARCHAR,
        task_id VARCHAR,
        expires_at DOUBLE PRECISION NOT NULL DEFAULT 0,
        PRIMARY KEY (endpoint, slot)
    )""",
    # shared token buckets (requests per minute): "endpoint:<name>", "domain:<d>", "global"
    """CREATE TABLE rate_bucket (
        name VARCHAR PRIMARY KEY,
        tokens DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL
    )""",
    "CREATE INDEX ix_account_lease_owner ON account_lease (owner)",
    "CREATE INDEX ix_endpoint_slot_owner ON endpoint_slot (owner)",
)
