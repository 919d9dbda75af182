"""Deadlines: the clock of each game's pace, reminders, vacations, and what a deadline does.

Everything lives in the database (``game.deadline_at``/``reminded_at`` and the
``discord_game``/``discord_seat`` rows), and the loop derives what to do from it, so a
restart resumes every clock. The clock of a move starts when the move before it was made
(``game.updated_at``), so time spent while the bot was down still counts. After downtime
each game gets at most one message: a reminder whose deadline has also passed is dropped in
favour of the deadline's own message, and messages carry per-(game, deadline) nonces so a
retried send is not doubled.

At a deadline the game's ``deadline_action`` decides: ``remind`` (tell the late player and
the thread, and start another period), ``autopass`` (take the pass the engine offers, if
it offers one; otherwise remind), ``claim`` (the opponent may end the game with
``/game claim``), ``bot`` (the built-in player takes the late seat for the rest of the game, at
the game's level, and moves at once).

Several processes may share the database (one per group of gateway shards). A game's clock
is then kept by whichever process claims its due work (``GameService.claim_games``, kind
'deadline', with a lease renewed while the messages go out): the process running the game's
server's shard as soon as it is due, any other once it has been due a lease
(``Tuning.claim_lease_seconds``), so a dead process's games are not left waiting. The same
pass takes over built-in players' turns left behind the same way (:meth:`Deadlines.adopt_bots`).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import discord

import engine
from bot.discord import nonces, present
from bot.discord.cogs.base import Worker
from bot.discord.cogs.delivery import send_once
from bot.discord.nonces import Nonces
from bot.discord.table import Outgoing
from bot.models import utcnow
from bot.service import GameInfo, NotAllowed, StaleVersion
from bot.service.claims import BOTS, DEADLINE
from engine.api import RuleError, pass_of, view_actions

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot

log = logging.getLogger("bot.discord.deadlines")

SPREAD_SECONDS = 0.2
"""Pause between two deadline messages of one pass: a long downtime must not burst."""
WAITING_LIMIT = 10_000
"""Games waiting for the built-in player looked at in one pass (those beyond wait a pass)."""


class Deadlines(Worker):
    task_name = "deadlines"
    log = log

    def __init__(self, bot: AlcazabaBot) -> None:
        super().__init__(bot)
        bot.deadlines = self
        self._adopted: dict[int, datetime] = {}
        """Games whose built-in player :meth:`adopt_bots` started, and when: it starts each at
        most once a lease, so a game whose built-in player keeps failing is not retried at
        every pass."""

    async def cycle(self) -> float:
        wait = self.idle()
        next_due = await self.once()
        if next_due is not None:
            wait = max(0.05, min(wait, (next_due - self.bot.now()).total_seconds()))
        return wait

    def idle(self) -> float:
        return self.bot.tuning.deadline_poll_seconds

    # ------------------------------------------------------------------ one pass

    async def once(self) -> datetime | None:
        """Bring every running game's clock up to date (those this process may claim); the
        next moment something is due."""
        later = await self.adopt_bots()
        next_due = None if later is None else self.bot.now() + timedelta(seconds=later)
        games = await self.service.games(status="running", paced=True, limit=None)
        clocked = [g for g in games if present.pace_delta(g.pace) is not None]
        rows = await self.store.games([g.id for g in clocked])
        now = self.bot.now()
        grace = timedelta(seconds=self.bot.tuning.claim_lease_seconds)
        due: list[int] = []
        for info in clocked:
            at = self.due_at(info, rows[info.id].deadline_version)
            if at is None:
                continue
            if not self.bot.owns(info.guild_id):
                at += grace  # the shard's own process goes first while it lives
            if at <= now:
                due.append(info.id)
            else:
                next_due = _earlier(next_due, at)
        if not due:
            return next_due
        claimed = await self.service.claim_games(DEADLINE, self.bot.worker_id, due, self.bot.tuning.claim_lease_seconds)
        if len(claimed) < len(due):
            # Another process is at it; if it dies, its claim runs out within a lease.
            next_due = _earlier(next_due, now + grace)
        for game_pk in due:
            if game_pk not in claimed:
                continue
            try:
                at = await self.bot.holding(DEADLINE, game_pk, self.tick_fresh(game_pk))
            except (NotAllowed, StaleVersion, RuleError) as exc:
                log.info("deadline of game %s: %s", game_pk, exc)
                continue
            except discord.HTTPException as exc:
                log.warning("deadline message of game %s not sent (will retry): %s", game_pk, exc)
                continue
            finally:
                await self.bot.release(DEADLINE, game_pk)
            if at is not None:
                next_due = _earlier(next_due, at)
        return next_due

    async def tick_fresh(self, game_pk: int) -> datetime | None:
        """:meth:`tick` on the game as it is now that this process holds its claim: the list
        the pass started from may be older than another process's handling of it."""
        info = await self.service.game(game_pk)
        if info.status != "running":
            return None
        row = await self.store.game(game_pk)
        return await self.tick(info, row.deadline_version, row.deadline_action)

    def due_at(self, info: GameInfo, deadline_version: int | None) -> datetime | None:
        """When :meth:`tick` next has something to do for the game (None: nothing until
        someone moves): the moment it sets or clears the clock, reminds, or expires. The
        same branches as :meth:`tick`, without doing anything, so that a pass claims only
        the games with work due."""
        delta = present.pace_delta(info.pace)
        assert delta is not None
        if not self.humans_waited_for(info):
            return info.updated_at if info.deadline_at is not None else None
        if deadline_version != info.version or info.deadline_at is None:
            return info.updated_at
        if info.reminded_at is None:
            return self.remind_at(info.deadline_at, delta)
        return info.deadline_at

    async def adopt_bots(self) -> float | None:
        """Start the built-in player in running games where it must move and nobody is moving
        it: a process died holding the turn (its claim ran out), or the turn came while only
        another process could take it. The game's shard's process takes it at once, another
        once the turn has waited a lease. The seconds until a game seen here may need
        looking at again (None: none)."""
        bot = self.bot
        lease = bot.tuning.claim_lease_seconds
        waiting = [pk for pk in await self.service.waiting_for_bots(limit=WAITING_LIMIT) if not bot.moving_bots(pk)]
        if not waiting:
            return None
        now = utcnow()  # the clock the claims and the games' updated_at are written with
        held = await self.service.held_claims(BOTS, waiting, now)
        for pk in [pk for pk, at in self._adopted.items() if at <= now - timedelta(seconds=lease)]:
            del self._adopted[pk]
        later: float | None = None
        for pk in waiting:
            if pk in held:
                at = held[pk]
            else:
                info = await self.service.game(pk)
                at = info.updated_at if bot.owns(info.guild_id) else info.updated_at + timedelta(seconds=lease)
                if pk in self._adopted:  # started here within a lease: it failed, or just ended
                    at = max(at, self._adopted[pk] + timedelta(seconds=lease))
            if at <= now:
                self._adopted[pk] = now
                bot.run_bots(pk)
            else:
                wait = max(0.05, (at - now).total_seconds())
                later = wait if later is None else min(later, wait)
        return later

    def humans_waited_for(self, info: GameInfo) -> list[str]:
        return [r for r in info.active if (s := info.seat(r)) is not None and not s.is_bot and s.user_id is not None]

    async def tick(self, info: GameInfo, deadline_version: int | None, action: str) -> datetime | None:
        delta = present.pace_delta(info.pace)
        assert delta is not None
        now = self.bot.now()
        late = self.humans_waited_for(info)
        if not late:
            if info.deadline_at is not None:
                await self.service.set_schedule(info.id, clear_deadline=True)
            return None
        if deadline_version is not None and deadline_version != info.version and info.deadline_at is not None \
                and await self.only_page_turns(info, deadline_version):
            await self.store.update_game(info.id, deadline_version=info.version)
            deadline_version = info.version
        if deadline_version != info.version or info.deadline_at is None:
            start = info.updated_at
            seats = await self.store.seats(info.id)
            for role in late:
                until = seats[role].vacation_until if role in seats else None
                if until is not None and until > start:
                    start = until
            deadline = start + delta
            await self.service.set_schedule(info.id, deadline_at=deadline, clear_deadline=True)
            await self.store.update_game(info.id, deadline_version=info.version, overdue_role=None)
            return deadline if deadline <= now else min(deadline, self.remind_at(deadline, delta))
        deadline = info.deadline_at
        remind_at = self.remind_at(deadline, delta)
        if now >= deadline:
            await self.expire(info, late, action, delta)
            return None
        if now >= remind_at and info.reminded_at is None:
            for role in late:
                await self.remind(info, role, deadline)
            await self.service.set_schedule(info.id, reminded_at=now)
            return deadline
        return remind_at if info.reminded_at is None else deadline

    async def only_page_turns(self, info: GameInfo, since: int) -> bool:
        """Whether every step after move ``since`` only turned the page of a list of choices
        (a page turn of a log stored before navigation left the games, ``engine.api.is_nav``;
        the service records none now): the same seat is still asked the same thing, so its
        clock runs on (paging back and forth must not buy time)."""
        later = await self.service.moves(info.id, since=since)
        module = engine.get(info.game_id)
        return bool(later) and all(m["kind"] == "step" and module.is_nav(m["action"]) for m in later)

    def remind_at(self, deadline: datetime, delta: timedelta) -> datetime:
        return deadline - delta * self.bot.tuning.reminder_fraction

    # ------------------------------------------------------------------ messages and actions

    async def dm(self, info: GameInfo, role: str, user_id: int, text: str, ids: Nonces) -> None:
        await self.bot.delivery.send_private(info, role, user_id, Outgoing(text), ids=ids)

    async def post(self, info: GameInfo, text: str, ids: Nonces) -> None:
        target = info.thread_id or info.channel_id
        if target is not None:
            await send_once(self.bot.get_partial_messageable(target, guild_id=info.guild_id), Outgoing(text), ids,
                            nonces.LINES)

    def nonce(self, info: GameInfo, due: datetime | None, event: str, role: str | None = None) -> Nonces:
        """The nonces of an event of the deadline ``due``: one set per seat (told by DM, or
        passing in the thread), one for the thread. Per deadline, not per version: the next
        period's notices at the same version are other messages."""
        seat = info.roles.index(role) if role is not None and role in info.roles else None
        assert due is not None, "a deadline event has its deadline"
        return nonces.deadline(info.id, nonces.minute(due), event, seat)

    async def remind(self, info: GameInfo, role: str, deadline: datetime) -> None:
        seat = info.seat(role)
        assert seat is not None and seat.user_id is not None
        text = (f"⏰ Reminder: **{present.game_name(info.title, info.id)}** waits for you ({role}). "
                f"Your time runs out {present.when(deadline)}. Your last prompt has your choices; /status shows "
                "them again.")
        await self.dm(info, role, seat.user_id, text, self.nonce(info, deadline, nonces.REMIND, role))
        await asyncio.sleep(SPREAD_SECONDS)

    async def expire(self, info: GameInfo, late: list[str], action: str, delta: timedelta) -> None:
        now = self.bot.now()
        if action == "bot":
            await self.hand_over(info, late)
            return
        if action == "autopass":
            passed = await self.autopass(info, late)
            if passed:
                return
        for role in late:
            seat = info.seat(role)
            assert seat is not None and seat.user_id is not None
            if action == "claim" and len(info.roles) > 2:
                text = (f"⌛ Your time in **{present.game_name(info.title, info.id)}** ran out. The other players "
                        "may now give your seat to the built-in player; move now to keep it.")
            elif action == "claim":
                text = (f"⌛ Your time in **{present.game_name(info.title, info.id)}** ran out. Your opponent may "
                        "now claim the game; move now to keep it going.")
            else:
                text = (f"⌛ Your time in **{present.game_name(info.title, info.id)}** ran out. The game waits for "
                        "you; please move when you can.")
            await self.dm(info, role, seat.user_id, text, self.nonce(info, info.deadline_at, nonces.EXPIRED, role))
        names = ", ".join(late)
        if action == "claim":
            opponents = {s.user_id for s in info.seats if s.user_id is not None and s.role not in late}
            pings = " ".join(f"<@{u}>" for u in opponents)
            # With three seats or more a claim hands the late seat to the built-in player
            # (GameService.forfeit); with two it ends the game.
            what = "give the seat to the built-in player" if len(info.roles) > 2 else "end the game"
            await self.post(info, f"⌛ {names} let the deadline pass. {pings} you may {what} with /game claim.",
                            self.nonce(info, info.deadline_at, nonces.CLAIMABLE))
            await self.store.update_game(info.id, overdue_role=late[0])
        else:
            await self.post(info, f"⌛ {names} let the deadline pass; the game waits.",
                            self.nonce(info, info.deadline_at, nonces.WAITS))
        # Another period starts, so the late player is reminded again rather than forgotten.
        await self.service.set_schedule(info.id, deadline_at=now + delta, clear_deadline=True)
        await asyncio.sleep(SPREAD_SECONDS)

    async def autopass(self, info: GameInfo, late: list[str]) -> bool:
        """Pass for every late seat offered a pass (``engine.api.pass_of``: the action marked
        ``"pass": true``, the one definition the auto-pass preference uses too)."""
        done = False
        due = info.deadline_at  # the deadline that passed (each pass moves the game on)
        for role in late:
            seat = info.seat(role)
            assert seat is not None and seat.user_id is not None
            gv = await self.service.view(info.id, role, seat.user_id)
            chosen = pass_of(view_actions(gv.view))
            if chosen is None:
                return done
            await self.service.apply(info.id, role, chosen, gv.version, seat.user_id)
            await self.post(info, f"⌛ {role} let the deadline pass and passes.",
                            self.nonce(info, due, nonces.PASSED, role))
            done = True
            info = await self.service.game(info.id)
        self.bot.run_bots(info.id)
        self.bot.poke()
        return done

    async def hand_over(self, info: GameInfo, late: list[str]) -> None:
        """Give every late seat to the built-in player (GameService.hand_over: the thread and
        the late player are told by the outbox), then let it move. The clock stops for those
        seats; it runs again for whoever the game waits for next."""
        for role in late:
            await self.service.hand_over(info.id, role, f"⌛ {role} let the deadline pass")
        await self.service.set_schedule(info.id, clear_deadline=True)
        self.bot.run_bots(info.id)
        self.bot.poke()
        await asyncio.sleep(SPREAD_SECONDS)

    # ------------------------------------------------------------------ vacations

    async def vacation(self, info: GameInfo, role: str, length: timedelta) -> str:
        """Take (or, with 0 days, end) a vacation for one seat; the sentence saying what happened."""
        dg = await self.store.game(info.id)
        seat = await self.store.seat(info.id, role)
        now = self.bot.now()
        allowance = timedelta(days=dg.vacation_days)
        used = timedelta(seconds=seat.vacation_used_s)
        name = present.game_name(info.title, info.id)
        if length <= timedelta(0):
            if seat.vacation_until is None or seat.vacation_until <= now:
                return f"{name} ({role}): you are not on vacation."
            unused = seat.vacation_until - now
            await self.store.update_seat(info.id, role, vacation_until=None,
                                         vacation_used_s=int(max(timedelta(0), used - unused).total_seconds()))
            if info.deadline_at is not None and role in info.active:
                await self.service.set_schedule(info.id, deadline_at=info.deadline_at - unused)
            self.wake.set()
            return f"{name} ({role}): welcome back; your clock runs again."
        if used + length > allowance:
            left = allowance - used
            return (f"{name} ({role}): that is more than your vacation allowance here "
                    f"({dg.vacation_days} days; {left.days} days left).")
        start = max(now, seat.vacation_until or now)
        until = start + length
        await self.store.update_seat(info.id, role, vacation_until=until,
                                     vacation_used_s=int((used + length).total_seconds()))
        if info.deadline_at is not None and role in info.active:
            await self.service.set_schedule(info.id, deadline_at=info.deadline_at + length)
        self.wake.set()
        return f"{name} ({role}): on vacation until {present.when(until)}; your clock is paused."


async def setup(bot: AlcazabaBot) -> None:
    await bot.add_cog(Deadlines(bot))


def _earlier(first: datetime | None, second: datetime) -> datetime:
    return second if first is None or second < first else first
