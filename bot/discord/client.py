"""The bot process: endpoints, intents, cogs, persistent components, command sync, start/stop.

Intents: only ``guilds`` (not privileged). Slash commands, buttons and menus arrive as
interactions, which need no intent at all; ``guilds`` keeps the channel cache that thread
creation uses. The bot never reads message content and never needs the member list.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Awaitable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import discord
import yarl
from discord import app_commands
from discord.ext import commands

from bot.db import migrate_async
from bot.discord.images import Images
from bot.discord.store import Store
from bot.models import utcnow
from bot.service import GameService
from bot.service.claims import BOTS
from bot.settings import shard_of
from bot.thinking import Thinker

if TYPE_CHECKING:
    from bot.discord.cogs.deadlines import Deadlines
    from bot.discord.cogs.delivery import Delivery
    from bot.discord.cogs.lobby import Lobby
    from bot.discord.table import Table
    from bot.settings import Settings

T = TypeVar("T")
SHUTDOWN_WAIT = 10.0
"""Seconds the bot waits at close for its cancelled background tasks to unwind."""
log = logging.getLogger("bot.discord")

COGS = ("bot.discord.cogs.lobby", "bot.discord.cogs.play", "bot.discord.cogs.delivery",
        "bot.discord.cogs.deadlines", "bot.discord.cogs.campaign", "bot.discord.cogs.web",
        "bot.discord.cogs.matchmaking", "bot.discord.cogs.tournaments")


@dataclass
class Tuning:
    """Timings a test may shorten; the defaults are what a server wants."""

    group_seconds: float = 2.0
    """A thread post waits this long for more log lines of the same game, so that a turn of
    several steps reads as one message."""
    group_max_seconds: float = 8.0
    """...but no line waits longer than this."""
    outbox_poll_seconds: float = 5.0
    outbox_lease_seconds: float = 30.0
    """How long a claimed notification stays this process's: a process that dies with rows
    claimed delays them (and, for a thread, every later post to it) by this much. It must
    outlast the longest a live process holds a claim before it sends (``group_max_seconds``
    and one send), or a second process (shard) takes the row over and Discord's nonce check
    is all that stops a double post."""
    retry_seconds: float = 5.0
    """The first retry of a failed delivery waits this long; each next one twice as long (at
    most an hour)."""
    deadline_poll_seconds: float = 60.0
    claim_lease_seconds: float = 30.0
    """How long a game's deadline handling or built-in player's turn stays this process's
    claim without renewal (bot/service/claims.py): a process that dies holding one delays it
    by this much, and another process's next deadline pass takes it over. A living process
    renews it every third of this while the work lasts (a search thinks for seconds), so it
    need not cover the longest think. A process that does not run the game's server's shard
    also waits this long past a deadline, or after a move the built-in player must answer,
    before it steps in: the shard's own process goes first while it lives."""
    reminder_fraction: float = 0.25
    """A reminder goes out when this fraction of the time per move is left."""
    rate_per_10s: int = 12
    """Commands and clicks one user may give in 10 seconds."""
    seek_gather_seconds: float = 20.0
    """A matchmaking pool is matched once its oldest ticket waited this long, so that members
    asking at about the same time are paired by rating (bot/service/matchmaking.py)."""
    now: Any = field(default=utcnow)
    """The clock (naive UTC), for tests of deadlines."""


def point_at(settings: Settings) -> None:
    """Aim discord.py at DISCORD_API_BASE / DISCORD_GATEWAY_URL when set (a stand-in)."""
    if settings.discord_api_base:
        discord.http.Route.BASE = settings.discord_api_base.rstrip("/")
    if settings.discord_gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


