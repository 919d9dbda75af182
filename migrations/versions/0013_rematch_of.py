"""A rematch remembers the game it rematches.

* ``game.rematch_of``: the id of the finished game a rematch was asked from (``/game
  rematch``), written with the game itself, so that an opening finished after a crash
  (``Lobby.finish_openings``) announces "a rematch of game #N" as the command would have.
  A plain number, not a foreign key: it names the old game in words, and stays true when
  that game's rows are gone.

Existing games get NULL (not known to be a rematch): an open rematch made before this
revision whose opening is still to be finished is announced without the old game's number,
as before.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("rematch_of", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.drop_column("rematch_of")
