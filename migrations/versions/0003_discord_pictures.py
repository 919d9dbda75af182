"""Discord front end: the pictures each seat's private place got last, so that a prompt
re-sends only the pictures that changed, across restarts.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("discord_seat") as batch:
        batch.add_column(sa.Column("pictures", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("discord_seat") as batch:
        batch.drop_column("pictures")
