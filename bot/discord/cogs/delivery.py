"""The outbox worker: turns the service's notification rows into Discord messages.

Rows are written by the service in the same transaction as the move; this worker claims
them after commit, sends, and marks them sent, retrying with backoff when Discord fails.
Every send carries a nonce derived from the row ids with ``enforce_nonce``
(:mod:`bot.discord.nonces`), so a send that reached Discord but whose answer was lost (or
whose worker died before marking the row) is not posted twice: Discord hands back the message
it already made, or, tried again after Discord forgot the nonce, the message is found in the
channel (:mod:`bot.discord.posting`, through which every send under a nonce goes). A send that
comes back as a message with other text was not ours: it is logged and sent again under a
fresh nonce (:func:`send_once`).

A post Discord refuses for good (the thread was deleted, the bot lost access: the error
codes of ``PERMANENT``) is tried ``PERMANENT_TRIES`` times, then given up (recorded on the
row, ``failed_at``), so that it holds back no later post of its thread; when it was a post
to the game's thread, the players are told once, by DM, where the game still reaches them.
Any other failure is retried with backoff, up to ``MAX_TRIES`` times.

When a game ends (finished, resigned, claimed, aborted) every prompt still holding live
choices is closed (its buttons removed, a line saying how the game ended) before the
player's last DM, and the lobby message is kept true as seats are taken and the game
starts and ends.

* ``dm`` rows (``your_turn``, ``finished``, ``aborted``, ``note``) become a DM with the seat's own board, hand,
  prompt and buttons. Every prompt a player gets unasked is one: the next one after his own
  step too (the service writes it with the step), so a crash between the step and the
  prompt only delays it by the lease. A prompt Discord made but the bot never recorded (it
  stopped before the answer came) is found and closed when its row, tried again, asks for
  nothing any more (``Delivery.close_untracked``). When the player's DMs are closed, a
  private thread in the game's channel takes their place, and the player is told once why.
* ``channel`` rows (public log lines, seats taken, start, undo, end) are held a moment and posted
  grouped, one message per burst rather than per step, with the spectator map at the end of
  a phase, after a battle and at the end (with the final reveal). Nothing here reads a
  player's view: thread posts are built from public lines and the spectator view only.

A thread's rows are claimed all together (``claim_outbox(together=...)``) and marked sent
all together (``mark_all_sent``): a group always holds every unsent row of its thread. So
its lines go out in the order of the steps, and when a process dies after posting a group
but before marking it, its successor forms the same group again, plus any later rows,
under the same first row's nonce: Discord hands back the old message and only the lines it
did not hold are posted.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC
from typing import TYPE_CHECKING, Any

import discord

import engine
from bot.discord import nonces, posting, present
from bot.discord.cogs.base import Worker
from bot.discord.ids import seat_of
from bot.discord.nonces import Nonces
from bot.discord.table import DM_FILE_LIMIT, Outgoing
from bot.models import utcnow
from bot.service import GameInfo, OutboxItem, SeatInfo
from bot.service.levels import level_of
from bot.viewkeys import pass_action, phase_key
from engine.text import role_name

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot

log = logging.getLogger("bot.discord.delivery")

BATCH = 50
TURN_NOTE = "⏳ **It is your turn.**"
"""Heads a prompt when the turn came to the seat (not when it goes on after its own step)."""
IMMEDIATE = ("finished", "aborted", "started", "seated")
"""Thread rows posted at once rather than held for more lines."""
PERMANENT = frozenset({10003, 50001, 50013, 50083, 10013})
"""Discord error codes that no retry cures: unknown channel, missing access, missing
permissions, archived thread the bot may not reopen, unknown user."""
PERMANENT_TRIES = 3
"""Tries of a row refused with a ``PERMANENT`` code before it is given up (the first
retries cover a permission being fixed at once)."""
MAX_TRIES = 25
"""Tries of a row failing for any other reason before it is given up (backoff reaches an hour
apart after 10 tries: about half a day)."""
FRESH_TRIES = 3


def backoff(attempts: int, base: float = 5.0) -> float:
    """Seconds before the next try of a row that failed ``attempts`` times before: doubling
    from ``base``, at most an hour."""
    return float(min(3600.0, base * 2 ** min(attempts, 10)))


def refused_for_good(error: BaseException) -> bool:
    """Discord refused with an error no retry cures (the kind of error, ``PERMANENT``)."""
    return isinstance(error, discord.HTTPException) and error.status in (403, 404) and error.code in PERMANENT


def give_up(error: BaseException, attempts: int) -> bool:
    """Whether a row that failed ``attempts`` times before this failure is given up now: the
    rule is the kind of error and the number of tries."""
    tries = attempts + 1
    return tries >= (PERMANENT_TRIES if refused_for_good(error) else MAX_TRIES)


async def send_once(channel: discord.abc.Messageable, out: Outgoing, ids: Nonces, kind: str,
                    **extra: Any) -> discord.Message:
    """Send ``out`` under the nonce ``ids(kind)``. Discord answers a nonce it saw from the bot
    in the last minutes with the message it made then: that is a retry, and right, when that
    message says what ``out`` says. When it says something else the nonce was not ours to
    reuse: log it and send again under a fresh nonce (the same fresh one on every retry).
    (discord.py gives the returned message the channel it was sent to, whatever Discord says,
    so the text is what can be compared; nonces are unique per place anyway, nonces.py.)
    ``extra``: other options of the send (``allowed_mentions``)."""
    expected = out.content or ""
    for attempt in range(FRESH_TRIES):
        nonce = ids(kind if attempt == 0 else nonces.fresh(kind, attempt))
        sent = await posting.post(channel, nonce, lambda m: (m.content or "") == expected, **extra, **out.kwargs())
        if (sent.content or "") == expected:
            return sent
        log.warning("nonce %s gave back message %s with other content; sending again under a fresh nonce",
                    nonce, sent.id)
    raise RuntimeError(f"{FRESH_TRIES} nonces of {ids!r} gave back other messages")


def partial_of(chunk: list[str]) -> posting.Ours:
    """Whether a message holds the first lines of ``chunk``: the chunk as a try made before
    a crash posted it, when its group had fewer rows (:meth:`Delivery.send_lines`)."""
    def ours(message: discord.Message) -> bool:
        lines = message.content.split("\n") if message.content else []
        return bool(lines) and lines == chunk[:len(lines)]

    return ours


class Delivery(Worker):
    task_name = "outbox"
    log = log

    def __init__(self, bot: AlcazabaBot) -> None:
        super().__init__(bot)
        self.held: dict[int, OutboxItem] = {}
        self.swept = False
        """Whether the prompts left live before this start were looked over (first pass)."""
        bot.delivery = self

    # ------------------------------------------------------------------ the loop

    async def cycle(self) -> float:
        await self.once()
        if not self.swept:
            # After the first pass of a start (what waits goes out first): the prompts a
            # crash left live lose their buttons.
            self.swept = True
            try:
                closed = await self.table.retire_stale_prompts()
            except Exception:  # noqa: BLE001 - the outbox must flow whatever happens here
                log.exception("could not close the prompts left live before this start")
            else:
                if closed:
                    log.info("closed %d prompts left live before this start", closed)
        return self.next_wait()

    def idle(self) -> float:
        return self.next_wait()

    def next_wait(self) -> float:
        if not self.held:
            return self.bot.tuning.outbox_poll_seconds
        return max(0.05, min(self.bot.tuning.outbox_poll_seconds, min(
            self.due_in(items) for items in self.groups().values())))

    def groups(self) -> dict[str, list[OutboxItem]]:
        out: dict[str, list[OutboxItem]] = defaultdict(list)
        for item in sorted(self.held.values(), key=lambda i: i.id):
            out[item.recipient].append(item)
        return out

    def due_in(self, items: list[OutboxItem]) -> float:
        """Seconds until a group of thread posts should go (0: now)."""
        if any(i.payload.get("type") in IMMEDIATE for i in items):
            return 0.0
        now = utcnow()
        tune = self.bot.tuning
        quiet = tune.group_seconds - (now - max(i.created_at for i in items)).total_seconds()
        oldest = tune.group_max_seconds - (now - min(i.created_at for i in items)).total_seconds()
        return max(0.0, min(quiet, oldest))

    async def once(self) -> None:
        while True:
            items = await self.service.claim_outbox(self.bot.worker_id, limit=BATCH,
                                                    lease_seconds=self.bot.tuning.outbox_lease_seconds,
                                                    together=("channel",))
            dms: list[OutboxItem] = []
            for item in items:
                if item.kind == "channel":
                    self.held[item.id] = item
                else:
                    dms.append(item)
            await self.deliver_dms(dms)
            if len(items) < BATCH:
                break
        for recipient, group in self.groups().items():
            if self.due_in(group) <= 0:
                await self.deliver_group(recipient, group)

    async def finish(self, item: OutboxItem, error: BaseException | None) -> None:
        if error is None:
            await self.service.mark_sent(item.id, self.bot.worker_id)
            return
        if give_up(error, item.attempts):
            log.error("outbox row %s (%s to %s) is given up after %s tries: %s", item.id, item.kind, item.recipient,
                      item.attempts + 1, error)
            await self.service.mark_given_up(item.id, self.bot.worker_id, f"{type(error).__name__}: {error}")
            if item.kind == "channel" and item.game_pk is not None:
                await self.thread_lost(item.game_pk, int(item.recipient), error)
            return
        retry = backoff(item.attempts, self.bot.tuning.retry_seconds)
        log.warning("delivery of outbox row %s failed (attempt %s, retry in %ss): %s", item.id, item.attempts + 1,
                    retry, error)
        await self.service.mark_failed(item.id, self.bot.worker_id, f"{type(error).__name__}: {error}", retry)

    async def thread_lost(self, game_pk: int, channel_id: int, error: BaseException) -> None:
        """A post to the game's public place was given up: tell its players, once per game, that
        the game goes on and where it reaches them (their DMs, the slash commands)."""
        info = await self.service.game(game_pk)
        if channel_id not in (info.thread_id, info.channel_id):
            return
        name = present.game_name(info.title, info.id)
        text = (f"⚠️ I can no longer post in the thread of **{name}** (Discord refuses: "
                f"{getattr(error, 'text', '') or type(error).__name__}). The game goes on: your prompts still come "
                f"here, and `/status game:{info.id}` and `/log game:{info.id}` show where it stands. A server "
                "manager can restore the thread or my access to it.")
        if await self.service.tell_players(game_pk, text, key=f"lost{channel_id}"):
            self.bot.poke(clock=False)

    # ------------------------------------------------------------------ DMs

    async def deliver_dms(self, items: list[OutboxItem]) -> None:
        # Several "your turn" rows for one seat (bots moved quickly): one prompt, the latest.
        latest: dict[tuple[int | None, str, str], OutboxItem] = {}
        for item in items:
            if item.payload.get("type") == "your_turn":
                latest[(item.game_pk, str(item.payload.get("role")), item.recipient)] = item
        for item in items:
            error: BaseException | None = None
            try:
                kind = item.payload.get("type")
                seat = await self.addressee(item) if kind in ("your_turn", "finished", "aborted", "note") else None
                if kind == "your_turn":
                    key = (item.game_pk, str(item.payload.get("role")), item.recipient)
                    if not (latest[key] is item and seat is not None and await self.deliver_turn(item, *seat)):
                        await self.close_untracked(item)
                elif kind in ("finished", "aborted"):
                    await self.deliver_end(item, seat)
                else:
                    await self.deliver_note(item, seat)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - one bad row must not stop the others
                if not isinstance(exc, discord.HTTPException):
                    log.exception("outbox row %s could not be delivered", item.id)
                error = exc
            await self.finish(item, error)

    async def addressee(self, item: OutboxItem) -> tuple[GameInfo, SeatInfo, int] | None:
        """The game, seat and user a DM row is for; None when no person holds that seat now."""
        if item.game_pk is None:
            return None
        info = await self.service.game(item.game_pk)
        seat = info.seat(str(item.payload.get("role")))
        if seat is None or seat.is_bot or seat.user_id is None:
            return None
        return info, seat, seat.user_id

    async def deliver_turn(self, item: OutboxItem, info: GameInfo, seat: SeatInfo, user_id: int) -> bool:
        """Send the seat's prompt, if the row still asks for one: whether it was sent."""
        if info.status != "running" or seat.role not in info.active:
            return False  # already answered (e.g. with /play before this arrived)
        version = int(item.payload.get("version") or 0)
        moves = await self.service.moves(info.id, since=max(0, version - 1))
        if any(m["seq"] > version and m["role"] == seat.role for m in moves):
            # The seat acted since (after /status, or this row waited out a dead process's
            # lease): a later row carries its prompt now.
            return False
        if seat.prefs.get("autopass") and await self.autopass(info, seat.role, user_id):
            return False
        again = any(m["seq"] == version and m["role"] == seat.role for m in moves)
        await self.send_turn(info.id, seat.role, user_id, ids=nonces.outbox(item.id),
                             note="" if again else TURN_NOTE)
        return True

    async def close_untracked(self, item: OutboxItem) -> None:
        """A "your turn" row that asks for no prompt now, whose prompt an earlier try may have
        posted all the same: the process that tried it was stopped or died after Discord made the
        message but before recording it (:meth:`Table.remember_prompt`), or Discord lost its
        answer and the row waited for a retry. No record lists that message, so neither a newer
        prompt, nor a restart, nor the end of the game would take its buttons away: it is looked
        for where the earlier try sent it and closed here. A row never tried costs one read."""
        if item.game_pk is None:
            return
        tried = await self.store.tried_at(nonces.outbox(item.id)(nonces.PRIVATE))
        if tried is None:
            return
        info = await self.service.game(item.game_pk)
        role = str(item.payload.get("role"))
        if role not in info.roles:
            return
        mine = (info.id, info.roles.index(role))
        recorded = {p.message_id for p in await self.store.prompts(info.id)}
        made_by = tried.replace(tzinfo=UTC) + posting.TRUSTED

        def ours(message: discord.Message) -> bool:
            """A message of this seat's with live choices that no record lists, made by the try."""
            return (message.id not in recorded and message.created_at <= made_by
                    and any(seat_of(cid) == mine for cid in custom_ids(message)))

        places: list[discord.abc.Messageable] = [await self.bot.create_dm(discord.Object(int(item.recipient)))]
        thread_id = (await self.store.seat(info.id, role)).thread_id
        if thread_id is not None:
            places.append(self.bot.get_partial_messageable(thread_id, guild_id=info.guild_id))
        for place in places:
            found = await posting.earlier(place, self.bot, tried, ours)
            if found is None:
                continue
            line = self.table.stale_line(info, role)
            if await self.table.close_prompt(found.channel.id, found.id, found.content or "", line, info.id):
                log.info("closed prompt %s of game %s, which the outbox row %s posted before a restart or a "
                         "lost answer but never recorded", found.id, info.id, item.id)
            return

    async def autopass(self, info: GameInfo, role: str, user_id: int) -> bool:
        """Pass for a player who asked for it, on a prompt whose only answers are a reaction
        or a pass (the view says ``reaction`` and flags its pass ``"pass": true``; the bot adds
        no rule: bot.viewkeys)."""
        gv = await self.service.view(info.id, role, user_id)
        chosen = pass_action(gv.view)
        if chosen is None:
            return False
        await self.service.apply(info.id, role, chosen, gv.version, user_id)
        log.info("auto-passed for %s in game %s at move %s", role, info.id, gv.version)
        self.bot.run_bots(info.id)
        self.bot.poke()
        return True

    async def send_turn(self, game_pk: int, role: str, user_id: int, *, ids: Nonces, note: str = TURN_NOTE) -> None:
        out = await self.table.prompt(game_pk, role, user_id, note=note)
        info = await self.service.game(game_pk)
        await self.send_private(info, role, user_id, out, ids=ids)

    async def deliver_end(self, item: OutboxItem, seat: tuple[GameInfo, SeatInfo, int] | None) -> None:
        """A player's DM at the end of a game (won, lost, resigned, claimed, aborted): first his
        prompts of that game are closed, then he is told how it ended."""
        if item.game_pk is None:
            return
        info = await self.service.game(item.game_pk)
        await self.table.close_prompts(info)
        if seat is None:
            return
        info, held, user_id = seat
        role = held.role
        name = present.game_name(info.title, info.id)
        where = f" The whole story is in <#{info.thread_id}>." if info.thread_id else ""
        if item.payload.get("type") == "aborted":
            text = f"⛔ **{name}**: {present.end_sentence(info.id, 'aborted', info.result)}{where}"
            out = Outgoing(text, seat=(info.id, role))
        else:
            gv = await self.service.view(info.id, role, user_id)
            text = f"🏁 **{name}** is over. {present.result_sentence(item.payload.get('result') or info.result)}{where}"
            out = Outgoing(text, pictures=self.table.prompt_pictures(info.game_id, gv.view), seat=(info.id, role))
        await self.send_private(info, role, user_id, out, ids=nonces.outbox(item.id))

    async def deliver_note(self, item: OutboxItem, seat: tuple[GameInfo, SeatInfo, int] | None) -> None:
        """A DM row with a text of its own (a notice to a game's players, or of a kind this front
        end does not know): its text, where the player's private messages go."""
        text = item.payload.get("text")
        if not text:
            log.info("outbox row %s of type %r has nothing to say to a player", item.id, item.payload.get("type"))
            return
        out = Outgoing(present.clip(str(text), present.MESSAGE_LIMIT))
        if seat is not None and seat[2] == int(item.recipient):
            info, held, user_id = seat
            await self.send_private(info, held.role, user_id, out, ids=nonces.outbox(item.id))
            return
        dm = await self.bot.create_dm(discord.Object(int(item.recipient)))
        await send_once(dm, out, nonces.outbox(item.id), nonces.PRIVATE)

    async def send_private(self, info: GameInfo, role: str, user_id: int, out: Outgoing, *,
                           ids: Nonces) -> discord.Message:
        """A message for one player: by DM, or in his private thread when DMs are closed. Its
        pictures are those the place it lands in has not got yet. A message with choices is
        remembered, so that the end of the game closes it."""
        try:
            dm = await self.bot.create_dm(discord.Object(user_id))
            sent: discord.Message = await self.table.send_to_place(out, dm.id, _sender(dm, ids), limit=DM_FILE_LIMIT)
        except discord.Forbidden as exc:
            if exc.code != 50007:
                raise
        else:
            if (await self.store.user(user_id)).dms_closed_at is not None:
                await self.store.dms_closed(user_id, False)
            await self.table.remember_prompt(out, sent)
            return sent
        tell = await self.store.dms_closed(user_id, True)
        thread = await self.fallback_thread(info, role, user_id)
        if tell:
            await send_once(thread, Outgoing(
                f"<@{user_id}> I could not send you a direct message: your privacy settings refuse DMs from "
                "this server's members and apps. Your private prompts for this game come to this private thread "
                "instead; only you (and the server's moderators) can read it. To get them by DM, turn on "
                "'Direct Messages' in this server's privacy settings."), ids, nonces.NOTICE)
        out = replace(out, content=present.clip(f"<@{user_id}> {out.content}", present.MESSAGE_LIMIT))
        sent = await self.table.send_to_place(out, thread.id, _sender(thread, ids), limit=DM_FILE_LIMIT)
        await self.table.remember_prompt(out, sent)
        return sent

    async def fallback_thread(self, info: GameInfo, role: str, user_id: int) -> discord.PartialMessageable:
        seat = await self.store.seat(info.id, role)
        if seat.thread_id is not None:
            return self.bot.get_partial_messageable(seat.thread_id, guild_id=info.guild_id)
        parent = info.channel_id
        if parent is None:
            raise RuntimeError(f"game {info.id} has no channel for a private thread")
        data = await self.bot.http.start_thread_without_message(
            parent, name=present.clip(f"{present.game_name(info.title, info.id)} · {role} (private)", 100),
            auto_archive_duration=10080, type=discord.ChannelType.private_thread.value, invitable=False)
        thread_id = int(data["id"])
        await self.bot.http.add_user_to_thread(thread_id, user_id)
        await self.store.update_seat(info.id, role, thread_id=thread_id)
        return self.bot.get_partial_messageable(thread_id, guild_id=info.guild_id)

    # ------------------------------------------------------------------ thread posts

    async def deliver_group(self, recipient: str, items: list[OutboxItem]) -> None:
        error: BaseException | None = None
        try:
            await self.post_group(int(recipient), items)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - retried with backoff
            if not isinstance(exc, discord.HTTPException):
                log.exception("thread post to %s failed", recipient)
            error = exc
        for item in items:
            self.held.pop(item.id, None)
        if error is None:
            marked = await self.service.mark_all_sent([i.id for i in items], self.bot.worker_id)
            if marked != len(items):
                log.warning("thread post to %s: %s of %s rows were no longer this worker's claim (another "
                            "process took them over after the lease)", recipient, len(items) - marked, len(items))
            return
        for item in items:
            await self.finish(item, error)

    async def post_group(self, channel_id: int, items: list[OutboxItem]) -> None:
        lines: list[str] = []
        result: dict[str, Any] | None = None
        started = ended = lobby = False
        game_pk = next((i.game_pk for i in items if i.game_pk is not None), None)
        info = await self.service.game(game_pk) if game_pk is not None else None
        for item in items:
            p = item.payload
            kind = p.get("type")
            if kind == "started" and info is not None:
                started = True
                seats = " · ".join(present.seat_line(s.role, s.user_id, s.is_bot, s.display_name, level_of(info, s.role))
                                   for s in info.seats)
                lines.append(f"▶️ **{present.game_name(info.title, info.id)}** begins. {seats}")
            lobby = lobby or kind in ("seated", "started", "finished", "aborted", "handed_over")
            ended = ended or kind in ("finished", "aborted")
            lines.extend(str(t) for t in p.get("lines") or [])
            if kind == "undo" and not p.get("lines"):
                # The service words the undo in its notice (one line per undo); only a row
                # written before it did gets the line here.
                lines.append(f"{role_name(str(p.get('role')))} takes back a step.")
            elif kind == "aborted":
                lines.append(f"⛔ The game was stopped ({p.get('reason') or 'no reason given'}).")
            elif kind == "finished":
                result = p.get("result") or {}
                lines.append("🏁 " + present.result_sentence(result))
                link = await self.table.web_address(info) if info is not None else None
                if link is not None:
                    lines.append(f"🌐 Replay it on the web: <{link}/replay>")
        channel = self.bot.get_partial_messageable(channel_id, guild_id=info.guild_id if info else None)
        ids = nonces.outbox(items[0].id)
        if info is not None and ended:
            # Before the thread hears of the end, no prompt of the game keeps live buttons.
            await self.table.close_prompts(await self.service.game(info.id))
        await self.send_lines(channel, present.bullet(lines), ids)
        if info is not None:
            await self.maybe_map(info, channel, ids, force=started or result is not None)
            if result is not None:
                await self.final_pictures(info, channel, ids)
            if lobby:
                await self.table.refresh_lobby(info.id)

    async def send_lines(self, channel: discord.PartialMessageable, lines: list[str], ids: Nonces) -> None:
        """Post lines in as few messages as fit, each with its own nonce. If Discord hands back
        an older message for a nonce (an earlier attempt got through before a crash, with
        fewer lines), carry on from the first line that message did not hold."""
        limit = present.MESSAGE_LIMIT - 100
        pos, k = 0, 0
        while pos < len(lines):
            chunk: list[str] = []
            size = 0
            while pos + len(chunk) < len(lines):
                line = present.clip(lines[pos + len(chunk)], limit)
                if chunk and size + len(line) + 1 > limit:
                    break
                chunk.append(line)
                size += len(line) + 1
            content = "\n".join(chunk)
            kind = f"{nonces.LINES}{k}"
            sent = await posting.post(channel, ids(kind), partial_of(chunk), content=content)
            k += 1
            if sent.content == content:
                pos += len(chunk)
                continue
            earlier = sent.content.split("\n") if sent.content else []
            same = 0
            while same < min(len(earlier), len(chunk)) and earlier[same] == chunk[same]:
                same += 1
            if same == 0:
                # Not ours: the nonce gave back another message. Post this chunk under a fresh one.
                log.warning("nonce %s gave back message %s with other content; sending again under a fresh nonce",
                            ids(kind), sent.id)
                await send_once(channel, Outgoing(content), ids, nonces.fresh(kind, 1))
                same = len(chunk)
            pos += same

    async def maybe_map(self, info: GameInfo, channel: discord.PartialMessageable, ids: Nonces, *,
                        force: bool) -> None:
        """The spectator's board when a phase ended or a battle began or ended (and its
        battle board while one is under way), unless the thread's last map shows the same
        (a resignation or a claim changes nothing on the board). Drawn from the spectator
        view only."""
        if not self.bot.images.has(info.game_id, "board"):
            return
        gv = await self.service.view(info.id, None)
        key = phase_key(gv.view)
        dg = await self.store.game(info.id)
        if not force and key == dg.map_key:
            return
        pictures = self.table.prompt_pictures(info.game_id, gv.view, ("board", "battle"))
        digest = hashlib.sha256("|".join(sorted(f"{p.kind}:{p.digest}" for p in pictures)).encode()).hexdigest()[:32]
        if digest == dg.map_digest:
            await self.store.update_game(info.id, map_key=key)
            return
        files, _ = await self.table.draw(pictures, limit=DM_FILE_LIMIT)
        if files:
            text = f"🗺️ {present.game_name(info.title, info.id)} · move {gv.version}"
            await send_once(channel, Outgoing(text, files), ids, nonces.MAP)
        await self.store.update_game(info.id, map_key=key, map_digest=digest if files else dg.map_digest)

    async def final_pictures(self, info: GameInfo, channel: discord.PartialMessageable, ids: Nonces) -> None:
        """At the end: the final reveal (every hidden piece shown: the game is over) and the
        replay animation, where the game draws them."""
        gv = await self.service.view(info.id, None)
        if gv.game.result is None and info.status != "finished":
            return  # never reveal before the end
        files: list[tuple[str, bytes]] = []
        if self.bot.images.has(info.game_id, "reveal"):
            sides = [(await self.service.view(info.id, role)).view for role in info.roles]
            reveal = await self.bot.images.draw(info.game_id, "reveal", gv.view, *sides, limit=DM_FILE_LIMIT // 2)
            if reveal is not None:
                files.append(("reveal.png", reveal))
        if self.bot.images.has(info.game_id, "replay"):
            views = await self.replay_views(info)
            anim = await self.bot.images.draw_replay(info.game_id, views, limit=DM_FILE_LIMIT // 2)
            if anim is not None:
                files.append(("replay.gif" if anim[:3] == b"GIF" else "replay.png", anim))
        if files:
            await send_once(channel, Outgoing(f"🎞️ {present.game_name(info.title, info.id)}: the final reveal and "
                                              "the replay", files), ids, nonces.REVEAL)

    async def replay_views(self, info: GameInfo) -> list[dict[str, Any]]:
        """The spectator view after every step, replayed from the game's log (public views
        only; the render module keeps one frame per turn)."""
        exported = await self.service.export(info.id)

        def build() -> list[dict[str, Any]]:
            module = engine.get(info.game_id)
            return [module.view(state, None)
                    for state in engine.replay(module, exported["seed"], exported["options"], exported["moves"])]

        return await asyncio.to_thread(build)


def custom_ids(message: discord.Message) -> list[str]:
    """The custom ids of a message's components (rows and their buttons and menus)."""
    out: list[str] = []
    stack: list[Any] = list(message.components)
    while stack:
        comp = stack.pop()
        stack.extend(getattr(comp, "children", None) or [])
        cid = getattr(comp, "custom_id", None)
        if cid:
            out.append(str(cid))
    return out


def _sender(channel: discord.abc.Messageable, ids: Nonces) -> Callable[[Outgoing], Awaitable[discord.Message]]:
    async def send(out: Outgoing) -> discord.Message:
        return await send_once(channel, out, ids, nonces.PRIVATE)

    return send


async def setup(bot: AlcazabaBot) -> None:
    await bot.add_cog(Delivery(bot))

