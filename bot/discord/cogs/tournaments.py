"""``/tournament``: leagues and tournaments (issue 29; the rules are bot/service/tournaments.py
and bot/service/pairing.py).

``/tournament new`` opens a public thread for the tournament in the channel and posts its
sign-up message there, with Join and Leave buttons (persistent: they work after a restart).
``/tournament start`` (its creator or a manager) closes the sign-up and makes round 1;
``/tournament standings`` shows the table; ``/tournament withdraw`` leaves a running one (the
player's running games are resigned). Answers are ephemeral; the thread gets, after each
round, the standings as a picture and as text and the next round's pairings.

The loop (one per process, woken by commands) ends rounds whose games are over and makes
the next ones, opens each new game (its own thread in the channel, the start, the lobby
message) under a lease on its table, and posts each round's standings once.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Self

import discord
from discord import app_commands

import engine
from bot.discord import nonces, posting, present
from bot.discord.cogs.base import Worker, chosen_game, is_manager
from bot.discord.cogs.delivery import send_once
from bot.discord.cogs.lobby import display_name, game_thread
from bot.discord.errors import UserError
from bot.discord.nonces import Nonces
from bot.discord.table import Outgoing
from bot.models import utcnow
from bot.service import NotAllowed
from bot.service.tournaments import FORMATS, Line, Table, TournamentInfo

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot

log = logging.getLogger("bot.discord")

SIGNUP = r"az:t:(?P<tournament>\d{1,18}):(?P<join>[01])"


def parse_when(text: str, now: datetime) -> datetime:
    """A start time: 'YYYY-MM-DD HH:MM' (UTC) or 'in 2h' / '3d' / '90m' from now."""
    text = text.strip()
    found = re.fullmatch(r"(?:in\s*)?(\d{1,4})\s*([mhd])", text)
    if found:
        n = int(found[1])
        return now + {"m": timedelta(minutes=n), "h": timedelta(hours=n), "d": timedelta(days=n)}[found[2]]
    try:
        when = datetime.strptime(text, "%Y-%m-%d %H:%M")
    except ValueError:
        raise UserError("starts: give YYYY-MM-DD HH:MM (UTC) or a delay such as 2h or 3d.") from None
    if when <= now:
        raise UserError("starts: that time has passed.")
    return when


def _points(value: float) -> str:
    """1, 0.5, 1.33: at most two decimals (a table of three or more gives thirds)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def standings_text(info: TournamentInfo, lines: list[Line], heading: str) -> str:
    breaks = "head-to-head, wins" if info.format == "round_robin" else "Buchholz, Sonneborn-Berger"
    out = [f"**{heading}** · {info.title} · {info.format.replace('_', ' ')}"]
    for line in lines:
        gone = " (withdrawn)" if line.withdrawn else ""
        tb = " / ".join(_points(b) for b in line.tiebreaks)
        out.append(f"{line.rank}. {present.clip(line.name, 40)}{gone} · **{_points(line.points)}** · "
                   f"{line.games} games · {tb}")
    out.append(f"Points · games · tie-breaks ({breaks}).")
    return present.clip("\n".join(out), present.MESSAGE_LIMIT)


class SignupButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=SIGNUP):
    """Join or Leave on a tournament's sign-up message (rebuilt from its custom id)."""

    def __init__(self, tournament: int, join: int) -> None:
        super().__init__(discord.ui.Button(
            label="Join" if join else "Leave",
            style=discord.ButtonStyle.success if join else discord.ButtonStyle.secondary,
            custom_id=f"az:t:{tournament}:{join}"))
        self.tournament, self.join = tournament, join

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> Self:
        return cls(int(match["tournament"]), int(match["join"]))

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        return bool(await interaction.client.table.admit(interaction))  # type: ignore[attr-defined]

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = interaction.client.get_cog("Tournaments")  # type: ignore[attr-defined]
        await cog.signup_click(interaction, self.tournament, bool(self.join))


