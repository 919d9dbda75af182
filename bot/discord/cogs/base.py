"""What the cogs share: the bot's parts, and the background loop of the worker cogs.

The outbox (delivery.py) and the clocks (deadlines.py) each run one loop in the bot's
process: a pass, then a sleep that ends early when the bot is poked (something was
committed). A short-lived client (``alcazaba sync``) starts no loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

import engine
from bot.discord import present
from bot.discord.errors import UserError
from engine.api import Game

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot


class Cog(commands.Cog):
    """A cog with the game service, the front end's rows and the table at hand."""

    def __init__(self, bot: AlcazabaBot) -> None:
        self.bot = bot
        self.service = bot.service
        self.store = bot.store
        self.table = bot.table


class Worker(Cog):
    """A cog that runs :meth:`cycle` in a loop while loaded."""

    task_name = "worker"
    log = logging.getLogger("bot.discord")

    def __init__(self, bot: AlcazabaBot) -> None:
        super().__init__(bot)
        self.wake = asyncio.Event()
        """Set it to run the next pass now (the bot pokes it after each command)."""
        self._task: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        if self.bot.workers:
            self._task = asyncio.create_task(self.run(), name=self.task_name)

    async def cog_unload(self) -> None:
        self.halt()

    def halt(self) -> asyncio.Task[None] | None:
        """Cancel the loop; the task to wait for (it may be ending a transaction)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        return task

    async def cycle(self) -> float:
        """One pass; the seconds to sleep before the next (unless woken)."""
        raise NotImplementedError

    def idle(self) -> float:
        """The sleep after a pass that failed."""
        raise NotImplementedError

    async def run(self) -> None:
        while True:
            self.wake.clear()
            try:
                wait = await self.cycle()
            except asyncio.CancelledError:
                raise
            except Exception:
                self.log.exception("%s pass failed", self.task_name)
                wait = self.idle()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), wait)


def is_manager(inter: discord.Interaction) -> bool:
    """A manager of the server (Manage Server or Administrator): who may abort, list or rate a
    server's games."""
    perms = getattr(inter, "permissions", None)
    return bool(perms and (perms.manage_guild or perms.administrator))


def chosen_game(game: str, options: str | None) -> tuple[Game, dict[str, Any]]:
    """The game a command names and the options typed for it (``key=value`` words, the game's
    switches alone), or the UserError that says what to type instead: /game new, /game seek
    and /tournament new read them alike."""
    if game not in engine.GAMES:
        raise UserError(f"There is no game {present.clip(game, 40)!r}; pick one from the list "
                        f"({', '.join(sorted(engine.GAMES))}).")
    module = engine.get(game)
    switches = {k for k, v in module.OPTIONS.items() if isinstance(v, dict) and v.get("type") == "bool"}
    try:
        return module, present.parse_options(options, switches=switches)
    except ValueError as exc:
        raise UserError(f"Options: {exc}.") from None
