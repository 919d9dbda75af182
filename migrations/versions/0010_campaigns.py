"""Campaigns (issue 29): ratings, the games they counted, managers' rated/unrated marks,
server settings, matchmaking tickets and tournaments.

* ``rating`` (guild_id, game_id, entry): one rating per player ('u:<id>') or built-in player
  level ('bot:<level>') per game per Discord server (0: outside a server), openskill's
  Plackett-Luce mu and sigma, games and wins, the last name seen.
* ``rated_game``: each game that counted, in order, with its ranking and what it changed
  (unique per game). ``alcazaba ratings rebuild`` makes ``rating`` again from it.
* ``game_rated``: a manager's rated/unrated mark on a game; ``campaign_guild``: a server's
  campaign settings (``/server ratings vs_bot``); ``seek_ticket``: ``/game seek`` tickets;
  ``tournament``, ``tournament_player``, ``tournament_round``, ``tournament_game``: leagues
  and tournaments, their players, rounds (each made once) and tables.

The upgrade counts the finished games already in the database, in the order they finished
(``bot.service.ratings.backfill_sync``; no server allows games against the built-in player
yet, so those do not count). The downgrade drops the tables: ratings are derived data.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rating",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("game_id", sa.String(length=40), nullable=False),
        sa.Column("entry", sa.String(length=40), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("last_name", sa.String(length=100), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "game_id", "entry", name="pk_rating"),
    )
    op.create_table(
        "rated_game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_pk", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("game_id", sa.String(length=40), nullable=False),
        sa.Column("ranks", sa.Text(), nullable=False),
        sa.Column("changes", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_pk"], ["game.id"], name="fk_rated_game_game_pk_game", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_rated_game"),
        sa.UniqueConstraint("game_pk", name="uq_rated_game_game_pk"),
    )
    op.create_index("ix_rated_game_guild_id_game_id", "rated_game", ["guild_id", "game_id"])
    op.create_table(
        "game_rated",
        sa.Column("game_pk", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("set_by", sa.BigInteger(), nullable=True),
        sa.Column("set_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_pk"], ["game.id"], name="fk_game_rated_game_pk_game", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_pk", name="pk_game_rated"),
    )
    op.create_table(
        "campaign_guild",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("ratings_vs_bot", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name="pk_campaign_guild"),
    )
    op.create_table(
        "seek_ticket",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("display_name", sa.String(length=100), nullable=False),
        sa.Column("game_id", sa.String(length=40), nullable=False),
        sa.Column("pace", sa.String(length=32), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("game_pk", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_seek_ticket"),
    )
    op.create_index("ix_seek_ticket_guild_id_status", "seek_ticket", ["guild_id", "status"])
    op.create_table(
        "tournament",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("created_by", sa.BigInteger(), nullable=False),
        sa.Column("game_id", sa.String(length=40), nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("pace", sa.String(length=32), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("double", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tournament"),
    )
    op.create_table(
        "tournament_player",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("display_name", sa.String(length=100), nullable=False),
        sa.Column("seed", sa.Float(), nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.Column("withdrawn_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"],
                                name="fk_tournament_player_tournament_id_tournament", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("tournament_id", "user_id", name="pk_tournament_player"),
    )
    op.create_table(
        "tournament_round",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("posted_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"],
                                name="fk_tournament_round_tournament_id_tournament", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("tournament_id", "round", name="pk_tournament_round"),
    )
    op.create_table(
        "tournament_game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("game_pk", sa.Integer(), nullable=True),
        sa.Column("forfeit", sa.BigInteger(), nullable=True),
        sa.Column("opened_at", sa.DateTime(), nullable=True),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["game_pk"], ["game.id"], name="fk_tournament_game_game_pk_game", ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"],
                                name="fk_tournament_game_tournament_id_tournament", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_tournament_game"),
        sa.UniqueConstraint("tournament_id", "round", "table_no", name="uq_tournament_game_tournament_id_round_table_no"),
    )

    from bot.service.ratings import backfill_sync

    backfill_sync(op.get_bind())


def downgrade() -> None:
    op.drop_table("tournament_game")
    op.drop_table("tournament_round")
    op.drop_table("tournament_player")
    op.drop_table("tournament")
    op.drop_index("ix_seek_ticket_guild_id_status", table_name="seek_ticket")
    op.drop_table("seek_ticket")
    op.drop_table("campaign_guild")
    op.drop_table("game_rated")
    op.drop_index("ix_rated_game_guild_id_game_id", table_name="rated_game")
    op.drop_table("rated_game")
    op.drop_table("rating")
