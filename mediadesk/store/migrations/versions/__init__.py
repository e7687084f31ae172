"""Alembic revisions of the store (loaded by Alembic from this folder, not imported as modules)."""
