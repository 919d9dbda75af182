"""The Discord front end's own rows (``discord_game``, ``discord_seat``, ``discord_prompt``,
``discord_user``).

They hold what only this front end needs (deadline policy, vacations, fallback threads, the
closed-DM notice, the pictures a seat's private place last got); moves, seats and
notifications stay the game service's. Each call is its own short transaction, taken through
the service (:meth:`GameService.writing`) so that it queues with the moves being written.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import SQLModel, col

from bot.models import (
    DiscordGame,
    DiscordPost,
    DiscordPrompt,
    DiscordSeat,
    DiscordUser,
    Game,
    Seat,
    SeekTicket,
    TournamentGame,
    dumps,
    loads,
    utcnow,
)
from bot.service import GameService

Row = TypeVar("Row", bound=SQLModel)
PROMPTS_KEPT = 8
"""Live prompt messages remembered per seat (the newest)."""
PRUNE_EVERY = timedelta(hours=1)
"""How often a process deletes the ``discord_post`` rows older than they are kept."""


class Store:
    def __init__(self, service: GameService) -> None:
        self._service = service
        self._pruned_at: datetime | None = None

    async def _get(self, model: type[Row], key: Any, default: Row) -> Row:
        """The row with primary key ``key``, or ``default`` (not stored) when there is none."""
        async with self._service.reading() as session:
            row = await session.get(model, key)
        return row if row is not None else default

    async def _update(self, model: type[Row], key: Any, default: Row, values: dict[str, Any]) -> None:
        """Set ``values`` on the row with primary key ``key``, made from ``default`` if new."""
        async with self._service.writing() as session:
            row = await session.get(model, key)
            if row is None:
                row = default
                session.add(row)
            for name, value in values.items():
                setattr(row, name, value)

    # ---------------------------------------------------------------- games

    async def game(self, game_pk: int) -> DiscordGame:
        """The game's row (defaults when the game was not made on Discord)."""
        return await self._get(DiscordGame, game_pk, DiscordGame(game_pk=game_pk))

    async def games(self, game_pks: list[int]) -> dict[int, DiscordGame]:
        if not game_pks:
            return {}
        async with self._service.reading() as session:
            rows = (await session.execute(
                sa.select(DiscordGame).where(col(DiscordGame.game_pk).in_(game_pks))
            )).scalars()
            found = {r.game_pk: r for r in rows}
        return {pk: found.get(pk) or DiscordGame(game_pk=pk) for pk in game_pks}

    async def update_game(self, game_pk: int, **values: Any) -> None:
        await self._update(DiscordGame, game_pk, DiscordGame(game_pk=game_pk), values)

    async def unopened_games(self, created_before: datetime, guild_ids: list[int]) -> list[int]:
        """Games a command opened in a channel of these servers (``/game new``, a rematch),
        made before ``created_before``, that have no thread, never had their lobby message
        posted, or are open: what a process killed in the middle of the command may have
        left (an open game was left unstarted if no seat of it is free, which the caller
        sees: the roles are the engine's). Matched games and a tournament's games are
        opened, and finished, by their own passes."""
        if not guild_ids:
            return []
        lobby = (sa.select(col(DiscordGame.game_pk))
                 .where(col(DiscordGame.lobby_channel_id).is_not(None)).scalar_subquery())
        matched = sa.select(col(SeekTicket.game_pk)).where(col(SeekTicket.game_pk).is_not(None)).scalar_subquery()
        tabled = (sa.select(col(TournamentGame.game_pk))
                  .where(col(TournamentGame.game_pk).is_not(None)).scalar_subquery())
        async with self._service.reading() as session:
            rows = (await session.execute(
                sa.select(col(Game.id)).where(
                    col(Game.status).in_(["open", "running"]), col(Game.channel_id).is_not(None),
                    col(Game.guild_id).in_(guild_ids), col(Game.created_at) < created_before,
                    sa.or_(col(Game.thread_id).is_(None), col(Game.id).not_in(lobby), col(Game.status) == "open"),
                    col(Game.id).not_in(matched), col(Game.id).not_in(tabled))
                .order_by(col(Game.id)))).scalars()
            return [pk for pk in rows if pk is not None]

    # ---------------------------------------------------------------- seats

    async def seat(self, game_pk: int, role: str) -> DiscordSeat:
        return await self._get(DiscordSeat, (game_pk, role), DiscordSeat(game_pk=game_pk, role=role))

    async def seats(self, game_pk: int) -> dict[str, DiscordSeat]:
        async with self._service.reading() as session:
            rows = (await session.execute(
                sa.select(DiscordSeat).where(col(DiscordSeat.game_pk) == game_pk)
            )).scalars()
            return {r.role: r for r in rows}

    async def reserve(self, game_pk: int, holders: dict[str, int]) -> None:
        """Keep each seat ``role`` for user ``holders[role]`` (a rematch's previous players),
        in one transaction so that the lobby never shows part of them."""
        if not holders:
            return
        async with self._service.writing() as session:
            for role, user_id in holders.items():
                row = await session.get(DiscordSeat, (game_pk, role))
                if row is None:
                    row = DiscordSeat(game_pk=game_pk, role=role)
                    session.add(row)
                row.reserved_user_id = user_id

    async def reservations(self, game_pk: int) -> dict[str, int]:
        """{role: user id} of the game's reserved seats (taken or not)."""
        return (await self.reservations_of([game_pk])).get(game_pk, {})

    async def reservations_of(self, game_pks: list[int]) -> dict[int, dict[str, int]]:
        """{game: {role: user id}} of these games' reserved seats (taken or not), in one query."""
        if not game_pks:
            return {}
        async with self._service.reading() as session:
            rows = (await session.execute(
                sa.select(col(DiscordSeat.game_pk), col(DiscordSeat.role), col(DiscordSeat.reserved_user_id))
                .where(col(DiscordSeat.game_pk).in_(game_pks), col(DiscordSeat.reserved_user_id).is_not(None))
            )).all()
        out: dict[int, dict[str, int]] = {}
        for game_pk, role, user in rows:
            if user is not None:
                out.setdefault(game_pk, {})[role] = user
        return out

    async def release(self, game_pk: int, user_id: int) -> list[str]:
        """The seats kept for ``user_id`` become free (he declined); their roles."""
        async with self._service.writing() as session:
            rows = list((await session.execute(
                sa.select(DiscordSeat).where(col(DiscordSeat.game_pk) == game_pk,
                                             col(DiscordSeat.reserved_user_id) == user_id)
            )).scalars())
            for row in rows:
                row.reserved_user_id = None
            return sorted(row.role for row in rows)

    async def game_of_thread(self, thread_id: int) -> int | None:
        """The game a private fallback thread belongs to."""
        async with self._service.reading() as session:
            pk: int | None = (await session.execute(
                sa.select(col(DiscordSeat.game_pk)).where(col(DiscordSeat.thread_id) == thread_id).limit(1)
            )).scalar_one_or_none()
        return pk

    async def table_of(self, game_pk: int) -> tuple[int, int] | None:
        """(tournament id, round) of a game that is a tournament's table; None for any other."""
        async with self._service.reading() as session:
            row = (await session.execute(
                sa.select(col(TournamentGame.tournament_id), col(TournamentGame.round))
                .where(col(TournamentGame.game_pk) == game_pk).limit(1))).first()
        return None if row is None else (int(row[0]), int(row[1]))

    async def matched(self, game_pk: int) -> bool:
        """Whether matchmaking (``/game seek``) made the game."""
        async with self._service.reading() as session:
            found = (await session.execute(
                sa.select(col(SeekTicket.id)).where(col(SeekTicket.game_pk) == game_pk).limit(1))).first()
        return found is not None

    async def thread_owner(self, thread_id: int) -> int | None:
        """The user whose private fallback thread this is (None: not one of ours)."""
        async with self._service.reading() as session:
            user: int | None = (await session.execute(
                sa.select(col(Seat.user_id))
                .join(DiscordSeat, sa.and_(col(DiscordSeat.game_pk) == col(Seat.game_pk),
                                           col(DiscordSeat.role) == col(Seat.role)))
                .where(col(DiscordSeat.thread_id) == thread_id).limit(1)
            )).scalar_one_or_none()
        return user

    async def update_seat(self, game_pk: int, role: str, **values: Any) -> None:
        await self._update(DiscordSeat, (game_pk, role), DiscordSeat(game_pk=game_pk, role=role), values)

    async def pictures_seen(self, game_pk: int, role: str, place: int) -> dict[str, str]:
        """{kind: digest} of the pictures the seat's private place ``place`` (his DM channel or
        fallback thread) got last; {} when they went elsewhere (another holder, DMs closed)."""
        seen = loads((await self.seat(game_pk, role)).pictures) or {}
        digests = seen.get("digests") if seen.get("place") == str(place) else None
        return dict(digests) if isinstance(digests, dict) else {}

    async def saw_pictures(self, game_pk: int, role: str, place: int, digests: dict[str, str]) -> None:
        """Record that ``place`` got these pictures (merged with the kinds it got before)."""
        seen = await self.pictures_seen(game_pk, role, place)
        seen.update(digests)
        await self.update_seat(game_pk, role, pictures=dumps({"place": str(place), "digests": seen}))

    # ---------------------------------------------------------------- live prompts

    async def add_prompt(self, game_pk: int, role: str, channel_id: int, message_id: int, content: str) -> None:
        """Remember a message that holds the seat's live choices (once: a send that Discord
        answered with the message it already had records nothing new)."""
        async with self._service.writing() as session:
            found = (await session.execute(
                sa.select(DiscordPrompt).where(col(DiscordPrompt.message_id) == message_id))).scalar_one_or_none()
            if found is not None:
                found.content = content
                return
            session.add(DiscordPrompt(game_pk=game_pk, role=role, channel_id=channel_id, message_id=message_id,
                                      content=content))
            await session.flush()
            # A player who types his orders leaves each prompt unclicked: keep the newest few
            # (the end of the game edits those); an older one's buttons still answer rightly
            # when clicked (stale, or how the game ended), they just are not edited.
            keep = (sa.select(col(DiscordPrompt.id))
                    .where(col(DiscordPrompt.game_pk) == game_pk, col(DiscordPrompt.role) == role)
                    .order_by(col(DiscordPrompt.id).desc()).limit(PROMPTS_KEPT))
            await session.execute(sa.delete(DiscordPrompt).where(
                col(DiscordPrompt.game_pk) == game_pk, col(DiscordPrompt.role) == role,
                col(DiscordPrompt.id).not_in(keep.scalar_subquery())))

    async def update_prompt(self, message_id: int, content: str) -> None:
        """The prompt was edited in place (a page turned): its text now."""
        async with self._service.writing() as session:
            await session.execute(sa.update(DiscordPrompt).where(col(DiscordPrompt.message_id) == message_id)
                                  .values(content=content))

    async def drop_prompt(self, message_id: int) -> None:
        """The message holds no live choice any more (answered, retired, closed, gone)."""
        async with self._service.writing() as session:
            await session.execute(sa.delete(DiscordPrompt).where(col(DiscordPrompt.message_id) == message_id))

    async def prompts(self, game_pk: int) -> list[DiscordPrompt]:
        """The game's messages that still hold live choices, oldest first."""
        async with self._service.reading() as session:
            return list((await session.execute(
                sa.select(DiscordPrompt).where(col(DiscordPrompt.game_pk) == game_pk).order_by(col(DiscordPrompt.id))
            )).scalars())

    async def live_prompts(self, game_pks: list[int] | None = None) -> list[DiscordPrompt]:
        """The messages that still hold live choices (of these games, or of every game),
        oldest first: what a restart looks over for prompts left live by a crash."""
        query = sa.select(DiscordPrompt).order_by(col(DiscordPrompt.id))
        if game_pks is not None:
            query = query.where(col(DiscordPrompt.game_pk).in_(game_pks))
        async with self._service.reading() as session:
            return list((await session.execute(query)).scalars())

    # ---------------------------------------------------------------- users

    async def user(self, user_id: int) -> DiscordUser:
        return await self._get(DiscordUser, user_id, DiscordUser(user_id=user_id))

    async def dms_closed(self, user_id: int, closed: bool) -> bool:
        """Record whether the user's DMs refuse the bot; True when he was never told why his
        prompts go elsewhere (the caller tells him, once)."""
        async with self._service.writing() as session:
            row = await session.get(DiscordUser, user_id)
            if row is None:
                row = DiscordUser(user_id=user_id)
                session.add(row)
            if not closed:
                row.dms_closed_at = None
                return False
            now: datetime = utcnow()
            if row.dms_closed_at is None:
                row.dms_closed_at = now
            if row.told_at is None:
                row.told_at = now
                return True
            return False

    # ---------------------------------------------------------------- posts under a nonce

    async def tried(self, nonce: str, now: datetime, kept: timedelta) -> datetime | None:
        """When a post under ``nonce`` was first tried, if it was tried before; if not, it is
        recorded as tried ``now`` (one statement: two processes trying it at once record one
        time). Once an hour the rows older than ``kept`` go in the same transaction."""
        values = {"nonce": nonce, "tried_at": now}
        table = DiscordPost.__table__  # type: ignore[attr-defined]
        insert: Any = (postgresql.insert(table) if self._service.db.dialect.name == "postgresql"
                       else sqlite.insert(table))
        async with self._service.writing() as session:
            done = await session.execute(insert.values(**values).on_conflict_do_nothing(index_elements=["nonce"]))
            if int(getattr(done, "rowcount", 0) or 0) == 1:
                if self._pruned_at is None or now - self._pruned_at >= PRUNE_EVERY:
                    self._pruned_at = now
                    await session.execute(sa.delete(DiscordPost).where(col(DiscordPost.tried_at) < now - kept))
                return None
            earlier: datetime = (await session.execute(
                sa.select(col(DiscordPost.tried_at)).where(col(DiscordPost.nonce) == nonce))).scalar_one()
            return earlier

    async def tried_at(self, nonce: str) -> datetime | None:
        """When a post under ``nonce`` was (last) tried, or None if it never was; records nothing."""
        async with self._service.reading() as session:
            when: datetime | None = (await session.execute(
                sa.select(col(DiscordPost.tried_at)).where(col(DiscordPost.nonce) == nonce))).scalar_one_or_none()
            return when

    async def tried_again(self, nonce: str, now: datetime) -> None:
        """A post under ``nonce`` is tried again ``now``, no earlier try of it having reached
        its channel: from now on its nonce covers it again."""
        async with self._service.writing() as session:
            await session.execute(sa.update(DiscordPost).where(col(DiscordPost.nonce) == nonce).values(tried_at=now))
