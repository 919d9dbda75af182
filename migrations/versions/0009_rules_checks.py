"""Rules checks: which rules each installed game's stored logs were last replayed under.

* ``rules_check`` (game_id): the rules version and the fingerprint of the rules code
  (``bot.upgrade.code_fingerprint``) under which ``alcazaba run`` last replayed every stored
  game of that game. Until now every start replayed every game in the database before the
  bot went online: minutes for a large server, at every restart. Now a start replays only
  the games whose rules changed since (and games still being played whose recorded version
  is not the installed one, e.g. one imported from another server).

No rows are written: the first start after this migration replays everything once, as
before, and records what it checked. The downgrade drops the table; the older release then
replays every game at every start again.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rules_check",
        sa.Column("game_id", sa.String(length=40), nullable=False),
        sa.Column("rules_version", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("checked_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", name="pk_rules_check"),
    )


def downgrade() -> None:
    op.drop_table("rules_check")