class Tree(app_commands.CommandTree):
    """Every slash command first passes the per-user rate check (autocomplete does not: it
    fires on each keystroke and changes nothing)."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        if interaction.type is discord.InteractionType.autocomplete:
            return True
        table = getattr(interaction.client, "table", None)
        return True if table is None else bool(await table.admit(interaction))

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError, /) -> None:
        """A failure outside a handler's own guard (a bad argument, a failed check): one
        short ephemeral sentence for the player, the traceback for the log."""
        table = getattr(interaction.client, "table", None)
        if table is not None:
            await table.report(interaction, error)
        else:
            await super().on_error(interaction, error)


class AlcazabaBot(commands.AutoShardedBot):
    """The Discord client with the game service, the picture renderer and the cogs.

    Sharded (Discord requires it from 2,500 servers): SHARD_COUNT shards in all, of which
    this process runs SHARD_IDS (all of them when unset). Several processes may share one
    database, each with its own shards. Interactions reach only the process running their
    server's shard, but what the bot does on its own is claimed with a lease in the
    database, so any process may do it and none waits for a dead one: outbox rows
    (``claim_outbox``), a game's due deadline and a game's built-in player's turn
    (``claim_games``; posting works from any process, over REST). The process running the
    game's server's shard (:meth:`owns`) goes first; another steps in once the work has
    waited a lease (``Tuning.claim_lease_seconds``) and nobody holds its claim.
    """

    def __init__(self, settings: Settings, service: GameService, tuning: Tuning | None = None, *,
                 workers: bool = True) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,  # no text commands; slash commands only
            intents=discord.Intents(guilds=True),
            help_command=None,
            tree_cls=Tree,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
            shard_count=settings.shard_count,
        )
        # After the constructor: its stub types shard_ids as a list, while None (the
        # default) means every shard of shard_count.
        self.shard_ids = settings.shard_ids
        self.settings = settings
        self.service = service
        self.store = Store(service)
        self.images = Images(settings.render_concurrency)
        self.thinker = Thinker(settings.ai_concurrency, settings.ai_iteration_cap)
        """Where the built-in player's searches run (bot/thinking.py), off the event loop."""
        self.tuning = tuning or Tuning()
        self.workers = workers
        """False for a short-lived client (``alcazaba sync``): no outbox, deadline or bot loops."""
        self.worker_id = f"discord-{os.getpid()}-{id(self):x}"
        self.table: Table
        self.delivery: Delivery
        self.lobby: Lobby
        self.deadlines: Deadlines
        self._bot_tasks: set[asyncio.Task[Any]] = set()
        self._bot_games: set[int] = set()
        self._bot_again: set[int] = set()

    def now(self) -> datetime:
        value: datetime = self.tuning.now()
        return value

    async def setup_hook(self) -> None:
        from bot.discord import views
        from bot.discord.table import Table

        self.table = Table(self)
        for name in COGS:
            await self.load_extension(name)
        # Persistent components: registered by pattern, so every button ever sent (any
        # game, any move) is routed here after a restart.
        self.add_dynamic_items(*views.DYNAMIC_ITEMS)
        guild_id = self.settings.discord_dev_guild_id
        if guild_id:
            guild = discord.Object(guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("slash commands synced to the development server %s (%d commands)", guild_id, len(synced))
        # Games a built-in player must move in (e.g. the bot stopped mid-turn): this
        # process's servers' at once; the others' when the deadline loop finds them waiting
        # a lease with nobody moving them (Deadlines.adopt_bots).
        if not self.workers:
            return
        waiting = await self.service.waiting_for_bots()
        if self.settings.shard_ids is not None:
            games = await self.service.games(status="running", limit=None)
            mine = {g.id for g in games if self.owns(g.guild_id)}
            waiting = [pk for pk in waiting if pk in mine]
        for game_pk in waiting:
            self.run_bots(game_pk)

    def owns(self, guild_id: int | None) -> bool:
        """Whether this process runs the shard of server ``guild_id`` (None: direct messages,
        shard 0): the process that goes first for that server's games' clocks and built-in
        players (others step in after a lease). One process without SHARD_IDS owns everything."""
        ids, count = self.settings.shard_ids, self.settings.shard_count
        if ids is None or count is None:
            return True
        return shard_of(guild_id, count) in ids

    def run_bots(self, game_pk: int) -> None:
        """Let the built-in player move in the background (one task per game at a time),
        if this process can claim the game's built-in turn (another process may be moving it).

        Its searches run in :attr:`thinker`'s processes, queued fairly with every other
        game's, so the loop keeps answering everyone meanwhile; each committed move is
        delivered at once (``on_commit``), not after the whole run. The claim is renewed
        while it thinks and released at the end; after the release the game is looked at
        once more, since a move made meanwhile may have found the claim still held here and
        left the built-in player's answer to this task."""
        if game_pk in self._bot_games:
            # The running task may have just found nothing to do: it looks once more.
            self._bot_again.add(game_pk)
            return
        self._bot_games.add(game_pk)

        async def play() -> None:
            await self.service.play_bots(game_pk, thinker=self.thinker, on_commit=lambda _: self.poke())

        async def work() -> None:
            try:
                while True:
                    self._bot_again.discard(game_pk)
                    # A read first: most calls come after a person's move in a game without
                    # a built-in seat, where a claim would be a write for nothing.
                    if await self.bots_wait(game_pk):
                        if not await self.service.claim_game(BOTS, self.worker_id, game_pk,
                                                             self.tuning.claim_lease_seconds):
                            log.debug("built-in turn of game %s is claimed by another process", game_pk)
                            break
                        try:
                            await self.holding(BOTS, game_pk, play())
                        finally:
                            await self.release(BOTS, game_pk)
                        continue  # a move made meanwhile may have left the next turn to this task
                    if game_pk not in self._bot_again:
                        break
            except Exception:
                log.exception("built-in player failed in game %s", game_pk)
            finally:
                self._bot_games.discard(game_pk)

        task = asyncio.create_task(work(), name=f"bots-{game_pk}")
        self._bot_tasks.add(task)
        task.add_done_callback(self._bot_tasks.discard)

    def moving_bots(self, game_pk: int) -> bool:
        """Whether this process's built-in player task for the game is running."""
        return game_pk in self._bot_games

    async def bots_wait(self, game_pk: int) -> bool:
        """Whether the built-in player must move in the game now."""
        info = await self.service.game(game_pk)
        return info.status == "running" and any((seat := info.seat(r)) is not None and seat.is_bot
                                                for r in info.active)

    async def holding(self, kind: str, game_pk: int, work: Awaitable[T]) -> T | None:
        """Run ``work`` while renewing this process's claim of the game's ``kind`` work every
        third of the lease, so that a search thinking longer than the lease keeps it while
        one that dies loses it within a lease. If the claim was lost meanwhile (this process
        stalled a whole lease and another took over), the work is stopped: None. A failed
        renewal (the database away a moment) is logged and tried again at the next beat."""
        lease = self.tuning.claim_lease_seconds
        task = asyncio.ensure_future(work)
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=lease / 3)
                if done:
                    return task.result()
                try:
                    kept = await self.service.renew_claim(kind, self.worker_id, game_pk, lease)
                except Exception:
                    log.warning("could not renew the %s claim of game %s", kind, game_pk, exc_info=True)
                    continue
                if not kept:
                    log.warning("the %s claim of game %s ran out and another process took it; stopping here",
                                kind, game_pk)
                    task.cancel()
                    await asyncio.wait({task})
                    return None
        finally:
            if not task.done():  # this coroutine was cancelled (the bot closes)
                task.cancel()
                await asyncio.wait({task})

    async def release(self, kind: str, game_pk: int) -> None:
        """Give up this process's claim (the work is done or stopped). A failure is only
        logged: the claim then runs out at the end of its lease."""
        try:
            await self.service.release_claim(kind, self.worker_id, game_pk)
        except Exception:
            log.warning("could not release the %s claim of game %s", kind, game_pk, exc_info=True)

    def poke(self, clock: bool = True) -> None:
        """Something was committed: deliver notifications now, and (``clock``: the game has a
        pace) look at deadlines now rather than at the next poll."""
        delivery = getattr(self, "delivery", None)
        if delivery is not None:
            delivery.wake.set()
        deadlines = getattr(self, "deadlines", None)
        if deadlines is not None and clock:
            deadlines.wake.set()

    async def close(self) -> None:
        """Stop the background work first and wait for it to unwind (a cancelled pass may be
        rolling back a transaction), so that the service is never closed under a running task."""
        halts = [getattr(cog, "halt", None) for cog in list(self.cogs.values())]   # the Worker cogs
        tasks = [t for t in (halt() for halt in halts if halt is not None) if t is not None]
        for task in list(self._bot_tasks):
            task.cancel()
            tasks.append(task)
        if tasks:
            await asyncio.wait(tasks, timeout=SHUTDOWN_WAIT)
        if self.workers:
            await self.release_everything()
        await self.thinker.close()
        await super().close()

    async def release_everything(self) -> None:
        """At a clean shutdown (SIGTERM, SIGINT), once the background work has stopped: give
        back the outbox rows and game claims this process holds, so that a planned restart
        (or another process) carries on at once. A process that dies keeps them until their
        lease runs out; a failure here is only logged and has the same effect."""
        try:
            rows = await self.service.release_outbox(self.worker_id)
            claims = await self.service.release_claims(self.worker_id)
        except Exception:
            log.warning("could not give back this process's outbox rows and claims at shutdown; they "
                        "free themselves when their lease runs out", exc_info=True)
            return
        if rows or claims:
            log.info("shutdown: gave back %d outbox rows and %d claims", rows, claims)


