"""Discord front end: per-game settings and bookkeeping, per-seat fallback thread and
vacation, per-user closed-DM notice.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _game_fk(table: str) -> sa.Column:
    return sa.Column(
        "game_pk",
        sa.Integer(),
        sa.ForeignKey("game.id", name=f"fk_{table}_game_pk_game", ondelete="CASCADE"),
        nullable=False,
        primary_key=True,
    )


def upgrade() -> None:
    op.create_table(
        "discord_game",
        _game_fk("discord_game"),
        sa.Column("deadline_action", sa.String(length=16), nullable=False),
        sa.Column("vacation_days", sa.Integer(), nullable=False),
        sa.Column("invited_user_id", sa.BigInteger(), nullable=True),
        sa.Column("deadline_version", sa.Integer(), nullable=True),
        sa.Column("overdue_role", sa.String(length=40), nullable=True),
        sa.Column("map_key", sa.String(length=200), nullable=True),
        sa.PrimaryKeyConstraint("game_pk", name="pk_discord_game"),
    )
    op.create_table(
        "discord_seat",
        _game_fk("discord_seat"),
        sa.Column("role", sa.String(length=40), nullable=False, primary_key=True),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("vacation_until", sa.DateTime(), nullable=True),
        sa.Column("vacation_used_s", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game_pk", "role", name="pk_discord_seat"),
    )
    op.create_table(
        "discord_user",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("dms_closed_at", sa.DateTime(), nullable=True),
        sa.Column("told_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("user_id", name="pk_discord_user"),
    )


def downgrade() -> None:
    op.drop_table("discord_user")
    op.drop_table("discord_seat")
    op.drop_table("discord_game")
