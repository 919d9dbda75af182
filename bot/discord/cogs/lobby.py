"""``/game``: open, join, start, list, resign, abort, substitute, rematch and claim games.

A game lives in a public thread of the channel where it was opened (many games can share a
channel); its lobby message there carries Join buttons. Everything said in the thread is
public: seats, options, pace, results, never a player's hand or hidden pieces.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands

import engine
from bot.discord import nonces, posting, present
from bot.discord.cogs.base import Cog, chosen_game, is_manager
from bot.discord.cogs.web import answer_web
from bot.discord.errors import UserError
from bot.service import GameInfo
from bot.service.levels import DEFAULT_LEVEL, level_of
from engine.api import GameModule

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot
    from bot.models import DiscordGame

log = logging.getLogger("bot.discord")

THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080  # a week: games are slow


async def game_thread(bot: AlcazabaBot, parent: discord.TextChannel, name: str) -> discord.Thread:
    """The public thread ``name`` of ``parent`` for a game a background pass opens (a match, a
    tournament's table). A process killed after Discord made the thread, before its id was
    stored, left it in the channel: it is taken again, not made twice (a restarted bot knows
    the channel's active threads from its guild's data)."""
    me = bot.user.id if bot.user is not None else None
    made = next((t for t in parent.threads if t.name == name and t.owner_id == me), None)
    if made is not None:
        return made
    return await parent.create_thread(name=name, type=discord.ChannelType.public_thread,
                                      auto_archive_duration=THREAD_ARCHIVE_MINUTES)


def _defaults(module: GameModule) -> dict[str, Any]:
    return module.defaults()


def display_name(user: discord.abc.User) -> str:
    return present.clip(getattr(user, "display_name", None) or user.name, 100)


class Lobby(Cog):
    game = app_commands.Group(name="game", description="Open, join and manage games", guild_only=True)

    def __init__(self, bot: AlcazabaBot) -> None:
        super().__init__(bot)
        bot.lobby = self  # the lobby's buttons reach it through the bot (views import no cog)

    # ------------------------------------------------------------------ autocomplete

    async def games_auto(self, inter: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        typed = current.casefold()
        out = []
        for game_id in sorted(engine.GAMES):
            module = engine.get(game_id)
            if typed in game_id.casefold() or typed in module.title.casefold():
                out.append(app_commands.Choice(name=present.clip(module.title, 100), value=game_id))
        return out[:25]

    async def side_auto(self, inter: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        game_id = getattr(inter.namespace, "game", None)
        roles: list[str] = []
        if isinstance(game_id, str) and game_id in engine.GAMES:
            module = engine.get(game_id)
            try:
                roles = list(module.roles(_defaults(module)))
            except Exception:
                roles = []
        elif isinstance(game_id, int):
            try:
                roles = (await self.service.game(game_id)).free_roles
            except Exception:
                roles = []
        names = ["random", *roles]
        return [app_commands.Choice(name=r, value=r) for r in names if current.casefold() in r.casefold()][:25]

    async def options_auto(self, inter: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        game_id = getattr(inter.namespace, "game", None)
        if not isinstance(game_id, str) or game_id not in engine.GAMES:
            return []
        spec = engine.get(game_id).OPTIONS
        head, _, last = current.rpartition(" ")
        out = []
        for name, s in spec.items():
            if not isinstance(s, dict):
                continue
            values: list[Any] = list(s.get("choices") or ([True] if s.get("type") == "bool" else [s.get("default")]))
            for value in values:
                text = f"{name}={present.clip(str(value).lower() if isinstance(value, bool) else str(value), 40)}"
                if last.casefold() in text.casefold():
                    full = f"{head} {text}".strip()
                    if len(full) <= 100:
                        # The name shown carries the option's one-line description (the value is
                        # what the command receives).
                        shown = f"{full} · {s['help']}" if s.get("help") else full
                        out.append(app_commands.Choice(name=present.clip(shown, 100), value=full))
        return out[:25]

    async def my_games_auto(self, inter: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
        return await game_choices(self.bot, inter, current, statuses=("running", "open", "finished"))

    async def open_games_auto(self, inter: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
        games = await self.service.games(status="open", guild_id=inter.guild_id, limit=25)
        return [app_commands.Choice(name=present.clip(f"#{g.id} {g.title} · free: {', '.join(g.free_roles)}", 100),
                                    value=g.id) for g in games if current in f"#{g.id} {g.title}".casefold()][:25]

    # ------------------------------------------------------------------ /game new

    @game.command(name="new", description="Open a new game in this channel (it gets its own thread)")
    @app_commands.describe(
        game="Which game", side="Your side (or random)", opponent="Invite someone (or the bot itself)",
        pace="Time allowed per move", at_deadline="What happens when a player's time runs out",
        options="Game options as key=value, separated by spaces", seed="Random seed (to replay a setup)",
        level="How well the built-in player plays (as opponent, and in a seat handed to it)")
    @app_commands.choices(
        level=[app_commands.Choice(name=f"{k}: {v}", value=k) for k, v in present.LEVELS.items()],
        pace=[app_commands.Choice(name=f"{k} per move" if v else "live (no clock)", value=k)
              for k, v in present.PACES.items()],
        at_deadline=[app_commands.Choice(name=v, value=k) for k, v in present.DEADLINE_ACTIONS.items()])
    @app_commands.autocomplete(game=games_auto, side=side_auto, options=options_auto)
    async def new(self, inter: discord.Interaction, game: str, side: str | None = None,
                  opponent: discord.User | None = None, pace: str = "72h", at_deadline: str = "remind",
                  options: app_commands.Range[str, 0, 400] | None = None,
                  seed: app_commands.Range[int, 0, 2**62] | None = None, level: str = "easy") -> None:
        async with self.table.guard(inter):
            if inter.guild_id is None or inter.channel is None:
                raise UserError("Open games in a server channel.")
            parent = inter.channel
            if isinstance(parent, discord.Thread):
                parent = parent.parent  # type: ignore[assignment]
            if not isinstance(parent, discord.TextChannel):
                raise UserError("Open games in a text channel: the game gets a thread there.")
            module, opts = chosen_game(game, options)
            roles = list(module.roles({**_defaults(module), **opts}))
            if side not in (None, "", "random") and side not in roles:
                raise UserError(f"There is no side {present.clip(side or '', 40)!r} in {module.title}: "
                                f"choose {', '.join(roles)} or random.")
            if opponent is not None and opponent.bot and opponent.id != getattr(self.bot.user, "id", None):
                raise UserError("Only people (or this bot, for the built-in player) can be invited.")
            info = await self.service.create_game(game, opts, seed, created_by=inter.user.id,
                                                  guild_id=inter.guild_id, channel_id=parent.id, pace=pace)
            role = side if side in roles else secrets.choice(roles)
            await self.service.join(info.id, inter.user.id, display_name(inter.user), role)
            vs_bot = opponent is not None and opponent.id == getattr(self.bot.user, "id", None)
            await self.store.update_game(info.id, deadline_action=at_deadline,
                                         invited_user_id=None if opponent is None or vs_bot else opponent.id)
            if vs_bot:
                for other in roles:
                    if other != role:
                        await self.service.join(info.id, None, "built-in player", other, is_bot=True)
            if level != DEFAULT_LEVEL:
                # The game's level, on the seats taken so far; a seat taken later inherits it
                # (a game with none recorded plays at the default level).
                taken = await self.service.game(info.id)
                await self.service.set_levels(info.id, {s.role: level for s in taken.seats})
            thread_id = await self.open_game(info.id, parent)
            await inter.followup.send(f"Game #{info.id} is open in <#{thread_id}>; you play **{role}**.",
                                      ephemeral=True)

    async def announcement(self, info: GameInfo, thread_id: int) -> str:
        """The post in the game's channel that points to its thread, from what is stored (the
        creator, the invitation, the game a rematch rematches and the seats it keeps), so that
        the pass that finishes an opening says what the command would have."""
        name = present.game_name(info.title, info.id)
        kept = await self.store.reservations(info.id)
        if kept or info.rematch_of is not None:
            invited = list(dict.fromkeys(kept[r] for r in info.roles if r in kept))
            of = f" of game #{info.rematch_of}" if info.rematch_of is not None else ""
            invite = f" {' '.join(f'<@{u}>' for u in invited)}, your rematch is waiting." if invited else ""
            return f"🔁 <@{info.created_by}> asks for a rematch{of}: **{name}** in <#{thread_id}>.{invite}"
        dg = await self.store.game(info.id)
        invite = f" <@{dg.invited_user_id}>, you are invited." if dg.invited_user_id else ""
        return f"🎲 <@{info.created_by}> opened **{name}** ({present.pace_text(info.pace)}) in <#{thread_id}>.{invite}"

    async def open_game(self, game_pk: int, parent: discord.TextChannel) -> int:
        """The rest of opening a game a command made (its seats are taken): its thread, the
        post that points to it in the channel, the lobby message, the start when no seat is
        free; the thread's id. The thread is stored after the post, each step is skipped
        when done, Discord hands back a thread or post a killed process made (by its name, by
        the post's nonce): run again after a crash (:meth:`finish_openings`), it makes each
        thing once."""
        info = await self.service.game(game_pk)
        thread_id = info.thread_id
        if thread_id is None:
            thread = await game_thread(self.bot, parent, present.clip(present.game_name(info.title, info.id), 100))
            text = await self.announcement(info, thread.id)
            # Any message under this nonce is this game's announcement: one handed back after a
            # crash is right whatever it says; found in the history, it is the one that points
            # to this thread.
            await posting.post(parent, nonces.game(game_pk)(nonces.OPENED),
                               lambda m: f"<#{thread.id}>" in (m.content or ""), content=text)
            await self.service.set_place(game_pk, thread_id=thread.id)
            thread_id = thread.id
        await self.lobby_and_start(game_pk, self.bot.get_partial_messageable(thread_id, guild_id=info.guild_id))
        return thread_id

    async def lobby_and_start(self, game_pk: int, thread: discord.abc.Messageable) -> None:
        """The last steps of opening a game in its thread (a command's, a match's, a
        tournament's table), each skipped when done: the lobby message, then the start when
        no seat is free (against the built-in player, a match, a table). In that order so
        that the lobby is the thread's first message: the start's "begins" line is an outbox
        row the delivery posts at once, and it would race a lobby posted after the start. A
        lobby posted for a game about to start already says it is under way (it then has no
        button to click in the moment before the start), so that it is true from the start;
        a process killed between the two leaves the start to the opening's next pass."""
        info = await self.service.game(game_pk)
        starts = info.status == "open" and not info.free_roles
        if (await self.store.game(game_pk)).lobby_channel_id is None:
            await self.post_lobby(game_pk, thread, starting=starts)
        if starts:
            try:
                await self.begin(game_pk, fill_with_bots=False)
            except Exception:
                # Not started (or started by someone else): the lobby says what is.
                await self.table.refresh_lobby(game_pk)
                raise

    @staticmethod
    def opening_left(info: GameInfo, dg: DiscordGame) -> bool:
        """Whether a step of opening the game is still to be done: its thread, its lobby
        message (a lobby deleted since keeps its channel), or the start of a game no seat of
        which is free (its lobby posted, the start not made)."""
        return (info.thread_id is None or dg.lobby_channel_id is None
                or (info.status == "open" and not info.free_roles))

    async def finish_openings(self, created_before: datetime) -> None:
        """Once per process: the games of this process's servers that a killed process left
        without their thread or lobby message, or unstarted with every seat taken (made
        before this process started, so that no command of it is still opening them), are
        opened now."""
        owned = [g.id for g in self.bot.guilds if self.bot.owns(g.id)]
        for game_pk in await self.store.unopened_games(created_before, owned):
            try:
                info = await self.service.game(game_pk)
                if not self.opening_left(info, await self.store.game(game_pk)):
                    continue
                channel_id = info.channel_id or 0
                parent = self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)
                if not isinstance(parent, discord.TextChannel):
                    raise LookupError(f"channel {channel_id} is not a text channel")
                await self.open_game(game_pk, parent)
                log.info("finished opening game %s, left unopened by a stopped process", game_pk)
            except Exception:
                log.exception("could not finish opening game %s", game_pk)

    async def post_lobby(self, game_pk: int, thread: discord.abc.Messageable, *, starting: bool = False) -> None:
        """Post the lobby message and remember it, so that the outbox keeps it true (seats,
        start, end). It goes under the game's lobby nonce: a process killed after Discord
        posted it, before its id was stored, posts it again, and Discord hands back the first
        (any message under that nonce is this game's lobby, whatever it says by now), or,
        Discord having forgotten the nonce, the first is found under the game's heading
        (bot/discord/posting.py). If the game moved on while it was being posted (the
        built-in player's game can end that fast), or the message handed back says something
        older, it is brought up to date. ``starting``: the game starts right after (no seat
        is free, :meth:`lobby_and_start`); the lobby says it is under way already, and while
        the game is still open it is left so (the start's outbox row refreshes it)."""
        info = await self.service.game(game_pk)
        shown = replace(info, status="running") if starting and info.status == "open" else info
        body = await self.table.lobby(shown)
        kwargs: dict[str, Any] = {"content": body["content"]}
        if body["view"].children:
            kwargs["view"] = body["view"]
        message = await posting.post(thread, nonces.game(game_pk)(nonces.LOBBY), posting.same_heading(body["content"]),
                                     **kwargs)
        await self.store.update_game(game_pk, lobby_channel_id=message.channel.id, lobby_message_id=message.id)
        now = await self.service.game(game_pk)
        if shown is not info and now.status == "open":
            return
        if (now.status, len(now.seats)) != (shown.status, len(shown.seats)) or message.content != body["content"]:
            await self.table.refresh_lobby(game_pk)

    # ------------------------------------------------------------------ joining and starting

    async def seat_user(self, inter: discord.Interaction, game_pk: int, role: str | None) -> None:
        info = await self.service.game(game_pk)
        if info.status in ("finished", "aborted"):
            raise UserError(present.end_sentence(info.id, info.status, info.result))
        if info.status != "open":
            raise UserError(f"Game #{game_pk} is {info.status}; seats are taken before the start.")
        if inter.guild_id is not None and info.guild_id not in (None, inter.guild_id):
            raise UserError(f"Game #{game_pk} is played on another server.")
        dg = await self.store.game(game_pk)
        free = info.free_roles
        if not free:
            raise UserError(f"Every seat of game #{game_pk} is taken.")
        me = inter.user.id
        # A seat kept for a previous player of a rematch is his alone until he declines it or
        # the game starts; an invitation of /game new holds one of the other free seats.
        kept = await self.table.reserved_seats(info)
        rest = [r for r in free if r not in kept]
        invited = dg.invited_user_id
        invitation_holds = bool(invited and me not in (invited, info.created_by)
                                and not info.roles_of(invited) and len(rest) <= 1)
        if role in (None, "", "random"):
            mine = [r for r in free if kept.get(r) == me]
            candidates = mine or ([] if invitation_holds else rest)
            if not candidates:
                if rest:
                    raise UserError(f"The free seat of game #{game_pk} is reserved for <@{invited}>.")
                raise UserError(f"Every free seat of game #{game_pk} is reserved: "
                                + ", ".join(f"{r} for <@{u}>" for r, u in kept.items()) + ".")
            role = mine[0] if mine else secrets.choice(candidates)
        elif role not in info.roles:
            raise UserError(f"There is no side {present.clip(role or '', 40)!r}; free: {', '.join(free)}.")
        elif kept.get(role) not in (None, me):
            raise UserError(f"The {role} seat of game #{game_pk} is reserved for <@{kept[role]}> until he takes "
                            "or declines it, or the game starts.")
        elif role in rest and invitation_holds:
            raise UserError(f"The free seat of game #{game_pk} is reserved for <@{invited}>.")
        # The public notice and the lobby's update are the outbox's (written with the seat).
        seat = await self.service.join(game_pk, inter.user.id, display_name(inter.user), role, announce=True)
        info = await self.service.game(game_pk)
        self.bot.poke(clock=False)
        await inter.followup.send(f"You play **{seat.role}** in game #{game_pk}.", ephemeral=True)
        if not info.free_roles:
            await self.begin(game_pk, fill_with_bots=False)

    async def begin(self, game_pk: int, *, fill_with_bots: bool) -> GameInfo:
        info = await self.service.start(game_pk, fill_with_bots=fill_with_bots)
        self.bot.poke()
        self.bot.run_bots(game_pk)
        return info

    async def join_button(self, inter: discord.Interaction, game_pk: int, ridx: int) -> None:
        async with self.table.guard(inter, ephemeral=True):
            info = await self.service.game(game_pk)
            role = info.roles[ridx] if 0 <= ridx < len(info.roles) else None
            if role is not None and info.seat(role) is not None:
                raise UserError(f"The {role} seat is taken.")
            await self.seat_user(inter, game_pk, role)

    async def decline_button(self, inter: discord.Interaction, game_pk: int) -> None:
        """A player a rematch keeps a seat for does not want it: the seat becomes free for anyone."""
        async with self.table.guard(inter, ephemeral=True):
            info = await self.service.game(game_pk)
            if info.status in ("finished", "aborted"):
                raise UserError(present.end_sentence(info.id, info.status, info.result))
            if info.status != "open":
                raise UserError(f"Game #{game_pk} has started; its seats are settled.")
            if inter.user.id not in (await self.table.reserved_seats(info)).values():
                raise UserError(f"No free seat of game #{game_pk} is reserved for you.")
            released = await self.store.release(game_pk, inter.user.id)
            freed = [r for r in info.roles if r in released and info.seat(r) is None]
            await self.table.refresh_lobby(game_pk)
            seats = f"the {', '.join(freed)} seat" + ("s are" if len(freed) > 1 else " is")
            if info.thread_id is not None:
                await self.bot.get_partial_messageable(info.thread_id, guild_id=info.guild_id).send(
                    f"{display_name(inter.user)} declines the rematch: {seats} free for anyone.",
                    allowed_mentions=discord.AllowedMentions.none())
            await inter.followup.send(f"You declined your seat in game #{game_pk}: {seats} free for anyone now.",
                                      ephemeral=True)

    async def start_button(self, inter: discord.Interaction, game_pk: int) -> None:
        async with self.table.guard(inter, ephemeral=True):
            await self.start_game(inter, game_pk, bots=True)

    async def start_game(self, inter: discord.Interaction, game_pk: int, bots: bool) -> None:
        info = await self.service.game(game_pk)
        if inter.user.id != info.created_by and not info.roles_of(inter.user.id) and not is_manager(inter):
            raise UserError("Only the game's creator, a seated player or a server manager can start it.")
        if info.status in ("finished", "aborted"):
            raise UserError(present.end_sentence(info.id, info.status, info.result))
        if info.status != "open":
            raise UserError(f"Game #{game_pk} is {info.status}.")
        if info.free_roles and not bots:
            raise UserError(f"Game #{game_pk} still needs a player for: {', '.join(info.free_roles)}. "
                            "Use bots:True to let the built-in player take those seats.")
        await self.begin(game_pk, fill_with_bots=bots)
        await inter.followup.send(f"Game #{game_pk} has started.", ephemeral=True)

    @game.command(name="join", description="Take a free seat in an open game")
    @app_commands.describe(game="The game (number)", side="Which side (or random)")
    @app_commands.autocomplete(side=side_auto)
    @app_commands.autocomplete(game=open_games_auto)
    async def join(self, inter: discord.Interaction, game: int, side: str | None = None) -> None:
        async with self.table.guard(inter):
            await self.seat_user(inter, game, side)

    @game.command(name="start", description="Start an open game")
    @app_commands.describe(game="The game (number)", bots="Let the built-in player take the empty seats")
    @app_commands.autocomplete(game=my_games_auto)
    async def start(self, inter: discord.Interaction, game: int | None = None, bots: bool = False) -> None:
        async with self.table.guard(inter):
            info = await self.table.resolve(inter, game)
            await self.start_game(inter, info.id, bots)

    # ------------------------------------------------------------------ listing

    @game.command(name="list", description="Your games, and the open games of this server")
    async def list_games(self, inter: discord.Interaction) -> None:
        async with self.table.guard(inter):
            mine = await self.service.games(user_id=inter.user.id, status=["open", "running"], limit=20)
            open_here = await self.service.games(status="open", guild_id=inter.guild_id, limit=15)
            lines = ["**Your games**" if mine else "You play no game at the moment."]
            for g in mine:
                turn = ""
                if g.status == "running":
                    mine_active = [r for r in g.roles_of(inter.user.id) if r in g.active]
                    turn = " · **your turn**" if mine_active else f" · waiting for {', '.join(g.active) or '—'}"
                where = f" · <#{g.thread_id}>" if g.thread_id else ""
                lines.append(f"#{g.id} {g.title} ({g.status}){turn}{where}")
            others = [g for g in open_here if g.id not in {m.id for m in mine}]
            if others:
                lines.append("**Open games here**")
                kept = await self.store.reservations_of([g.id for g in others])
                for g in others:
                    where = f" · <#{g.thread_id}>" if g.thread_id else ""
                    # A seat a rematch keeps for someone is not free for the reader.
                    free = [f"{r} (reserved)" if r in kept.get(g.id, {}) else r for r in g.free_roles]
                    lines.append(f"#{g.id} {g.title} · free: {', '.join(free)}{where}")
            await inter.followup.send(present.clip("\n".join(lines), present.MESSAGE_LIMIT), ephemeral=True)

    # ------------------------------------------------------------------ ending games

    @game.command(name="resign", description="Give up a game (or hand your seat to someone)")
    @app_commands.describe(game="The game (number)",
                           substitute="Who takes your seat; without one, with 3 or more seats the built-in "
                                      "player does, with 2 the other side wins")
    @app_commands.autocomplete(game=my_games_auto)
    async def resign(self, inter: discord.Interaction, game: int | None = None,
                     substitute: discord.User | None = None) -> None:
        async with self.table.guard(inter):
            info, role = await self.table.my_seat(inter, game, running=True)
            if substitute is not None:
                if substitute.bot:
                    raise UserError("A seat goes to a person; without a substitute, the built-in player takes a "
                                    "seat given up in a game of three or more.")
                # The service writes the public notice and, if the seat must act now, his prompt.
                await self.service.substitute(info.id, role, substitute.id, display_name(substitute))
                self.bot.poke()
                await inter.followup.send(f"You left game #{info.id}; {substitute.mention} now holds the {role} "
                                          "seat.", ephemeral=True)
                return
            await self.service.resign(info.id, role, inter.user.id)
            self.bot.poke()
            self.bot.run_bots(info.id)
            await inter.followup.send(f"You resigned game #{info.id} ({role}).", ephemeral=True)

    @game.command(name="abort", description="Stop a game without a winner (creator before start, managers any time)")
    @app_commands.autocomplete(game=my_games_auto)
    async def abort(self, inter: discord.Interaction, game: int | None = None) -> None:
        async with self.table.guard(inter):
            info = await self.table.resolve(inter, game)
            manager = is_manager(inter) and info.guild_id == inter.guild_id
            if not manager and not (info.created_by == inter.user.id and info.status == "open"):
                raise UserError("Only the creator (before the start) or a server manager can abort a game.")
            await self.service.abort(info.id, reason=f"aborted by {display_name(inter.user)}")
            self.bot.poke()
            await inter.followup.send(f"Game #{info.id} is aborted.", ephemeral=True)

    @game.command(name="substitute", description="Hand a seat to another member (server managers)")
    @app_commands.describe(game="The game (number)", side="The seat", member="Who takes it")
    @app_commands.autocomplete(game=my_games_auto)
    async def substitute(self, inter: discord.Interaction, game: int, side: str, member: discord.User) -> None:
        async with self.table.guard(inter):
            info = await self.table.resolve(inter, game)
            if not is_manager(inter) or info.guild_id != inter.guild_id:
                raise UserError("Only a manager of this server can hand a seat to someone else.")
            if member.bot:
                raise UserError("A seat goes to a person.")
            if side not in info.roles:
                raise UserError(f"There is no side {present.clip(side, 40)!r}; the sides are {', '.join(info.roles)}.")
            await self.service.substitute(info.id, side, member.id, display_name(member))
            self.bot.poke()  # the thread notice and, if it is his turn, his prompt are outbox rows
            await inter.followup.send(f"{member.mention} now holds the {side} seat of game #{info.id}.",
                                      ephemeral=True)

    @game.command(name="rematch", description="A new game with the same players, sides swapped")
    @app_commands.autocomplete(game=my_games_auto)
    async def rematch(self, inter: discord.Interaction, game: int | None = None) -> None:
        async with self.table.guard(inter):
            old = await self.table.resolve(inter, game)
            if old.status not in ("finished", "aborted"):
                raise UserError(f"Game #{old.id} is not over yet.")
            held = old.roles_of(inter.user.id)
            if not held:
                raise UserError(f"You did not play in game #{old.id}.")
            if old.channel_id is None:
                raise UserError("That game was not played in a channel.")
            channel = self.bot.get_channel(old.channel_id) or await self.bot.fetch_channel(old.channel_id)
            if not isinstance(channel, discord.TextChannel):
                raise UserError("The channel of that game is gone.")
            dg = await self.store.game(old.id)
            info = await self.service.create_game(old.game_id, old.options, None, created_by=inter.user.id,
                                                  guild_id=old.guild_id, channel_id=old.channel_id, pace=old.pace,
                                                  rematch_of=old.id)
            # Everyone moves one seat on (two seats: the sides swap). The asker is seated at once,
            # the built-in player keeps its seats, and each other player's next seat is kept
            # for him until he takes or declines it, or the game starts without him.
            roles = info.roles
            kept: dict[str, int] = {}
            levels: dict[str, str] = {}
            for n, role in enumerate(old.roles):
                seat = old.seat(role)
                if seat is None:
                    continue
                new_role = roles[(n + 1) % len(roles)]
                if seat.is_bot:
                    await self.service.join(info.id, None, "built-in player", new_role, is_bot=True)
                elif seat.user_id == inter.user.id:
                    await self.service.join(info.id, inter.user.id, display_name(inter.user), new_role)
                elif seat.user_id is not None:
                    kept[new_role] = seat.user_id
                    continue
                levels[new_role] = level_of(old, role)
            if any(level != DEFAULT_LEVEL for level in levels.values()):
                # The old game's level (each built-in seat's own) goes with the seats, before
                # the built-in player may have to move.
                await self.service.set_levels(info.id, levels)
            await self.store.reserve(info.id, kept)
            await self.store.update_game(info.id, deadline_action=dg.deadline_action)
            thread_id = await self.open_game(info.id, channel)
            await inter.followup.send(f"Rematch: game #{info.id} in <#{thread_id}>.", ephemeral=True)

    @game.command(name="claim", description="Claim a game (or, with 3+ seats, the seat) of a player past his deadline")
    @app_commands.autocomplete(game=my_games_auto)
    async def claim(self, inter: discord.Interaction, game: int | None = None) -> None:
        async with self.table.guard(inter):
            info = await self.table.resolve(inter, game, running=True)
            dg = await self.store.game(info.id)
            late = dg.overdue_role
            if dg.deadline_action != "claim" or late is None or late not in info.active:
                raise UserError(f"Nobody in game #{info.id} is past a deadline that lets the game be claimed.")
            held = [r for r in info.roles_of(inter.user.id) if r != late]
            if not held:
                raise UserError("Only an opponent of the late player can claim the game.")
            await self.service.forfeit(info.id, late, reason=f"{late} ran out of time")
            self.bot.poke()
            if len(info.roles) > 2:
                self.bot.run_bots(info.id)  # the built-in player now holds the late seat
                await inter.followup.send(f"{late} ran out of time in game #{info.id}: the built-in player takes "
                                          "the seat.", ephemeral=True)
                return
            await inter.followup.send(f"You claimed game #{info.id}: {late} ran out of time.", ephemeral=True)

    @game.command(name="web", description="Your own view of a game on the web: a private link (or close yours)")
    @app_commands.describe(game="The game (number)", revoke="True: close every web link you were given instead")
    @app_commands.autocomplete(game=my_games_auto)
    async def web(self, inter: discord.Interaction, game: int | None = None, revoke: bool = False) -> None:
        async with self.table.guard(inter):
            await answer_web(self.bot, inter, game, revoke)


async def game_choices(bot: AlcazabaBot, inter: discord.Interaction, current: str,
                       statuses: tuple[str, ...] = ("running",)) -> list[app_commands.Choice[int]]:
    games = await bot.service.games(user_id=inter.user.id, status=list(statuses), limit=25)
    typed = current.casefold().lstrip("#")
    out = []
    for g in games:
        mine = [r for r in g.roles_of(inter.user.id) if r in g.active]
        tag = " · your turn" if mine and g.status == "running" else f" · {g.status}"
        name = f"#{g.id} {g.title}{tag}"
        if typed in name.casefold():
            out.append(app_commands.Choice(name=present.clip(name, 100), value=g.id))
    return out[:25]


async def setup(bot: AlcazabaBot) -> None:
    await bot.add_cog(Lobby(bot))