async def serve(settings: Settings, tuning: Tuning | None = None,
                created: Any = None) -> int:
    """Run the bot until SIGINT/SIGTERM or until the task running this is cancelled.
    ``created(bot)`` is called with the client once it exists (tests hold on to it)."""
    if settings.discord_token is None:
        raise RuntimeError("DISCORD_TOKEN is not set")
    point_at(settings)
    await migrate_async(settings.db_url)
    service = GameService.open(settings.db_url, busy_timeout_ms=settings.sqlite_busy_timeout_ms)
    bot = AlcazabaBot(settings, service, tuning)
    if created is not None:
        created(bot)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    installed = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
    try:
        async with bot:
            runner = asyncio.create_task(bot.start(settings.discord_token.get_secret_value()))
            stopper = asyncio.create_task(stop.wait())
            done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if runner in done:
                try:
                    runner.result()
                except discord.LoginFailure:
                    log.error("Discord refused the bot token (DISCORD_TOKEN); copy it again from the "
                              "Developer Portal, Bot tab")
                    return 2  # a setting to change, like every set-up problem (README)
            stopper.cancel()
            await bot.close()
            if not runner.done():
                runner.cancel()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        await service.close()
    return 0


async def sync_global(settings: Settings) -> int:
    """Log in over HTTP only (no gateway), publish the commands globally, log out."""
    if settings.discord_token is None:
        raise RuntimeError("DISCORD_TOKEN is not set")
    point_at(settings)
    await migrate_async(settings.db_url)
    service = GameService.open(settings.db_url, busy_timeout_ms=settings.sqlite_busy_timeout_ms)
    bot = AlcazabaBot(settings, service, workers=False)
    try:
        async with bot:
            await bot.login(settings.discord_token.get_secret_value())
            # setup_hook (run by login) synced to the development server if one is set;
            # here the commands go to every server.
            synced = await bot.tree.sync()
            print(f"synced {len(synced)} slash commands globally: {', '.join(sorted(c.name for c in synced))}")
    finally:
        await service.close()
    return 0


def command_tree_payload(bot: AlcazabaBot) -> list[dict[str, Any]]:
    """The commands as Discord receives them (for documentation and tests)."""
    return [c.to_dict(bot.tree) for c in bot.tree.get_commands()]


__all__ = ["AlcazabaBot", "Tuning", "app_commands", "command_tree_payload", "point_at", "serve", "sync_global"]
