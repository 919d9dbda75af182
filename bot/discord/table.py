"""The game table as Discord shows it: prompts for a seat, orders taken from a seat's holder,
and the rules of answering interactions.

Every handler here follows the same order, so that Discord's 3-second limit and "answer
once" rule hold: check the rate, defer at once, then do database and picture work, then
answer through the deferred response (``followup`` / ``edit_original_response``). Errors a
player can cause end as one short ephemeral sentence; anything else is logged with its
traceback and the player reads only that something went wrong.
"""

from __future__ import annotations

import io
import logging
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

import render
from bot.discord import ids, orders, present
from bot.discord.errors import UserError
from bot.discord.lobby_message import LobbyMessage
from bot.discord.prompt_records import ENDED, MOVED_ON, SUPERSEDED, PromptRecords
from bot.discord.views import (
    ActionButton,
    ActionSelect,
    PageButton,
    UndoButton,
)
from bot.service import GameInfo, GameView, NotAllowed, ServiceError, StaleVersion, StepResult
from bot.viewkeys import autopass_hint
from engine.api import RuleError, view_actions

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot

log = logging.getLogger("bot.discord")

DM_FILE_LIMIT = discord.utils.DEFAULT_FILE_SIZE_LIMIT_BYTES
RECENT_LINES = 5
PROMPT_PICTURES = ("board", "hand", "battle")
"""Pictures a player's prompt carries (the final reveal goes to the thread)."""
OOPS = "Something went wrong on our side; it has been logged. Please try again in a moment."


__all__ = ["DM_FILE_LIMIT", "MOVED_ON", "SUPERSEDED", "Outgoing", "RateLimiter", "Table", "UserError", "is_dm"]


SEEN_INTERACTIONS = 4096
"""How many recent interaction ids a process remembers, to handle each once."""


