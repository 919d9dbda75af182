"""The service step's cost (issue 13): the whole state is no longer written at every step.

* ``move.delta``: what the move changed in the state (canonical JSON, see
  ``bot.service.deltas``); the state of any version is the snapshot (``game_state``) plus the
  deltas of the moves after it, checked against the last move's ``state_hash``. The
  snapshot is rewritten every few moves, at an ending, and by import. Rows written before
  this revision have no delta: their snapshot was written with every move, so none is ever
  needed.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("move") as batch:
        batch.add_column(sa.Column("delta", sa.Text(), nullable=True))


def downgrade() -> None:
    # Bring every snapshot up to its game's version first: 0005's code reads the latest state
    # from game_state alone. Done in Python (the deltas are JSON), for the few games behind.
    from bot.service.deltas import rebuild_snapshots_sync

    rebuild_snapshots_sync(op.get_bind())
    with op.batch_alter_table("move") as batch:
        batch.drop_column("delta")
