"""Seat reservations: a rematch offers every seat of the finished game to its previous players.

* ``discord_seat.reserved_user_id``: while the game is open, only this user may take the
  seat; he takes it, declines it (it becomes free), or the game starts without him (the
  built-in player takes it). Until now a rematch kept one ``discord_game.invited_user_id``,
  so with three or more seats only the asker and the built-in player moved on.

Existing rows get NULL (no reservation): an open game made before this revision keeps its
one invitation in ``discord_game.invited_user_id``, which the front end still honours.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("discord_seat") as batch:
        batch.add_column(sa.Column("reserved_user_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("discord_seat") as batch:
        batch.drop_column("reserved_user_id")
