"""Web pages: a game's public address, listed servers, revoked personal links.

* ``web_game`` (game_pk, public_id): the unguessable identifier in a game's web address
  (``bot.web``), never the sequential id. Every game made before this migration gets one
  here; the service writes one with every new or imported game.
* ``web_guild`` (guild_id, listed): a server whose manager lists its games on the web index.
* ``web_member`` (user_id, revoked): a member's revocation counter; a personal link made under
  an older count no longer opens.

The downgrade drops the three tables (the addresses of existing games are then lost: a later
upgrade gives every game a new one, and links shared before stop working).

Revision ID: 0011
Revises: 0009
Create Date: 2026-11-27
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    web_game = op.create_table(
        "web_game",
        sa.Column("game_pk", sa.Integer(), nullable=False),
        sa.Column("public_id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["game_pk"], ["game.id"], name="fk_web_game_game_pk_game", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_pk", name="pk_web_game"),
        sa.UniqueConstraint("public_id", name="uq_web_game_public_id"),
    )
    op.create_table(
        "web_guild",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("listed", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name="pk_web_guild"),
    )
    op.create_table(
        "web_member",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("revoked", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_web_member"),
    )
    conn = op.get_bind()
    pks = [row[0] for row in conn.execute(sa.text("SELECT id FROM game ORDER BY id"))]
    if pks and web_game is not None:
        # The same 128 random bits as bot.models.new_public_id (a migration does not import the
        # models: they move on, this file must not).
        op.bulk_insert(web_game, [{"game_pk": pk, "public_id": secrets.token_urlsafe(16)} for pk in pks])


def downgrade() -> None:
    op.drop_table("web_member")
    op.drop_table("web_guild")
    op.drop_table("web_game")