class Tournaments(Worker):
    task_name = "tournaments"
    tournament = app_commands.Group(name="tournament", description="Leagues and tournaments", guild_only=True)

    def __init__(self, bot: AlcazabaBot) -> None:
        super().__init__(bot)
        self.resumed = False  # finish_starts ran in this process
        self.process_start: datetime | None = utcnow()
        """When this process started (the database's clock): the tournaments made before it
        and left without a thread are opened once (:meth:`finish_openings`)."""

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(SignupButton)
        await super().cog_load()

    async def games_auto(self, inter: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        typed = current.casefold()
        return [app_commands.Choice(name=present.clip(m.title, 100), value=g)
                for g, m in sorted(engine.GAMES.items()) if typed in g.casefold() or typed in m.title.casefold()][:25]

    # ------------------------------------------------------------------ commands

    @tournament.command(name="new", description="Open a tournament: a sign-up message with Join/Leave buttons")
    @app_commands.describe(game="Which game", format="swiss, round_robin (two seats) or pods (3 to 6 seats)",
                           rounds="Rounds (a round robin plays its full circle)", pace="Time allowed per move",
                           options="Game options as key=value (pods: players=N is the table size)",
                           double="Round robin: two games per pairing, sides swapped",
                           starts="When it starts by itself: YYYY-MM-DD HH:MM (UTC) or in Nh / Nd")
    @app_commands.choices(format=[app_commands.Choice(name=f, value=f) for f in FORMATS],
                          pace=[app_commands.Choice(name=f"{k} per move" if v else "live (no clock)", value=k)
                                for k, v in present.PACES.items()])
    @app_commands.autocomplete(game=games_auto)
    async def new(self, inter: discord.Interaction, game: str, format: str, rounds: app_commands.Range[int, 1, 30],
                  pace: str = "72h", options: app_commands.Range[str, 0, 400] | None = None,
                  double: bool = False, starts: app_commands.Range[str, 0, 40] | None = None) -> None:
        async with self.table.guard(inter):
            starts_at = parse_when(starts, self.bot.now()) if starts else None
            if inter.guild_id is None or not isinstance(inter.channel, discord.TextChannel):
                raise UserError("Open tournaments in a server's text channel: they get a thread there.")
            _module, opts = chosen_game(game, options)
            info = await self.service.create_tournament(inter.guild_id, inter.user.id, game, format, rounds, pace,
                                                        opts, double=double, channel_id=inter.channel.id,
                                                        starts_at=starts_at)
            thread_id = await self.open_tournament(info, inter.channel)
            await inter.followup.send(f"Tournament #{info.id} is open for sign-up in <#{thread_id}>; start it "
                                      f"with `/tournament start tournament:{info.id}`.", ephemeral=True)

    async def open_tournament(self, info: TournamentInfo, parent: discord.TextChannel) -> int:
        """The tournament's thread, its sign-up message and the post in the channel that points
        to it, then the thread and message stored; the thread's id. Run again after a crash
        (:meth:`finish_openings`), each is made once: the thread is taken again by its name,
        the posts go under the tournament's nonces and Discord hands back the first (any
        message under them is this tournament's, brought up to date if it says less)."""
        if info.thread_id is not None:
            return info.thread_id
        thread = await game_thread(self.bot, parent, present.clip(f"Tournament #{info.id} · {info.title}", 100))
        ids = nonces.tournament_round(info.id, 0)
        text = self.signup_text(info)
        body: dict[str, Any] = {"content": text}
        if info.status == "signup":
            body["view"] = self.signup_view(info.id)
        signup = await posting.post(thread, ids(nonces.SIGNUP), posting.same_heading(text), **body)
        await posting.post(parent, ids(nonces.OPENED), lambda m: f"<#{thread.id}>" in (m.content or ""),
                           content=f"🏆 <@{info.created_by}> opened **tournament #{info.id}** of {info.title} "
                                   f"({info.format.replace('_', ' ')}): sign up in <#{thread.id}>.",
                           allowed_mentions=discord.AllowedMentions.none())
        await self.service.set_tournament_place(info.id, thread_id=thread.id, message_id=signup.id)
        if signup.content != text:
            await self.refresh_signup(await self.service.tournament(info.id))
        return thread.id

    async def finish_openings(self, created_before: datetime) -> None:
        """Once per process: the tournaments of its servers that a killed process left without
        their thread (made before this process started) are opened now."""
        owned = [g.id for g in self.bot.guilds if self.bot.owns(g.id)]
        for tid in await self.service.unplaced_tournaments(created_before, owned):
            try:
                info = await self.service.tournament(tid)
                channel_id = info.channel_id or 0
                parent = self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)
                if not isinstance(parent, discord.TextChannel):
                    raise LookupError(f"channel {channel_id} is not a text channel")
                await self.open_tournament(info, parent)
                log.info("finished opening tournament %s, left unopened by a stopped process", tid)
            except Exception:
                log.exception("could not finish opening tournament %s", tid)

    @tournament.command(name="start", description="Close the sign-up and make round 1 (creator or manager)")
    async def start(self, inter: discord.Interaction, tournament: int) -> None:
        async with self.table.guard(inter):
            await self._mine(inter, tournament)
            info = await self.service.start_tournament(tournament, inter.user.id, manager=is_manager(inter))
            self.wake.set()
            await self.started(info)
            await inter.followup.send(f"Tournament #{tournament} has started: round 1 of {info.rounds}.",
                                      ephemeral=True)

    @tournament.command(name="standings", description="A tournament's table")
    async def standings(self, inter: discord.Interaction, tournament: int) -> None:
        async with self.table.guard(inter):
            info = await self._mine(inter, tournament)
            lines = await self.service.tournament_standings(tournament)
            if not lines:
                raise UserError(f"Nobody has signed up for tournament #{tournament} yet.")
            heading = f"Tournament #{info.id} · standings after round {max(0, info.round - 1)}" \
                if info.status == "running" else f"Tournament #{info.id} · {info.status}"
            files = await self.picture(info, lines, heading, inter.user.id)
            await inter.followup.send(ephemeral=True, **Outgoing(standings_text(info, lines, heading), files).kwargs())

    @tournament.command(name="withdraw", description="Leave a running tournament (your running games are resigned)")
    async def withdraw(self, inter: discord.Interaction, tournament: int) -> None:
        async with self.table.guard(inter):
            await self._mine(inter, tournament)
            games = await self.service.withdraw(tournament, inter.user.id)
            for pk in games:
                game = await self.service.game(pk)
                for role in game.roles_of(inter.user.id) if game.status == "running" else []:
                    await self.service.resign(pk, role, inter.user.id)
            self.bot.poke()
            self.wake.set()
            info = await self.service.tournament(tournament)
            await self.post(info, f"{display_name(inter.user)} withdraws from tournament #{tournament}"
                                  + (f"; game(s) {', '.join(f'#{g}' for g in games)} resigned." if games else "."))
            await inter.followup.send(f"You withdrew from tournament #{tournament}"
                                      + (f"; your game(s) {', '.join(f'#{g}' for g in games)} were resigned."
                                         if games else "."), ephemeral=True)

    async def _mine(self, inter: discord.Interaction, tournament: int) -> TournamentInfo:
        try:
            info = await self.service.tournament(tournament)
        except Exception:
            raise UserError(f"There is no tournament #{tournament}.") from None
        if info.guild_id != inter.guild_id:
            raise UserError(f"There is no tournament #{tournament} on this server.")
        return info

    # ------------------------------------------------------------------ sign-up

    def signup_text(self, info: TournamentInfo) -> str:
        who = ", ".join(present.clip(name, 40) for _u, name, _w in info.players) or "nobody yet"
        state = {"signup": "sign-up open", "running": f"under way: round {info.round} of {info.rounds}",
                 "finished": "finished"}.get(info.status, info.status)
        rounds = "a full circle" if info.format == "round_robin" else f"{info.rounds} rounds"
        options = ", ".join(f"{k}={v}" for k, v in sorted(info.options.items()))
        return present.clip(
            f"🏆 **Tournament #{info.id}** · {info.title} · {info.format.replace('_', ' ')} · {rounds}"
            + (" (double)" if info.double else "") + f" · {present.pace_text(info.pace)}"
            + (f" · {options}" if options else "")
            + (f" · starts {present.when(info.starts_at)}" if info.starts_at and info.status == "signup" else "")
            + f"\n{state.capitalize()}. Players ({len(info.players)}): {who}",
            present.MESSAGE_LIMIT)

    @staticmethod
    def signup_view(tournament: int) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        view.add_item(SignupButton(tournament, 1))
        view.add_item(SignupButton(tournament, 0))
        return view

    async def signup_click(self, inter: discord.Interaction, tournament: int, join: bool) -> None:
        async with self.table.guard(inter, ephemeral=True):
            if join:
                info = await self.service.join_tournament(tournament, inter.user.id, display_name(inter.user))
                text = f"You are signed up for tournament #{tournament}."
            else:
                info = await self.service.leave_tournament(tournament, inter.user.id)
                text = f"You left tournament #{tournament}."
            await self.refresh_signup(info)
            await inter.followup.send(text, ephemeral=True)

    async def refresh_signup(self, info: TournamentInfo) -> None:
        if info.thread_id is None or info.message_id is None:
            return
        message = self.bot.get_partial_messageable(info.thread_id, guild_id=info.guild_id).get_partial_message(
            info.message_id)
        try:
            if info.status == "signup":
                await message.edit(content=self.signup_text(info), view=self.signup_view(info.id))
            else:
                await message.edit(content=self.signup_text(info), view=None)
        except discord.HTTPException:
            log.warning("could not edit the sign-up message of tournament %s", info.id, exc_info=True)

    # ------------------------------------------------------------------ posts

    async def post(self, info: TournamentInfo, text: str, files: list[tuple[str, bytes]] | None = None, *,
                   once: tuple[Nonces, str] | None = None) -> None:
        """Post in the tournament's thread. ``once``: the nonces and kind of a post that may be
        sent again after a crash (:func:`bot.discord.cogs.delivery.send_once`)."""
        if info.thread_id is None:
            return
        where = self.bot.get_partial_messageable(info.thread_id, guild_id=info.guild_id)
        out = Outgoing(present.clip(text, present.MESSAGE_LIMIT), files or [])
        if once is None:
            await where.send(allowed_mentions=discord.AllowedMentions.none(), **out.kwargs())
            return
        ids, kind = once
        await send_once(where, out, ids, kind, allowed_mentions=discord.AllowedMentions.none())

    async def pairings_text(self, info: TournamentInfo, round_no: int) -> str:
        names = {u: present.clip(n, 40) for u, n, _w in info.players}
        lines = [f"**Round {round_no} of {info.rounds}** · pairings"]
        for table in await self.service.tables(info.id, round_no):
            if len(table.players) == 1:
                lines.append(f"• bye: {names.get(table.players[0], '?')}")
            elif table.game_pk is None:
                gone = names.get(table.forfeit or 0, "?")
                lines.append(f"• {' vs '.join(names.get(u, '?') for u in table.players)}: not played, "
                             f"{gone} withdrew")
            else:
                lines.append(f"• #{table.game_pk}: {' vs '.join(names.get(u, '?') for u in table.players)}")
        return "\n".join(lines)

    async def picture(self, info: TournamentInfo, lines: list[Line], heading: str,
                      reader: int | None = None) -> list[tuple[str, bytes]]:
        from render.leaderboard import Row

        rows = [Row(line.rank, present.clip(line.name, 40) + (" (withdrawn)" if line.withdrawn else ""), 0, False,
                    line.games, _points(line.tiebreaks[0]) if line.tiebreaks else "", (), line.user_id == reader,
                    shown=_points(line.points)) for line in lines[:24]]
        data = await self.bot.images.draw("leaderboard", "leaderboard", heading, rows, "", ("Points", "Games", "TB"),
                                          limit=8 * 1024 * 1024 - 4096)
        return [("standings.png", data)] if data is not None else []

    # ------------------------------------------------------------------ the loop

    def idle(self) -> float:
        return 10.0

    async def cycle(self) -> float:
        if not self.resumed:
            self.resumed = True
            await self.finish_starts()
        if self.process_start is not None and self.bot.is_ready():  # its servers and their threads known
            began, self.process_start = self.process_start, None
            await self.finish_openings(began)
        for tid in await self.service.due_tournaments(self.bot.now()):
            await self.start_due(tid)
        for tid in await self.service.running_tournaments():
            if await self.service.settle_round(tid, self.bot.now()):
                self.bot.poke()
            while await self.service.advance_tournament(tid) is not None:
                pass
        for tid, round_no in await self.service.unposted_rounds():
            # Sent first, under the round's nonce, then marked posted: a process killed in
            # between (or a second shard at the same time) sends it again under the same nonce,
            # and Discord hands back the first message instead of posting another.
            info = await self.service.tournament(tid)
            if not self.bot.owns(info.guild_id):
                continue
            lines = await self.service.tournament_standings(tid)
            heading = (f"Tournament #{tid} · final standings" if info.status == "finished"
                       else f"Tournament #{tid} · standings after round {round_no}")
            text = standings_text(info, lines, heading)
            if info.status == "running":
                text += "\n\n" + await self.pairings_text(info, info.round)
            try:
                await self.post(info, text, await self.picture(info, lines, heading),
                                once=(nonces.tournament_round(tid, round_no), nonces.STANDINGS))
            except (discord.Forbidden, discord.NotFound):  # the thread is gone: nowhere to post
                log.warning("the standings of round %s of tournament %s cannot be posted", round_no, tid,
                            exc_info=True)
            except discord.HTTPException:
                log.warning("posting the standings of round %s of tournament %s failed; a later pass tries "
                            "again", round_no, tid, exc_info=True)
                continue
            if await self.service.standings_posted(tid, round_no):
                await self.refresh_signup(info)
        for table in await self.service.tables_to_open(self.bot.now()):
            await self.open(table)
        return 2.0  # a game's end does not wake this loop: a round's end is seen within 2 s

    async def start_due(self, tid: int) -> None:
        """A tournament whose start time came starts by itself (as its creator would start
        it); too few players: it says so in its thread and waits for a start by hand."""
        info = await self.service.tournament(tid)
        if not self.bot.owns(info.guild_id):
            return
        try:
            info = await self.service.start_tournament(tid, info.created_by)
        except NotAllowed as exc:
            await self.service.clear_start(tid)
            await self.post(info, f"Tournament #{tid} could not start at its time: {exc}")
            return
        await self.started(info)

    async def started(self, info: TournamentInfo) -> None:
        """The posts of a start: round 1's pairings (under their nonce), then the sign-up
        message closed, in this order: a sign-up message that still has its buttons while its
        tournament runs is a start whose process was killed before it told the thread, which
        the first pass of the next process finishes (:meth:`finish_starts`)."""
        await self.post(info, await self.pairings_text(info, 1), once=(nonces.tournament_round(info.id, 0),
                                                                       nonces.PAIRINGS))
        await self.refresh_signup(info)

    async def finish_starts(self) -> None:
        """Once per process: the starts a killed process left untold (:meth:`started`); one
        message read per running tournament of this shard whose first round is on."""
        for tid in await self.service.running_tournaments():
            info = await self.service.tournament(tid)
            if info.round != 1 or info.thread_id is None or info.message_id is None or not self.bot.owns(info.guild_id):
                continue
            where = self.bot.get_partial_messageable(info.thread_id, guild_id=info.guild_id)
            try:
                signup = await where.fetch_message(info.message_id)
            except discord.HTTPException:
                continue  # gone: nothing to close
            if signup.components:
                try:
                    await self.started(info)
                except discord.HTTPException:
                    log.warning("finishing the start of tournament %s failed", tid, exc_info=True)

    async def open(self, table: Table) -> None:
        """A round's game: its own thread in the tournament's channel, the lobby message and
        the start (each skipped when done already)."""
        try:
            info = await self.service.game(table.game_pk or 0)
            if info.thread_id is None:
                channel_id = info.channel_id
                if channel_id is None:
                    raise LookupError("the tournament names no channel")
                parent = self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)
                if not isinstance(parent, discord.TextChannel):
                    raise LookupError(f"channel {channel_id} is not a text channel")
                name = present.clip(f"T{table.tournament_id} R{table.round} · {info.title} #{info.id}", 100)
                thread = await game_thread(self.bot, parent, name)
                await self.service.set_place(info.id, thread_id=thread.id)
                info = await self.service.game(info.id)
            if info.status == "open":
                # A late player's opponent may claim the game (the round's limit settles the rest).
                await self.store.update_game(info.id, deadline_action="claim")
            if info.thread_id is not None:
                await self.bot.lobby.lobby_and_start(
                    info.id, self.bot.get_partial_messageable(info.thread_id, guild_id=info.guild_id))
            await self.service.table_opened(table.id)
        except Exception:
            log.exception("opening game %s of tournament %s failed; a later pass tries again", table.game_pk,
                          table.tournament_id)


async def setup(bot: AlcazabaBot) -> None:
    await bot.add_cog(Tournaments(bot))
