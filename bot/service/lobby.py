"""Commands that make, seat, start and end games, and list them."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from bot.models import Game, GameState, Outbox, Seat, WebGame, dumps, loads, new_public_id, utcnow
from bot.service import ratings
from bot.service.core import (
    _SEED_LIMIT,
    ServiceCore,
    _module,
    rules_version,
)
from bot.service.transactions import MOVES_CHANNEL
from bot.service.types import (
    GameInfo,
    NotAllowed,
    SeatInfo,
    ServiceError,
)
from engine.api import clone, visible_log


class LobbyCommands(ServiceCore):
    """Games and seats: from ``create_game`` to the end of a game by abort, resignation or
    forfeit, and the substitution of a player."""

    async def _wake_pages(self, session: AsyncSession) -> None:
        """PostgreSQL: NOTIFY the web pages' channel with this transaction's commit (the server
        sends it only if the transaction commits), as a step's commit does: a resignation, an
        abort, a new seat holder or a new deadline changes no version, but what an open page
        shows (issue 30; ``bot.web.live``). SQLite pages poll the games' change stamps instead."""
        if self.db.dialect.name == "postgresql":
            await session.execute(sa.text(f"NOTIFY {MOVES_CHANNEL}"))

    async def create_game(
        self,
        game_id: str,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        *,
        created_by: int | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        thread_id: int | None = None,
        pace: str | None = None,
        rematch_of: int | None = None,
    ) -> GameInfo:
        """A new game in status 'open' with its state set up (version 0) and no seats.

        ``options`` are checked against the game's ``OPTIONS`` (unknown names refused, defaults
        filled in); ``seed`` None draws one. ``rematch_of``: the finished game it is a rematch
        of, stored with the game so that whatever opens it later (after a crash too) says so.
        Raises ServiceError for an unknown game.
        """
        module = _module(game_id)
        opts = self._options(module, options or {})
        if seed is None:
            seed = secrets.randbelow(_SEED_LIMIT)
        if not -_SEED_LIMIT <= seed < _SEED_LIMIT:
            raise ServiceError("The seed must fit in 64 bits.")
        state = module.setup(seed, clone(opts))
        text = dumps(state)
        async with self._write() as session:
            game = Game(game_id=game_id, seed=seed, options=dumps(opts), status="open", version=0,
                        active=dumps(list(module.active(state))), created_by=created_by, guild_id=guild_id,
                        channel_id=channel_id, thread_id=thread_id, pace=pace, rematch_of=rematch_of,
                        rules_version=rules_version(module), schema_revision=await self._schema_revision(session))
            session.add(game)
            await session.flush()
            assert game.id is not None
            session.add(GameState(game_pk=game.id, version=0, state=text))
            session.add(WebGame(game_pk=game.id, public_id=new_public_id()))  # its web address (bot.web)
            info = self._info(game, [])
        self._remember(info.id, 0, state, 0)
        return info

    async def join(
        self,
        game_pk: int,
        user_id: int | None,
        display_name: str,
        role: str | None = None,
        *,
        is_bot: bool = False,
        announce: bool = False,
    ) -> SeatInfo:
        """Take a seat in an open game: ``role`` or, if None, the first free one.

        ``user_id`` None with ``is_bot`` False is a terminal seat; ``is_bot`` gives the seat
        to the built-in player. A user may hold several roles (solo testing). ``announce``
        writes a 'seated' notification for the game's public place in the same transaction.
        """
        async with self._write() as session:
            game = await self._game_row(session, game_pk, lock=True)
            self._require_status(game, "open")
            roles = _module(game.game_id).roles(loads(game.options))
            seats = await self._seats(session, game_pk)
            if role is None:
                free = [r for r in roles if r not in seats]
                if not free:
                    raise NotAllowed(f"Every seat of game {game_pk} is taken.")
                role = free[0]
            elif role not in roles:
                raise NotAllowed(f"There is no role {role!r} in this game; the roles are {', '.join(roles)}.")
            elif role in seats:
                holder = seats[role].display_name or "someone"
                raise NotAllowed(f"The {role} seat is already taken by {holder}.")
            seat = Seat(game_pk=game_pk, role=role, user_id=user_id, display_name=display_name[:100],
                        is_bot=is_bot)
            session.add(seat)
            game.updated_at = utcnow()
            target = self._target(game)
            if announce and target is not None:
                await session.flush()
                payload = {"type": "seated", "game": game_pk, "version": game.version, "role": role,
                           "lines": [f"{seat.display_name or 'The built-in player'} takes the {role} seat."]}
                session.add(Outbox(game_pk=game_pk, kind="channel", recipient=str(target), payload=dumps(payload),
                                   dedupe_key=f"g{game_pk}:seat{seat.id}:{role}:joined"))
        return SeatInfo(role, user_id, seat.display_name, is_bot, {})

    async def leave(self, game_pk: int, role: str, user_id: int | None = None) -> None:
        """Give a seat back before the game starts."""
        async with self._write() as session:
            game = await self._game_row(session, game_pk, lock=True)
            self._require_status(game, "open")
            seat = (await self._seats(session, game_pk)).get(role)
            if seat is None:
                raise NotAllowed(f"Nobody holds the {role} seat.")
            if not seat.is_bot and seat.user_id != user_id:
                raise NotAllowed(f"The {role} seat is not yours.")
            await session.delete(seat)
            game.updated_at = utcnow()

    async def set_prefs(self, game_pk: int, role: str, prefs: dict[str, Any], user_id: int | None = None) -> None:
        """Replace a seat's preferences (e.g. auto-pass choices), a JSON object."""
        async with self._write() as session:
            seat = (await self._seats(session, game_pk)).get(role)
            if seat is None:
                raise NotAllowed(f"Nobody holds the {role} seat.")
            if seat.user_id != user_id:
                raise NotAllowed(f"The {role} seat is not yours.")
            seat.prefs = dumps(prefs)

    async def set_place(self, game_pk: int, *, guild_id: int | None = None, channel_id: int | None = None,
                        thread_id: int | None = None) -> None:
        """Where the game's public posts go (e.g. the thread made after /game new). None keeps."""
        async with self._write() as session:
            game = await self._game_row(session, game_pk, lock=True)
            if guild_id is not None:
                game.guild_id = guild_id
            if channel_id is not None:
                game.channel_id = channel_id
            if thread_id is not None:
                game.thread_id = thread_id
            game.updated_at = utcnow()

    async def set_schedule(self, game_pk: int, *, pace: str | None = None, deadline_at: datetime | None = None,
                           reminded_at: datetime | None = None, clear_deadline: bool = False) -> None:
        """Pace and deadline columns, for the scheduler. None keeps a value; ``clear_deadline``
        empties deadline and reminder. A new pace or deadline is what an open web page shows
        (the deadline is in its change stamp): the commit wakes the pages; a reminder alone
        changes nothing they show."""
        async with self._write() as session:
            game = await self._game_row(session, game_pk, lock=True)
            shown = (game.pace, game.deadline_at)
            if pace is not None:
                game.pace = pace
            if clear_deadline:
                game.deadline_at = None
                game.reminded_at = None
            if deadline_at is not None:
                game.deadline_at = deadline_at
            if reminded_at is not None:
                game.reminded_at = reminded_at
            if (game.pace, game.deadline_at) != shown:
                await self._wake_pages(session)

    async def start(self, game_pk: int, *, fill_with_bots: bool = False) -> GameInfo:
        """Open -> running once every role is seated (``fill_with_bots``: the built-in player
        takes the empty seats). Tells the active players it is their turn."""
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            game = loaded.game
            self._require_status(game, "open")
            roles = loaded.module.roles(loads(game.options))
            empty = [r for r in roles if r not in loaded.seats]
            if empty and not fill_with_bots:
                raise NotAllowed(f"Game {game_pk} still needs a player for: {', '.join(empty)}.")
            for role in empty:
                seat = Seat(game_pk=game_pk, role=role, user_id=None, display_name="built-in player", is_bot=True)
                session.add(seat)
                loaded.seats[role] = seat
            game.status = "running"
            game.updated_at = utcnow()
            public = [str(e.get("text", "")) for e in visible_log(loaded.state.get("log") or [], None)]
            active = list(loaded.module.active(loaded.state))
            self._notify(session, loaded, game.version, public, active, None, {"type": "started"})
            await session.flush()
            info = self._info(game, loaded.seats.values())
        if await self.take_forced(game_pk):  # a game that opens with a forced step (its prompt is then skipped)
            info = await self.game(game_pk)
        return info

    async def abort(self, game_pk: int, reason: str = "abandoned") -> GameInfo:
        """Stop a game that will not be finished (no winner). The log stays."""
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            self._require_status(loaded.game, "open", "running")
            loaded.game.status = "aborted"
            loaded.game.result = dumps({"winner": None, "reason": reason, "score": {}})
            loaded.game.active = "[]"
            loaded.game.updated_at = utcnow()
            await self._wake_pages(session)
            self._notify(session, loaded, loaded.game.version, [], [], None,
                         {"type": "aborted", "reason": reason})
            # Every player is told by DM, as after a resignation or a claim: the front end
            # then also closes the prompts that were waiting for him.
            for seat in self._people(loaded):
                payload = {"type": "aborted", "game": game_pk, "role": seat.role, "version": loaded.game.version,
                           "reason": reason}
                session.add(Outbox(game_pk=game_pk, kind="dm", recipient=str(seat.user_id), payload=dumps(payload),
                                   dedupe_key=f"g{game_pk}:aborted:{seat.role}"))
            return self._info(loaded.game, loaded.seats.values())

    async def resign(self, game_pk: int, role: str, user_id: int | None = None) -> GameInfo:
        """A player gives up. In a two-role game the other role wins, a solo game ends unwon;
        with more roles the built-in player takes the seat, the game goes on and the other
        players are told by a note of their own."""
        return await self._give_up(game_pk, role, user_id, reason=f"{role} resigned",
                                   event=f"{role} resigns", check_holder=True)

    async def forfeit(self, game_pk: int, role: str, reason: str) -> GameInfo:
        """A seat loses without its holder asking (a deadline claimed by the opponent): the
        same outcome as a resignation, but the result says why, and no holder check applies
        since the late player is not the one acting."""
        return await self._give_up(game_pk, role, None, reason=reason, event=reason, check_holder=False)

    async def _give_up(self, game_pk: int, role: str, user_id: int | None, *, reason: str, event: str,
                       check_holder: bool) -> GameInfo:
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            self._require_status(loaded.game, "running")
            roles = loaded.module.roles(loads(loaded.game.options))
            if role not in roles:
                raise NotAllowed(f"There is no role {role!r} in this game; the roles are {', '.join(roles)}.")
            seat = self._require_holder(loaded, role, user_id) if check_holder else loaded.seats.get(role)
            game = loaded.game
            game.updated_at = utcnow()
            await self._wake_pages(session)
            if len(roles) <= 2:
                # Two seats: the other wins. One seat (a solo game): the game ends unwon.
                winner = next((r for r in roles if r != role), None)
                result: dict[str, Any] = {"winner": winner, "reason": reason, "score": {}}
                if winner is None:
                    result["winners"] = []  # said outright: nobody won (bot.service.outcome)
                game.status = "finished"
                game.result = dumps(result)
                game.active = "[]"
                await self._rate(session, loaded, result)
                self._notify(session, loaded, game.version, [f"{event}."], [], result,
                             {"type": "resigned", "role": role, "reason": reason})
            else:
                if seat is not None:
                    ratings.mark_departed(seat)
                    seat.is_bot = True
                    seat.user_id = None
                    seat.display_name = "built-in player"
                self._notify(session, loaded, game.version, [f"{event}; the built-in player takes over."],
                             [], None, {"type": "resigned", "role": role, "reason": reason})
                # The other players are told where they read their prompts, not only in the thread.
                text = (f"{event} in game #{game_pk}; the built-in player takes the {role} seat and the "
                        "game goes on.")
                session.add_all(
                    Outbox(game_pk=game_pk, kind="dm", recipient=str(other.user_id),
                           payload=dumps({"type": "note", "game": game_pk, "role": other.role, "text": text}),
                           dedupe_key=f"g{game_pk}:v{game.version}:gaveup:{role}:to:{other.role}")
                    for other in self._people(loaded) if other.role != role)
            return self._info(game, loaded.seats.values())

    async def substitute(self, game_pk: int, role: str, user_id: int, display_name: str) -> GameInfo:
        """Hand a seat to another person (a server manager replacing a player who left).

        The game's course is untouched; only who may act for ``role`` changes, so the move log
        records the new holder's user id on the moves he makes from now on. The public notice
        and, when the seat must act now, the new holder's prompt are outbox rows of this
        transaction, like every other notification: a crash right after cannot lose them.
        """
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            game = loaded.game
            self._require_status(game, "open", "running")
            roles = loaded.module.roles(loads(game.options))
            if role not in roles:
                raise NotAllowed(f"There is no role {role!r} in this game; the roles are {', '.join(roles)}.")
            seat = loaded.seats.get(role)
            if seat is not None and seat.user_id == user_id and not seat.is_bot:
                raise NotAllowed(f"{seat.display_name or 'That player'} already holds the {role} seat.")
            if seat is None:
                seat = Seat(game_pk=game_pk, role=role, user_id=user_id, display_name=display_name[:100],
                            is_bot=False)
                session.add(seat)
                loaded.seats[role] = seat
            else:
                seat.user_id = user_id
                seat.display_name = display_name[:100]
                seat.is_bot = False
            game.updated_at = utcnow()
            await self._wake_pages(session)
            key = f"g{game_pk}:v{game.version}:seat:{role}:u{user_id}"
            target = self._target(game)
            if target is not None:
                payload = {"type": "log", "game": game_pk, "version": game.version, "role": role,
                           "lines": [f"{seat.display_name} takes over the {role} seat."]}
                session.add(Outbox(game_pk=game_pk, kind="channel", recipient=str(target), payload=dumps(payload),
                                   dedupe_key=f"{key}:channel"))
            if game.status == "running" and role in loaded.module.active(loaded.state):
                payload = {"type": "your_turn", "game": game_pk, "role": role, "version": game.version}
                session.add(Outbox(game_pk=game_pk, kind="dm", recipient=str(user_id), payload=dumps(payload),
                                   dedupe_key=f"{key}:turn"))
            await session.flush()
            return self._info(game, loaded.seats.values())


    async def game(self, game_pk: int) -> GameInfo:
        async with self._read() as session:
            game = await self._game_row(session, game_pk)
            return self._info(game, (await self._seats(session, game_pk)).values())

    async def games(
        self,
        *,
        status: str | Sequence[str] | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        thread_id: int | None = None,
        user_id: int | None = None,
        paced: bool | None = None,
        limit: int | None = 50,
    ) -> list[GameInfo]:
        """Games matching every filter given, most recently changed first.

        ``paced`` True keeps only games with a pace (a clock), which is what the deadline
        scheduler walks; ``limit`` None returns them all."""
        query = sa.select(Game)
        if status is not None:
            statuses = [status] if isinstance(status, str) else list(status)
            query = query.where(col(Game.status).in_(statuses))
        if guild_id is not None:
            query = query.where(col(Game.guild_id) == guild_id)
        if channel_id is not None:
            query = query.where(col(Game.channel_id) == channel_id)
        if thread_id is not None:
            query = query.where(col(Game.thread_id) == thread_id)
        if user_id is not None:
            query = query.where(col(Game.id).in_(sa.select(col(Seat.game_pk)).where(col(Seat.user_id) == user_id)))
        if paced is not None:
            query = query.where(col(Game.pace).is_not(None) if paced else col(Game.pace).is_(None))
        query = query.order_by(col(Game.updated_at).desc(), col(Game.id).desc())
        if limit is not None:
            query = query.limit(limit)
        async with self._read() as session:
            rows = list((await session.execute(query)).scalars())
            if not rows:
                return []
            seats = (await session.execute(
                sa.select(Seat).where(col(Seat.game_pk).in_([g.id for g in rows]))
            )).scalars()
            by_game: dict[int, list[Seat]] = {}
            for seat in seats:
                by_game.setdefault(seat.game_pk, []).append(seat)
            return [self._info(g, by_game.get(g.id or 0, [])) for g in rows]

