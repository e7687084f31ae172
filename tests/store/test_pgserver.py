"""The throw-away PostgreSQL server the team-mode tests stand on."""

from __future__ import annotations

import psycopg

from tests.pgserver import PgServer


def test_fresh_databases_are_separate_and_writable(pg_server: PgServer) -> None:
    a, b = pg_server.new_database(), pg_server.new_database()
    assert a != b
    with psycopg.connect(a, autocommit=True) as conn:
        conn.execute("CREATE TABLE t (x int)")
        conn.execute("INSERT INTO t VALUES (41), (1)")
        assert conn.execute("SELECT sum(x) FROM t").fetchone() == (42,)
    with psycopg.connect(b, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_tables WHERE tablename = 't'").fetchone()
        assert row == (0,)
