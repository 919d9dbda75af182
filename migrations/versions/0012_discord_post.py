"""Posts under a nonce: when the bot first tried each (bot/discord/posting.py).

* ``discord_post`` (nonce, tried_at): a message the bot began to post under a nonce, and when
  it first tried. Discord remembers a nonce for minutes only; a post tried again later than
  that looks for the first try's message in its channel instead of posting a second one.

The downgrade drops the table (a post tried again after it is then posted under its nonce
alone, as before).

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "discord_post",
        sa.Column("nonce", sa.String(length=25), nullable=False),
        sa.Column("tried_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("nonce", name="pk_discord_post"),
    )
    op.create_index("ix_discord_post_tried_at", "discord_post", ["tried_at"])


def downgrade() -> None:
    op.drop_index("ix_discord_post_tried_at", table_name="discord_post")
    op.drop_table("discord_post")
