"""Initial schema: games, seats, the append-only move log, state snapshots, the outbox.

Revision ID: 0001
Revises:
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _game_fk(table: str, nullable: bool = False, primary_key: bool = False) -> sa.Column:
    return sa.Column(
        "game_pk",
        sa.Integer(),
        sa.ForeignKey("game.id", name=f"fk_{table}_game_pk_game", ondelete="CASCADE"),
        nullable=nullable,
        primary_key=primary_key,
    )


def upgrade() -> None:
    op.create_table(
        "game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=40), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("active", sa.Text(), nullable=False),
        sa.Column("created_by", sa.BigInteger(), nullable=True),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("pace", sa.String(length=32), nullable=True),
        sa.Column("deadline_at", sa.DateTime(), nullable=True),
        sa.Column("reminded_at", sa.DateTime(), nullable=True),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_game"),
    )
    op.create_index("ix_game_channel_id", "game", ["channel_id"])
    op.create_index("ix_game_thread_id", "game", ["thread_id"])
    op.create_index("ix_game_deadline_at", "game", ["deadline_at"])
    op.create_index("ix_game_guild_id_status", "game", ["guild_id", "status"])
    op.create_index("ix_game_status_updated_at", "game", ["status", "updated_at"])

    op.create_table(
        "game_state",
        _game_fk("game_state", primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("game_pk", name="pk_game_state"),
    )

    op.create_table(
        "move",
        sa.Column("id", sa.Integer(), nullable=False),
        _game_fk("move"),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=40), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=True),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("undoes_seq", sa.Integer(), nullable=True),
        sa.Column("barrier", sa.Boolean(), nullable=False),
        sa.Column("state_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_move"),
        sa.UniqueConstraint("game_pk", "seq", name="uq_move_game_pk_seq"),
    )

    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        _game_fk("outbox", nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("recipient", sa.String(length=64), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("dedupe_key", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("sent_at", sa.DateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(), nullable=False),
        sa.Column("claimed_by", sa.String(length=100), nullable=True),
        sa.Column("claimed_at", sa.DateTime(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_outbox"),
        sa.UniqueConstraint("dedupe_key", name="uq_outbox_dedupe_key"),
    )
    op.create_index("ix_outbox_game_pk", "outbox", ["game_pk"])
    op.create_index("ix_outbox_sent_at_next_attempt_at", "outbox", ["sent_at", "next_attempt_at"])

    op.create_table(
        "seat",
        sa.Column("id", sa.Integer(), nullable=False),
        _game_fk("seat"),
        sa.Column("role", sa.String(length=40), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=True),
        sa.Column("display_name", sa.String(length=100), nullable=False),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("prefs", sa.Text(), nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_seat"),
        sa.UniqueConstraint("game_pk", "role", name="uq_seat_game_pk_role"),
    )
    op.create_index("ix_seat_user_id", "seat", ["user_id"])
    op.create_index("ix_seat_is_bot_game_pk", "seat", ["is_bot", "game_pk"])


def downgrade() -> None:
    op.drop_table("seat")
    op.drop_table("outbox")
    op.drop_table("move")
    op.drop_table("game_state")
    op.drop_table("game")
