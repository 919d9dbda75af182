"""Discord front end: what it needs to end a game cleanly and to give up on refused posts.

* ``discord_prompt``: the messages holding a seat's live choices (buttons, menus), so that
  when the game ends every one of them is edited (buttons gone, a line saying how it ended);
* ``discord_game.lobby_channel_id/lobby_message_id``: the lobby message, kept true as seats are
  taken and the game starts, ends or is aborted; ``map_digest``: the spectator map last
  posted in the thread, so the same map is never posted twice;
* ``outbox.failed_at``: a notification Discord refuses for good (the thread is gone, the bot
  lost access) is given up and recorded, and no longer holds back later posts.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "discord_prompt",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_pk", sa.Integer(),
                  sa.ForeignKey("game.id", name="fk_discord_prompt_game_pk_game", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("role", sa.String(40), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_discord_prompt"),
        sa.UniqueConstraint("message_id", name="uq_discord_prompt_message_id"),
    )
    op.create_index("ix_discord_prompt_game_pk_role", "discord_prompt", ["game_pk", "role"])
    with op.batch_alter_table("discord_game") as batch:
        batch.add_column(sa.Column("lobby_channel_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("lobby_message_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("map_digest", sa.String(64), nullable=True))
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("failed_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("failed_at")
    with op.batch_alter_table("discord_game") as batch:
        batch.drop_column("map_digest")
        batch.drop_column("lobby_message_id")
        batch.drop_column("lobby_channel_id")
    op.drop_index("ix_discord_prompt_game_pk_role", table_name="discord_prompt")
    op.drop_table("discord_prompt")
