"""The Discord front end: ``run(settings)`` for ``alcazaba run``, ``sync(settings)`` for
``alcazaba sync``.

Importing this package is cheap; discord.py and the cogs load when the bot starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.settings import Settings

__all__ = ["run", "sync"]


async def run(settings: Settings) -> int:
    """Migrate the database, log in, serve until stopped (SIGINT/SIGTERM). Exit status 0."""
    from bot.discord.client import serve

    return await serve(settings)


async def sync(settings: Settings) -> int:
    """Publish the slash commands globally (Discord takes up to an hour to show them
    everywhere); the only place global sync happens, never at every start."""
    from bot.discord.client import sync_global

    return await sync_global(settings)
