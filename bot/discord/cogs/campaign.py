"""Campaigns (issue 29): ``/rating``, ``/leaderboard``, ``/stats``, ``/history`` and the
managers' ``/server ratings`` and ``/server rate``.

Every answer is ephemeral: a player's record is his business, and a refusal says why to the
one who asked. Names are the members' display names at the time of asking; a member who
left the server shows the name he last played a rated game under.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

import discord
from discord import app_commands

import engine
from bot.discord import present
from bot.discord.cogs.base import Cog, is_manager
from bot.discord.errors import UserError
from bot.discord.table import Outgoing
from bot.service import ratings
from bot.service.records import RatingLine

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot

PROVISIONAL_NOTE = (f"? provisional: sigma {ratings.PROVISIONAL_SIGMA} or more (about ten games). "
                    f"Rating = {ratings.SCALE_BASE} + {ratings.SCALE_STEP} × (mu − 3 sigma).")


def _level_name(entry: str) -> str:
    level = entry.removeprefix("bot:")
    return "Yusuf (solo automaton)" if level == "yusuf" else f"built-in player ({level})"


def _game_title(game_id: str) -> str:
    try:
        return engine.get(game_id).title
    except KeyError:
        return game_id


def _rating_text(line: RatingLine) -> str:
    return f"{line.rating.value}{'?' if line.rating.provisional else ''}"


class Campaign(Cog):
    server = app_commands.Group(name="server", description="This server's campaign settings (managers)",
                                guild_only=True)

    def __init__(self, bot: AlcazabaBot) -> None:
        super().__init__(bot)

    # ------------------------------------------------------------------ helpers

    async def games_auto(self, inter: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        typed = current.casefold()
        return [app_commands.Choice(name=present.clip(m.title, 100), value=g)
                for g, m in sorted(engine.GAMES.items()) if typed in g.casefold() or typed in m.title.casefold()][:25]

    @staticmethod
    def _guild(inter: discord.Interaction) -> int:
        if inter.guild_id is None:
            raise UserError("Ratings and records belong to a server: ask in one of its channels.")
        return inter.guild_id

    @staticmethod
    def _game(game: str | None) -> str | None:
        if game is not None and game not in engine.GAMES:
            raise UserError(f"There is no game {present.clip(game, 40)!r}; pick one from the list "
                            f"({', '.join(sorted(engine.GAMES))}).")
        return game

    async def names(self, guild_id: int, lines: list[tuple[str, int | None, str]]) -> dict[str, str]:
        """Entry -> the name to show: a member's display name now, else the last one known;
        a built-in level's own name."""
        guild = self.bot.get_guild(guild_id)

        async def one(entry: str, user_id: int | None, last: str) -> tuple[str, str]:
            if user_id is None:
                return entry, _level_name(entry)
            if guild is not None:
                with contextlib.suppress(discord.HTTPException):
                    member = await guild.fetch_member(user_id)
                    return entry, member.display_name
            return entry, f"{last or 'someone'} (left)" if guild is not None else last
        found = await asyncio.gather(*(one(*line) for line in lines))
        return {entry: present.clip(name, 40) for entry, name in found}

    # ------------------------------------------------------------------ /rating

    @app_commands.command(name="rating", description="A member's ratings on this server (yours by default)")
    @app_commands.describe(member="Whose ratings (default: yours)", game="One game only")
    @app_commands.autocomplete(game=games_auto)
    @app_commands.guild_only()
    async def rating(self, inter: discord.Interaction, member: discord.Member | None = None,
                     game: str | None = None) -> None:
        async with self.table.guard(inter):
            guild = self._guild(inter)
            who = member or inter.user
            lines = await self.service.ratings_of(guild, who.id, self._game(game))
            name = present.clip(who.display_name, 40)
            if not lines:
                where = f" in {_game_title(game)}" if game else ""
                raise UserError(f"{name} has no rated game{where} on this server yet.")
            out = [f"**{name}**'s ratings on this server:"]
            for line in lines:
                out.append(f"• {_game_title(line.game_id)}: **{_rating_text(line)}** · #{line.rank} · "
                           f"{line.rating.games} games, {line.rating.wins} won")
            out.append(PROVISIONAL_NOTE)
            await inter.followup.send(present.clip("\n".join(out), present.MESSAGE_LIMIT), ephemeral=True)

    # ------------------------------------------------------------------ /leaderboard

    @app_commands.command(name="leaderboard", description="The best rated players of a game on this server")
    @app_commands.describe(game="Which game")
    @app_commands.autocomplete(game=games_auto)
    @app_commands.guild_only()
    async def leaderboard(self, inter: discord.Interaction, game: str) -> None:
        async with self.table.guard(inter):
            guild = self._guild(inter)
            game_id = self._game(game)
            assert game_id is not None
            board = await self.service.leaderboard(guild, game_id, inter.user.id)
            title = _game_title(game_id)
            if not board.lines:
                raise UserError(f"Nobody has a rated game of {title} on this server yet.")
            shown = [*board.lines, *([board.own] if board.own else [])]
            names = await self.names(guild, [(line.entry, line.user_id, line.name) for line in shown])
            mine = ratings.person(inter.user.id)
            text = [f"**{title}** · leaderboard ({board.entries} rated)"]
            for line in shown:
                if board.own is line:
                    text.append("…")
                marker = "▶ " if line.entry == mine else ""
                trend = ""
                if len(line.trend) > 1:
                    delta = line.trend[-1] - line.trend[0]
                    trend = f" · {'+' if delta >= 0 else ''}{delta} over {len(line.trend)} games"
                text.append(f"{marker}{line.rank}. {names[line.entry]} · **{_rating_text(line)}** · "
                            f"{line.rating.games} games, {line.rating.wins} won{trend}")
            text.append(PROVISIONAL_NOTE)
            content = present.clip("\n".join(text), present.MESSAGE_LIMIT)
            files = []
            from render.leaderboard import Row

            rows = [Row(line.rank, names[line.entry], line.rating.value, line.rating.provisional, line.rating.games,
                        line.rating.wins, tuple(line.trend), line.entry == mine) for line in shown]
            data = await self.bot.images.draw("leaderboard", "leaderboard", f"{title} · leaderboard", rows,
                                              "? provisional (about ten games)", limit=self.table.limit_for(inter) - 4096)
            if data is not None:
                files.append(("leaderboard.png", data))
            await inter.followup.send(ephemeral=True, **Outgoing(content, files).kwargs())

    # ------------------------------------------------------------------ /stats and /history

    @app_commands.command(name="stats", description="A member's record on this server (yours by default)")
    @app_commands.describe(member="Whose record (default: yours)")
    @app_commands.guild_only()
    async def stats(self, inter: discord.Interaction, member: discord.Member | None = None) -> None:
        async with self.table.guard(inter):
            guild = self._guild(inter)
            who = member or inter.user
            stats = await self.service.stats(guild, who.id)
            name = present.clip(who.display_name, 40)
            if not stats.per_game and not stats.in_progress:
                raise UserError(f"{name} has played no game on this server yet.")
            out = [f"**{name}** on this server:"]
            for count in stats.per_game:
                out.append(f"• {_game_title(count.game_id)}: {count.played} played, {count.won} won")
            out.append(f"In progress: {stats.in_progress}")
            if stats.median_move is not None:
                out.append(f"Median time to move: {_duration(stats.median_move.total_seconds())} "
                           f"({stats.on_time} of {stats.moves} moves within the game's pace)")
            if stats.longest is not None:
                out.append(f"Longest game: #{stats.longest[0]}, {_duration(stats.longest[1].total_seconds())}")
            if stats.favourite_side is not None:
                game_id, role, times = stats.favourite_side
                out.append(f"Favourite side: {role} in {_game_title(game_id)} ({times} games)")
            await inter.followup.send(present.clip("\n".join(out), present.MESSAGE_LIMIT), ephemeral=True)

    @app_commands.command(name="history", description="A member's last finished games on this server")
    @app_commands.describe(member="Whose games (default: yours)")
    @app_commands.guild_only()
    async def history(self, inter: discord.Interaction, member: discord.Member | None = None) -> None:
        async with self.table.guard(inter):
            guild = self._guild(inter)
            who = member or inter.user
            games = await self.service.history(guild, who.id, limit=10)
            name = present.clip(who.display_name, 40)
            if not games:
                raise UserError(f"{name} has finished no game on this server yet.")
            out = [f"**{name}**'s last finished games:"]
            for g in games:
                where = f" · <#{g.thread_id}>" if g.thread_id else ""
                change = "" if g.change is None else f" · rating {'+' if g.change >= 0 else ''}{g.change}"
                reason = f" ({present.clip(g.reason, 80)})" if g.reason else ""
                out.append(f"• #{g.game_pk} {g.title} as {g.role}: **{g.outcome}**{reason}{change}{where}")
            await inter.followup.send(present.clip("\n".join(out), present.MESSAGE_LIMIT), ephemeral=True)

    # ------------------------------------------------------------------ /server (managers)

    @staticmethod
    def _manager(inter: discord.Interaction) -> None:
        if not is_manager(inter):
            raise UserError("Only a server manager (Manage Server) can change that.")

    @server.command(name="ratings", description="Whether games against the built-in player count for ratings")
    @app_commands.describe(vs_bot="Count games against the built-in player (off by default)")
    async def server_ratings(self, inter: discord.Interaction, vs_bot: bool | None = None) -> None:
        async with self.table.guard(inter):
            guild = self._guild(inter)
            if vs_bot is not None:
                self._manager(inter)
                await self.service.set_ratings_vs_bot(guild, vs_bot)
            now = await self.service.ratings_vs_bot(guild)
            await inter.followup.send(
                "Games against the built-in player " + ("count" if now else "do not count") + " for ratings "
                "on this server" + (" from now on." if vs_bot is not None else "."), ephemeral=True)

    @server.command(name="rate", description="Mark a game of this server rated or unrated")
    @app_commands.describe(game="The game's number", rated="Whether it counts for ratings")
    async def server_rate(self, inter: discord.Interaction, game: int, rated: bool) -> None:
        async with self.table.guard(inter):
            guild = self._guild(inter)
            self._manager(inter)
            info = await self.service.game(game)
            if info.guild_id not in (guild, None):
                raise UserError(f"Game #{game} belongs to another server.")
            why = await self.service.set_rated(game, rated, inter.user.id)
            if not rated:
                text = f"Game #{game} does not count for ratings now."
            elif why is None:
                text = f"Game #{game} counts for ratings" + ("." if info.status == "finished" else " when it ends.")
            else:
                text = f"Game #{game} is marked rated, but it cannot count: {why}."
            await inter.followup.send(text, ephemeral=True)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{round(seconds)} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


async def setup(bot: AlcazabaBot) -> None:
    await bot.add_cog(Campaign(bot))
