"""Game claims: a game's deadline handling and built-in player's turn, claimed with a lease.

* ``game_claim`` (game_pk, kind): which process does a game's background work now, until
  when. Until now the process running the game's server's gateway shard did it, so a game's
  deadlines and built-in player waited while that process was down (issue 13, item 3).

No rows are written: a claim row appears the first time a game's work is claimed. The
downgrade drops the table; a process of the older release then goes back to the shard
owner doing the work.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "game_claim",
        sa.Column("game_pk", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("claimed_by", sa.String(length=100), nullable=True),
        sa.Column("claimed_at", sa.DateTime(), nullable=True),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["game_pk"], ["game.id"], name="fk_game_claim_game_pk_game", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_pk", "kind", name="pk_game_claim"),
    )


def downgrade() -> None:
    op.drop_table("game_claim")
