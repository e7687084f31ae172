"""A batch row's group, template and samples: the tasks one row makes (several profiles, ``n`` samples) share a
``group_id``; a templated row's tasks keep the template's name and variables (JSON object) beside the rendered
prompt; ``sample`` is 1..n; ``kept`` is the operator's keep mark; ``reused_from`` names the task whose answer
was reused (at no cost). All NULL (``kept`` false) for the tasks submitted before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_batch_groups"
down_revision = "0007_reasoning"
branch_labels = None
depends_on = None

_TEXTS = ("group_id", "template", "template_vars")


def upgrade() -> None:
    for name in _TEXTS:
        op.add_column("task", sa.Column(name, sa.Text()))
    op.add_column("task", sa.Column("sample", sa.Integer()))
    op.add_column("task", sa.Column("kept", sa.Boolean(), server_default="0", nullable=False))
    op.add_column("task", sa.Column("reused_from", sa.Text()))
    op.create_index("ix_task_group", "task", ["group_id"])


def downgrade() -> None:
    op.drop_index("ix_task_group", table_name="task")
    # SQLite drops a column only by copying the table: batch mode does that where needed
    with op.batch_alter_table("task") as batch:
        for name in ("reused_from", "kept", "sample", *reversed(_TEXTS)):
            batch.drop_column(name)
