"""``/game seek``: matchmaking tickets, and the loop that pairs them into games (issue 29).

``/game seek game:<id> [pace] [options] [players]`` puts the member on the waiting list of
that pool (server, game, pace, options, seats); ``/game seek`` alone lists his tickets;
``/game seek cancel:<ticket>`` withdraws one. Answers are ephemeral.

The loop (one per bot process, woken by each new ticket) expires tickets, makes the games of
ripe pools (``bot.service.matchmaking``: the game, its seats and the players' DMs are
written with the tickets' change of status) and opens each game: a public thread in the
channel where its first ticket was asked, the lobby message, the start. A process that dies
between the match and the opening leaves it to the next pass of any process, once the
opening's lease runs out; each step of the opening is skipped when already done. Its first
pass in a process also finishes the openings of the games ``/game new`` or a rematch made
before the process started and a killed process left without their thread, lobby message
or start (``Lobby.finish_openings``).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

import engine
from bot.discord import nonces, present
from bot.discord.cogs.base import Worker, chosen_game
from bot.discord.cogs.delivery import send_once
from bot.discord.cogs.lobby import display_name, game_thread
from bot.discord.errors import UserError
from bot.discord.table import Outgoing
from bot.models import utcnow
from bot.service.matchmaking import GATHER_SECONDS, Match, Ticket

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot

log = logging.getLogger("bot.discord")


def ticket_line(t: Ticket) -> str:
    title = engine.get(t.game_id).title if t.game_id in engine.GAMES else t.game_id
    options = ", ".join(f"{k}={v}" for k, v in sorted(t.options.items()) if k != "players")
    return (f"#{t.id} {title} · {t.players} players · {present.pace_text(t.pace)}"
            + (f" · {options}" if options else "") + f" · expires {present.when(t.expires_at)}")


class Matchmaker(Worker):
    task_name = "matchmaker"

    def __init__(self, bot: AlcazabaBot) -> None:
        super().__init__(bot)
        self.gather = float(getattr(bot.tuning, "seek_gather_seconds", GATHER_SECONDS))
        self.process_start: datetime | None = utcnow()
        """When this process started (the database's clock, as a game's ``created_at``):
        the openings of the games made before, a killed process's, are finished once."""

    async def cog_load(self) -> None:
        # ``/game seek`` joins the lobby's /game group (loaded before this cog).
        lobby = self.bot.get_cog("Lobby")
        group = getattr(lobby, "game", None)
        if isinstance(group, app_commands.Group) and group.get_command("seek") is None:
            group.add_command(self._seek_command())
        await super().cog_load()

    def _seek_command(self) -> app_commands.Command[Any, ..., None]:
        cog = self

        @app_commands.describe(
            game="Which game (leave out to list your tickets)", pace="Time allowed per move",
            options="Game options as key=value, separated by spaces", players="Number of players",
            cancel="Withdraw one of your tickets (its number)")
        @app_commands.choices(pace=[app_commands.Choice(name=f"{k} per move" if v else "live (no clock)", value=k)
                                    for k, v in present.PACES.items()])
        async def seek(inter: discord.Interaction, game: str | None = None, pace: str = "72h",
                       options: app_commands.Range[str, 0, 400] | None = None,
                       players: app_commands.Range[int, 2, 6] | None = None,
                       cancel: int | None = None) -> None:
            await cog.seek(inter, game, pace, options, players, cancel)

        command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name="seek", description="Find an opponent: a ticket matched by rating", callback=seek)
        lobby = self.bot.get_cog("Lobby")

        async def game_auto(inter: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
            auto = getattr(lobby, "games_auto", None)
            return [] if auto is None else list(await auto(inter, current))

        command.autocomplete("game")(game_auto)
        return command

    async def seek(self, inter: discord.Interaction, game: str | None, pace: str, options: str | None,
                   players: int | None, cancel: int | None) -> None:
        async with self.table.guard(inter):
            guild = inter.guild_id
            if guild is None:
                raise UserError("Matchmaking pairs members of a server: ask in one of its channels.")
            now = self.bot.now()
            if cancel is not None:
                gone = await self.service.cancel_ticket(guild, inter.user.id, cancel)
                await inter.followup.send(f"Ticket #{gone.id} withdrawn.", ephemeral=True)
                return
            if game is None:
                mine = await self.service.tickets(guild, inter.user.id, now=now)
                text = ("Your tickets:\n" + "\n".join(f"• {ticket_line(t)}" for t in mine) +
                        "\nWithdraw one with `/game seek cancel:<number>`.") if mine else \
                    "You hold no ticket. Ask for a game with `/game seek game:<game>`."
                await inter.followup.send(present.clip(text, present.MESSAGE_LIMIT), ephemeral=True)
                return
            _module, opts = chosen_game(game, options)
            channel = inter.channel
            parent = channel.parent if isinstance(channel, discord.Thread) else channel
            ticket = await self.service.seek(guild, inter.user.id, display_name(inter.user), game, pace, opts,
                                             players, channel_id=getattr(parent, "id", None), now=now)
            self.wake.set()
            await inter.followup.send(
                f"Ticket #{ticket.id}: you wait for {ticket_line(ticket).split(' · ', 1)[1]}. You will be told by DM "
                "when your game starts.", ephemeral=True)

    # ------------------------------------------------------------------ the loop

    def idle(self) -> float:
        return max(1.0, self.gather)

    async def cycle(self) -> float:
        if self.process_start is not None and self.bot.is_ready():  # its servers and their threads known
            began, self.process_start = self.process_start, None
            await self.bot.lobby.finish_openings(began)
        now = self.bot.now()
        await self.service.expire_tickets(now)
        owned = [g.id for g in self.bot.guilds if self.bot.owns(g.id)]
        for match in await self.service.match_tickets(now=now, gather_seconds=self.gather, guild_ids=owned):
            await self.open(match)
        for match in await self.service.matches_to_open(now, guild_ids=owned):
            await self.open(match)
        return max(0.2, min(10.0, self.gather / 4))

    async def open(self, match: Match) -> None:
        """The matched game's thread, lobby message and start (each skipped when done)."""
        try:
            info = await self.service.game(match.game_pk)
            thread_id = info.thread_id
            if thread_id is None:
                if match.channel_id is None:
                    raise LookupError("the ticket names no channel")
                parent = self.bot.get_channel(match.channel_id) or await self.bot.fetch_channel(match.channel_id)
                if not isinstance(parent, discord.TextChannel):
                    raise LookupError(f"channel {match.channel_id} is not a text channel")
                thread = await game_thread(self.bot, parent, present.clip(present.game_name(info.title, info.id), 100))
                players = " vs ".join(f"<@{user}> ({role})" for role, user, _name in match.seats)
                # Sent before the thread is stored, under the game's nonce: a process killed in
                # between sends it again, and Discord hands back the first.
                await send_once(parent, Outgoing(f"🎯 Matchmaking: **{present.game_name(info.title, info.id)}** "
                                                 f"({present.pace_text(match.pace)}), {players}, in <#{thread.id}>."),
                                nonces.game(info.id), nonces.MATCHED)
                await self.service.set_place(info.id, thread_id=thread.id)
                thread_id = thread.id
            await self.bot.lobby.lobby_and_start(
                info.id, self.bot.get_partial_messageable(thread_id, guild_id=match.guild_id))
            await self.service.match_opened(info.id)
        except Exception:
            log.exception("opening matched game %s failed; a later pass tries again", match.game_pk)


async def setup(bot: AlcazabaBot) -> None:
    await bot.add_cog(Matchmaker(bot))
