"""Campaigns survive upgrades (issue 14): what a game was recorded under, and where the rules
changed under it.

* ``game.rules_version``: the engine's ``RULES_VERSION`` when the game was created. Games
  made before this revision were made by the code whose rules every game module declares as
  version 1, so they are stamped 1;
* ``game.schema_revision``: the Alembic revision of the database when the game was created
  (unknown, NULL, for older games);
* ``rules_upgrade``: one row each time ``alcazaba upgrade-check`` met a game under a newer
  rules version: the game version at the boundary, what the replay found, and, when the log
  no longer replays, the stored state at the boundary (undo and replay-check start from it,
  never replaying across it).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("rules_version", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("schema_revision", sa.String(32), nullable=True))
    op.create_table(
        "rules_upgrade",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_pk", sa.Integer(),
                  sa.ForeignKey("game.id", name="fk_rules_upgrade_game_pk_game", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("from_version", sa.Integer(), nullable=False),
        sa.Column("to_version", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("diverging_seq", sa.Integer(), nullable=True),
        sa.Column("report", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=True),
        sa.Column("state_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_rules_upgrade"),
        sa.UniqueConstraint("game_pk", "to_version", name="uq_rules_upgrade_game_pk_to_version"),
    )


def downgrade() -> None:
    op.drop_table("rules_upgrade")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("schema_revision")
        batch.drop_column("rules_version")