class RateLimiter:
    """At most ``per_window`` actions per user in ``window`` seconds.

    It keeps only the users who acted within the last window (plus, as a backstop, at most
    ``max_users`` of them): users are kept in the order they last acted, so the ones whose
    window has run out are at the front and are dropped as the limiter is used. A server that
    saw a million users holds the few who are active now, not a million deques."""

    def __init__(self, per_window: int, window: float = 10.0, max_users: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_window = per_window
        self.window = window
        self.max_users = max_users
        self.clock = clock
        self._recent: OrderedDict[int, deque[float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._recent)

    def hit(self, user_id: int) -> bool:
        """Count one action of ``user_id``; False (and not counted) when he is over the rate."""
        now = self.clock()
        while self._recent:
            first = next(iter(self._recent.values()))
            if now - first[-1] <= self.window:
                break
            self._recent.popitem(last=False)
        window = self._recent.pop(user_id, None) or deque()
        self._recent[user_id] = window  # now the most recent
        while window and now - window[0] > self.window:
            window.popleft()
        if len(window) >= self.per_window:
            return False
        window.append(now)
        while len(self._recent) > self.max_users:
            self._recent.popitem(last=False)
        return True


@dataclass
class Outgoing:
    """A message to send: text, pictures (name, bytes) and components.

    ``pictures`` are a seat's pictures not drawn yet (``seat`` is (game, role)): where the
    message goes decides which of them it carries (:meth:`Table.send_to_place`), since a
    player's DM need not get again a picture it already holds."""

    content: str
    files: list[tuple[str, bytes]] = field(default_factory=list)
    view: discord.ui.View | None = None
    pictures: list[render.Picture] = field(default_factory=list)
    seat: tuple[int, str] | None = None

    def discord_files(self) -> list[discord.File]:
        return [discord.File(io.BytesIO(data), filename=name) for name, data in self.files]

    def kwargs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"content": self.content}
        if self.files:
            out["files"] = self.discord_files()
        if self.view is not None:
            out["view"] = self.view
        return out


def is_dm(channel: Any) -> bool:
    return isinstance(channel, discord.DMChannel) or getattr(channel, "type", None) == discord.ChannelType.private


class Table(PromptRecords, LobbyMessage):
    """The game table as Discord shows it (this module's docstring); closing old prompts
    (:class:`PromptRecords`) and the lobby message (:class:`LobbyMessage`) are its parts."""

    def __init__(self, bot: AlcazabaBot) -> None:
        self.bot = bot
        self.service = bot.service
        self.store = bot.store
        self.images = bot.images
        self.rate = RateLimiter(bot.tuning.rate_per_10s)
        self._seen: OrderedDict[int, None] = OrderedDict()
        """Recent interaction ids: the gateway may deliver one twice (a replay after a
        resume), and a second delivery must not carry an order out again."""
        self._roles: dict[int, list[str]] = {}

    # ------------------------------------------------------------------ answering

    def check_rate(self, user_id: int) -> None:
        """At most ``rate_per_10s`` orders per user in 10 seconds: a stuck key or a script
        must not flood the database or Discord."""
        if not self.rate.hit(user_id):
            raise UserError("You are going too fast; wait a few seconds and try again.")

    async def admit(self, inter: discord.Interaction) -> bool:
        """Whether to handle this interaction at all (False: the player was told why, or it
        is a second delivery of one being handled, which the first delivery answers)."""
        if inter.id in self._seen:
            log.warning("interaction %s of user %s reached the bot twice; handled once", inter.id, inter.user.id)
            return False
        self._seen[inter.id] = None
        while len(self._seen) > SEEN_INTERACTIONS:
            self._seen.popitem(last=False)
        try:
            self.check_rate(inter.user.id)
        except UserError as exc:
            await self.say(inter, str(exc))
            return False
        return True

    @asynccontextmanager
    async def guard(self, inter: discord.Interaction, *, ephemeral: bool = True,
                    component: bool = False) -> AsyncIterator[None]:
        """Defer, run the body, turn refusals into one ephemeral sentence. (The rate check ran
        before, in :meth:`admit`, so that a refused interaction never reaches a handler.)"""
        if not inter.response.is_done():
            try:
                if component:
                    await inter.response.defer()
                else:
                    await inter.response.defer(ephemeral=ephemeral, thinking=True)
            except discord.HTTPException as exc:
                # Discord refused the acknowledgement (its 3-second window passed on a slow
                # link): the player sees "interaction failed", but his order still stands,
                # so the body runs; answers it cannot give are logged by say().
                log.warning("could not acknowledge interaction %s of user %s (%s); carrying it out anyway",
                            inter.id, inter.user.id, exc)
        try:
            yield
        except Exception as exc:  # noqa: BLE001 - every failure must reach the player as a sentence
            await self.report(inter, exc)

    async def report(self, inter: discord.Interaction, exc: BaseException) -> None:
        if isinstance(exc, app_commands.CommandInvokeError):
            exc = exc.original
        if isinstance(exc, RuleError):
            text = exc.explain()
        elif isinstance(exc, UserError | ServiceError):
            text = str(exc)
        elif isinstance(exc, app_commands.CheckFailure | app_commands.TransformerError):
            text = str(exc) or "That command cannot be used here."
        else:
            log.error("interaction %s by %s failed", getattr(inter.command, "qualified_name", inter.data),
                      inter.user.id, exc_info=exc)
            text = OOPS
        await self.say(inter, present.clip(text, 1900))

    async def say(self, inter: discord.Interaction, text: str, **kwargs: Any) -> None:
        """An ephemeral answer, whether or not the interaction was answered already."""
        try:
            if inter.response.is_done():
                await inter.followup.send(text, ephemeral=True, **kwargs)
            else:
                await inter.response.send_message(text, ephemeral=True, **kwargs)
        except discord.HTTPException:
            log.warning("could not tell user %s: %s", inter.user.id, text, exc_info=True)

    async def on_command_error(self, inter: discord.Interaction, error: app_commands.AppCommandError) -> None:
        await self.report(inter, error)

    async def is_private_place(self, inter: discord.Interaction) -> bool:
        """Where a non-ephemeral answer is read by the player alone: his DM with the bot, or
        the private thread the bot made for him when his DMs were closed."""
        if is_dm(inter.channel):
            return True
        if getattr(inter.channel, "type", None) == discord.ChannelType.private_thread and inter.channel_id:
            return await self.store.thread_owner(inter.channel_id) == inter.user.id
        return False

    async def send_private(self, inter: discord.Interaction, out: Outgoing) -> None:
        """A prompt or picture for the player alone: a plain message in his DM (its buttons
        stay), ephemeral anywhere else (with every picture: an ephemeral answer is gone once
        read)."""
        private = await self.is_private_place(inter)

        async def send(ready: Outgoing) -> Any:
            return await inter.followup.send(ephemeral=not private, wait=True, **ready.kwargs())

        sent = await self.send_to_place(out, inter.channel_id if private else None, send, limit=self.limit_for(inter))
        if private and sent is not None:
            await self.remember_prompt(out, sent)

    async def remember_prompt(self, out: Outgoing, sent: Any) -> None:
        """Keep track of a message with live choices in a player's private place, so that the
        end of the game closes it (an ephemeral answer cannot be edited later: its buttons
        answer with the end of the game when clicked, :meth:`ended`)."""
        if out.seat is None or out.view is None or not out.view.children:
            return
        await self.store.add_prompt(out.seat[0], out.seat[1], int(sent.channel.id), int(sent.id),
                                    str(sent.content or ""))
        # One live prompt per seat: the older ones (unclicked after a typed order, or left
        # live by a crash between a step and the marking of its prompt) lose their buttons.
        await self.retire_prompts(out.seat[0], out.seat[1], keep=int(sent.id), line=SUPERSEDED)

    async def send_to_place(self, out: Outgoing, place: int | None, send: Callable[[Outgoing], Awaitable[Any]],
                            *, limit: int) -> Any:
        """Send ``out`` with ``send``, carrying the pictures of ``out.pictures`` that the
        seat's private place ``place`` (a DM channel or a fallback thread) did not get last
        time, and remember what it got once sent. ``place`` None: every picture."""
        seen: dict[str, str] = {}
        if place is not None and out.seat is not None:
            seen = await self.store.pictures_seen(*out.seat, place)
        files, digests = await self.draw([p for p in out.pictures if seen.get(p.kind) != p.digest],
                                         limit=limit, taken=len(out.files))
        sent = await send(replace(out, files=[*out.files, *files], pictures=[]))
        if place is not None and out.seat is not None and digests:
            await self.store.saw_pictures(*out.seat, place, digests)
        return sent

    @staticmethod
    def limit_for(inter: discord.Interaction | None) -> int:
        if inter is not None and getattr(inter, "filesize_limit", None):
            return int(inter.filesize_limit)
        return DM_FILE_LIMIT

    # ------------------------------------------------------------------ finding games and seats

    async def resolve(self, inter: discord.Interaction, game: int | None, *, running: bool = False) -> GameInfo:
        """The game a command is about: given, or the one of the thread it is typed in, or the
        player's only game."""
        if game is not None:
            info = await self.service.game(game)
            if inter.guild_id is not None and info.guild_id not in (None, inter.guild_id):
                raise UserError(f"Game #{game} is played on another server.")
            return info
        channel_id = inter.channel_id
        if channel_id is not None:
            here = await self.service.games(thread_id=channel_id, limit=1)
            if not here:
                pk = await self.store.game_of_thread(channel_id)
                here = [await self.service.game(pk)] if pk is not None else []
            if here:
                return here[0]
        statuses = ["running"] if running else ["running", "open"]
        mine = await self.service.games(user_id=inter.user.id, status=statuses, limit=25)
        if len(mine) == 1:
            return mine[0]
        if not mine:
            raise UserError("You have no game in play. Start one with /game new, or name one with game:.")
        listed = ", ".join(f"#{g.id} ({g.title})" for g in mine[:10])
        raise UserError(f"Which game? You play {len(mine)}: {listed}. Name it with the game: option.")

    async def my_seat(self, inter: discord.Interaction, game: int | None, *,
                      running: bool = False) -> tuple[GameInfo, str]:
        """The game a command is about (:meth:`resolve`) and the seat the user holds in it."""
        info = await self.resolve(inter, game, running=running)
        return info, self.seat_of(info, inter.user.id)

    @staticmethod
    def seat_of(info: GameInfo, user_id: int, role: str | None = None) -> str:
        """The role the user holds in this game (the one that must act first, if several)."""
        held = info.roles_of(user_id)
        if role is not None:
            if role not in held:
                raise UserError(f"You do not hold the {role} seat of game #{info.id}.")
            return role
        if not held:
            raise UserError(f"You hold no seat in game #{info.id}.")
        for r in held:
            if r in info.active:
                return r
        return held[0]

    # ------------------------------------------------------------------ prompts

    async def prompt(self, game_pk: int, role: str, user_id: int, *, page: int = 0, note: str = "",
                     images: bool = True) -> Outgoing:
        """What a seat sees: header, prompt, recent lines, board and hand, and its choices."""
        gv = await self.service.view(game_pk, role, user_id)
        return self.render_prompt(gv, page=page, note=note, images=images)

    def render_prompt(self, gv: GameView, *, page: int = 0, note: str = "", images: bool = True) -> Outgoing:
        info, v = gv.game, gv.view
        role = gv.role or ""
        acting = info.status == "running" and role in info.active
        lines = [f"**{present.game_name(info.title, info.id)}** · you play **{role}** · move {gv.version}"]
        if note:
            lines.append(note)
        prompt = str(v.get("prompt") or "")
        if prompt:
            lines.append(("➡️ " if acting else "") + prompt)
        hint = autopass_hint(v, "`/prefs autopass:True`") if acting else None
        if hint:
            lines.append(hint)
        if acting and info.deadline_at is not None:
            lines.append(f"⏰ Deadline {present.when(info.deadline_at)}")
        recent = present.log_texts((v.get("log") or [])[-RECENT_LINES:])
        if recent:
            lines.append("\n".join(f"> {present.clip(t, 300)}" for t in recent))
        pictures = self.prompt_pictures(info.game_id, v) if images else []
        hand = v.get("hand")
        if hand is not None and not any(p.kind == "hand" for p in pictures):
            lines.append(f"🂠 Your hand: {present.clip(present.hand_text(hand, v.get('cards')), 900)}")
        if info.status == "finished":
            lines.append("🏁 " + present.result_sentence(info.result))
        actions = list(v.get("actions") or []) if acting else []
        view = self.choices(info, role, gv.version, v, actions, page=page, can_undo=gv.can_undo) if acting else None
        content = "\n".join(lines)
        return Outgoing(present.clip(content, present.MESSAGE_LIMIT), [], view, pictures, (info.id, role))

    def prompt_pictures(self, game_id: str, view: dict[str, Any],
                        kinds: tuple[str, ...] = PROMPT_PICTURES) -> list[render.Picture]:
        """The pictures of ``view`` among ``kinds`` (board, hand, and the battle board while a
        battle is on), not drawn yet."""
        return [p for p in self.images.pictures(game_id, view) if p.kind in kinds]

    async def draw(self, pictures: Sequence[render.Picture], *, limit: int,
                   taken: int = 0) -> tuple[list[tuple[str, bytes]], dict[str, str]]:
        """The pictures drawn as files, each under its share of the attachment limit (``taken``
        files are in the message already), and the digests of those drawn."""
        if not pictures:
            return [], {}
        share = max(1, limit // (len(pictures) + taken) - 4096)
        files: list[tuple[str, bytes]] = []
        digests: dict[str, str] = {}
        for picture in pictures:
            data = await self.images.draw_picture(picture, limit=share)
            if data is not None:
                files.append((f"{picture.kind}.png", data))
                digests[picture.kind] = picture.digest
        return files, digests

    def choices(self, info: GameInfo, role: str, version: int, v: dict[str, Any],
                actions: Sequence[dict[str, Any]], *, page: int = 0, can_undo: bool = False) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        if not actions:
            return view
        ridx = info.roles.index(role)
        dig = ids.digest(v)
        lay = present.layout(actions)
        if lay.buttons:
            for n, (index, action) in enumerate(lay.buttons):
                view.add_item(ActionButton(info.id, version, ridx, index, dig, present.label(action, present.BUTTON_LABEL),
                                           row=min(n // 5, 3)))
        else:
            page = max(0, min(page, len(lay.pages) - 1))
            for chunk_no, menu in enumerate(lay.pages[page]):
                chunk = page * present.SELECTS_PER_PAGE + chunk_no
                view.add_item(ActionSelect(info.id, version, ridx, chunk, dig, menu, row=chunk_no))
            if page > 0:
                view.add_item(PageButton(info.id, version, ridx, page - 1, dig, "◀ Previous", row=4))
            if page < len(lay.pages) - 1:
                view.add_item(PageButton(info.id, version, ridx, page + 1, dig, "Next ▶", row=4))
            for index, action in lay.quick:
                view.add_item(ActionButton(info.id, version, ridx, index, dig,
                                           present.label(action, present.BUTTON_LABEL), row=4))
        if can_undo and len(view.children) < 25 and sum(1 for c in view.children if c.row == 4) < 5:
            view.add_item(UndoButton(info.id, version, ridx, dig, row=4))
        return view

    # ------------------------------------------------------------------ acting

    async def component_act(self, inter: discord.Interaction, game_pk: int, version: int, ridx: int, dig: str,
                            index: int | None) -> None:
        """A click on a choice (button, or ``index`` None: read the select's value)."""
        async with self.guard(inter, component=True):
            if await self.ended(inter, game_pk):
                return
            if index is None:
                data: dict[str, Any] = dict(inter.data or {})
                values = list(data.get("values") or [])
                if len(values) != 1 or not str(values[0]).isdigit():
                    raise UserError("Pick one choice from the menu.")
                index = int(values[0])
            role = await self.role_by_index(game_pk, ridx)
            gv = await self.holder_view(game_pk, role, inter.user.id)
            info = gv.game
            if gv.version != version and ids.digest(gv.view) != dig:
                await self.refuse_stale(inter, gv, version)
                return
            actions = list(gv.view.get("actions") or [])
            if info.status != "running" or role not in info.active or not 0 <= index < len(actions):
                await self.refuse_stale(inter, gv, version)
                return
            action = actions[index]
            await self.take(inter, info, role, action, gv.version, clicked=True)

    async def component_undo(self, inter: discord.Interaction, game_pk: int, version: int, ridx: int,
                             dig: str) -> None:
        async with self.guard(inter, component=True):
            if await self.ended(inter, game_pk):
                return
            role = await self.role_by_index(game_pk, ridx)
            gv = await self.holder_view(game_pk, role, inter.user.id)
            info = gv.game
            if gv.version != version:
                await self.refuse_stale(inter, gv, version)
                return
            await self.undo(inter, info, role, gv.version, clicked=True)

    async def component_page(self, inter: discord.Interaction, game_pk: int, version: int, ridx: int, dig: str,
                             page: int) -> None:
        async with self.guard(inter, component=True):
            if await self.ended(inter, game_pk):
                return
            role = await self.role_by_index(game_pk, ridx)
            gv = await self.holder_view(game_pk, role, inter.user.id)
            if gv.version != version and ids.digest(gv.view) != dig:
                await self.refuse_stale(inter, gv, version)
                return
            actions = list(gv.view.get("actions") or [])
            view = self.choices(gv.game, role, gv.version, gv.view, actions, page=page, can_undo=gv.can_undo)
            await inter.edit_original_response(view=view)

    async def ended(self, inter: discord.Interaction, game_pk: int) -> bool:
        """A click on a choice of a game that is over: it says how the game ended and nothing
        else, and the clicked message loses its buttons (as the end of the game does to every
        prompt it knows of). False when the game goes on."""
        info = await self.service.game(game_pk)
        if info.status not in ENDED:
            return False
        line = present.end_sentence(info.id, info.status, info.result)
        message = inter.message
        if message is not None and not (message.flags.ephemeral if message.flags else False):
            try:
                await inter.edit_original_response(content=self.closed_text(message.content or "", line), view=None)
            except discord.HTTPException:
                log.info("could not close the buttons of message %s", message.id)
            await self.store.drop_prompt(message.id)
        await self.say(inter, line)
        return True


    async def role_by_index(self, game_pk: int, ridx: int) -> str:
        """A button names its seat by index into the game's roles (fixed for a game's life)."""
        roles = self._roles.get(game_pk)
        if roles is None:
            roles = (await self.service.game(game_pk)).roles
            if len(self._roles) > 4096:
                self._roles.clear()
            self._roles[game_pk] = roles
        if not 0 <= ridx < len(roles):
            raise UserError("That button belongs to no seat of this game.")
        return roles[ridx]

    async def holder_view(self, game_pk: int, role: str, user_id: int) -> GameView:
        """The seat's view, for its holder only."""
        try:
            return await self.service.view(game_pk, role, user_id)
        except NotAllowed:
            raise UserError(f"Only the player holding the {role} seat of game #{game_pk} can answer this.") from None

    async def refuse_stale(self, inter: discord.Interaction, gv: GameView, version: int) -> None:
        """The button's moment has passed: say so, retire the old buttons, show what is asked now."""
        if inter.message is not None and await self.is_private_place(inter):
            try:
                await inter.edit_original_response(view=None)
            except discord.HTTPException:
                log.info("could not retire the stale buttons of message %s", inter.message.id)
            await self.store.drop_prompt(inter.message.id)
        note = (f"⌛ That choice was offered at move {version}; the game has moved on to move "
                f"{gv.version}. Here is what you are asked now:")
        if gv.version == version:
            note = "⌛ That choice is not on offer. Here is what you are asked now:"
        if gv.game.status != "running" or (gv.role or "") not in gv.game.active:
            note = (f"⌛ That choice was offered at move {version}; the game is now at move {gv.version} "
                    "and nothing is asked of you.")
        await self.send_private(inter, self.render_prompt(gv, note=note, images=False))

    async def take(self, inter: discord.Interaction, info: GameInfo, role: str, action: dict[str, Any],
                   version: int, *, clicked: bool) -> StepResult | None:
        """Apply one step for the seat and show what follows."""
        try:
            step = await self.service.apply(info.id, role, action, version, inter.user.id)
        except StaleVersion:
            gv = await self.service.view(info.id, role, inter.user.id)
            await self.refuse_stale(inter, gv, version)
            return None
        done = "\n".join([f"✅ {present.label(action, 300)}",
                           *(f"⏩ {present.label(f.action or {}, 300)} (your only choice, taken automatically)"
                             for f in step.forced if f.role == role)])
        await self.after_step(inter, info, role, step, done, clicked=clicked)
        return step

    async def undo(self, inter: discord.Interaction, info: GameInfo, role: str, version: int, *,
                   clicked: bool) -> StepResult | None:
        try:
            step = await self.service.undo(info.id, role, version, inter.user.id)
        except StaleVersion:
            gv = await self.service.view(info.id, role, inter.user.id)
            await self.refuse_stale(inter, gv, version)
            return None
        await self.after_step(inter, info, role, step, "↩️ Your last step was taken back.", clicked=clicked)
        return step

    async def after_step(self, inter: discord.Interaction, info: GameInfo, role: str, step: StepResult,
                         done: str, *, clicked: bool) -> None:
        self.bot.poke(clock=present.pace_delta(info.pace) is not None)
        if any(seat.is_bot for seat in info.seats):
            self.bot.run_bots(info.id)
        if clicked and inter.message is not None:
            # The clicked prompt keeps its picture and text; its buttons go, and it says what
            # was chosen, so the DM reads as a record of the game.
            old = inter.message.content or ""
            try:
                await inter.edit_original_response(content=present.clip(f"{old}\n{done}", present.MESSAGE_LIMIT),
                                                   view=None)
            except discord.HTTPException:
                log.info("could not mark message %s as answered", inter.message.id)
            await self.store.drop_prompt(inter.message.id)
        private_lines = present.log_texts(step.log)
        note = done if not clicked else ""
        if step.finished:
            text = "\n".join(filter(None, [note, *(f"> {t}" for t in private_lines[-RECENT_LINES:]),
                                           "🏁 " + present.result_sentence(step.result)]))
            await self.send_private(inter, Outgoing(present.clip(text, present.MESSAGE_LIMIT)))
            return
        if role in step.active:
            # The next prompt, with its buttons, is the outbox's: the service wrote it with
            # the step, so it comes even if this process dies now. A typed order is answered
            # with what the step did and what is asked now, and where the choices are.
            if not clicked:
                gv = await self.service.view(info.id, role, inter.user.id)
                out = self.render_prompt(gv, note=note, images=False)
                text = f"{out.content}\n📨 Your choices come to {await self.prompt_place(info.id, role, inter.user.id)}."
                await self.send_private(inter, Outgoing(present.clip(text, present.MESSAGE_LIMIT)))
        else:
            waiting = ", ".join(step.active) or "nobody"
            text = "\n".join(filter(None, [note, *(f"> {t}" for t in private_lines[-RECENT_LINES:]),
                                           f"Done for now; waiting for {waiting}. I will write when it is your turn."]))
            await self.send_private(inter, Outgoing(present.clip(text, present.MESSAGE_LIMIT)))

    async def prompt_place(self, game_pk: int, role: str, user_id: int) -> str:
        """Where the seat's prompts go, in words: its DMs, or the private thread that stands in
        for them while the player's DMs are closed."""
        if (await self.store.user(user_id)).dms_closed_at is not None:
            thread_id = (await self.store.seat(game_pk, role)).thread_id
            if thread_id is not None:
                return f"your private thread <#{thread_id}>"
        return "your direct messages"

    # ------------------------------------------------------------------ orders typed with /play

    async def order(self, inter: discord.Interaction, info: GameInfo, role: str, text: str) -> None:
        """``/play``: one action (an autocomplete value ``v<version>:<index>``, an index into
        the seat's view's choices) or an order typed in words, a chain ``a > b > c`` or the
        game's shorthand, which the service checks whole and applies all or nothing
        (``GameService.apply_order``). Nothing here reads more than the seat's own view."""
        gv = await self.service.view(info.id, role, inter.user.id)
        if info.status != "running" or role not in gv.game.active:
            raise NotAllowed(f"Nothing is asked of {role} now in game #{info.id}; {gv.view.get('prompt', '')}".strip())
        picked = orders.from_choice_value(text, gv.version, view_actions(gv.view))
        if picked is not None:
            await self.take(inter, gv.game, role, picked, gv.version, clicked=False)
            return
        try:
            steps = await self.service.apply_order(info.id, role, text, gv.version, inter.user.id)
        except StaleVersion:
            fresh = await self.service.view(info.id, role, inter.user.id)
            await self.refuse_stale(inter, fresh, gv.version)
            return
        # what the whole chain wrote for this seat, answered as one step
        whole = replace(steps[-1], log=[line for s in steps for line in s.log])
        done = " > ".join(present.label(s.action, 120) for s in steps if s.action is not None) or text
        await self.after_step(inter, gv.game, role, whole, f"✅ {present.clip(done, 300)}", clicked=False)

    async def autocomplete_actions(self, info: GameInfo, role: str, typed: str) -> list[app_commands.Choice[str]]:
        """``/play`` suggestions: the choices the seat's own view shows it (every one: a game
        pages nothing)."""
        gv = await self.service.view(info.id, role)
        return orders.suggestions(gv.version, view_actions(gv.view), typed)
