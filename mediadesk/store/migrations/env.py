"""Alembic environment: runs on the SQLAlchemy connection the store passes in (``config.attributes
["connection"]``, already inside a transaction), so no alembic.ini and no URL are needed at run time."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
