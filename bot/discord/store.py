"""The Discord front end's own rows (``discord_game``, ``discord_seat``, ``discord_user``).

They hold what only this front end needs (deadline policy, vacations, fallback threads, the
closed-DM notice); moves, seats and notifications stay the game service's. Each call is its
own short transaction on the service's database engine.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.db import WRITE
from bot.models import DiscordGame, DiscordSeat, DiscordUser, utcnow


class Store:
    def __init__(self, db: AsyncEngine) -> None:
        self._sessions = async_sessionmaker(db, expire_on_commit=False, autoflush=False)

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncSession]:
        async with self._sessions() as session:
            await session.connection(execution_options=WRITE)
            try:
                yield session
                await session.commit()
            except BaseException:
                await session.rollback()
                raise

    # ---------------------------------------------------------------- games

    async def game(self, game_pk: int) -> DiscordGame:
        """The game's row (defaults when the game was not made on Discord)."""
        async with self._sessions() as session:
            row = await session.get(DiscordGame, game_pk)
        return row if row is not None else DiscordGame(game_pk=game_pk)

    async def games(self, game_pks: list[int]) -> dict[int, DiscordGame]:
        if not game_pks:
            return {}
        async with self._sessions() as session:
            rows = (await session.execute(
                sa.select(DiscordGame).where(DiscordGame.game_pk.in_(game_pks))  # type: ignore[attr-defined]
            )).scalars()
            found = {r.game_pk: r for r in rows}
        return {pk: found.get(pk) or DiscordGame(game_pk=pk) for pk in game_pks}

    async def update_game(self, game_pk: int, **values: Any) -> None:
        async with self._write() as session:
            row = await session.get(DiscordGame, game_pk)
            if row is None:
                row = DiscordGame(game_pk=game_pk)
                session.add(row)
            for key, value in values.items():
                setattr(row, key, value)

    # ---------------------------------------------------------------- seats

    async def seat(self, game_pk: int, role: str) -> DiscordSeat:
        async with self._sessions() as session:
            row = await session.get(DiscordSeat, (game_pk, role))
        return row if row is not None else DiscordSeat(game_pk=game_pk, role=role)

    async def seats(self, game_pk: int) -> dict[str, DiscordSeat]:
        async with self._sessions() as session:
            rows = (await session.execute(
                sa.select(DiscordSeat).where(DiscordSeat.game_pk == game_pk)  # type: ignore[arg-type]
            )).scalars()
            return {r.role: r for r in rows}

    async def game_of_thread(self, thread_id: int) -> int | None:
        """The game a private fallback thread belongs to."""
        async with self._sessions() as session:
            pk = (await session.execute(
                sa.select(DiscordSeat.game_pk).where(DiscordSeat.thread_id == thread_id).limit(1)  # type: ignore[arg-type]
            )).scalar_one_or_none()
        return pk

    async def thread_owner(self, thread_id: int) -> int | None:
        """The user whose private fallback thread this is (None: not one of ours)."""
        from bot.models import Seat

        async with self._sessions() as session:
            user = (await session.execute(
                sa.select(Seat.user_id)
                .join(DiscordSeat, sa.and_(DiscordSeat.game_pk == Seat.game_pk, DiscordSeat.role == Seat.role))  # type: ignore[arg-type]
                .where(DiscordSeat.thread_id == thread_id).limit(1)
            )).scalar_one_or_none()
        return user

    async def update_seat(self, game_pk: int, role: str, **values: Any) -> None:
        async with self._write() as session:
            row = await session.get(DiscordSeat, (game_pk, role))
            if row is None:
                row = DiscordSeat(game_pk=game_pk, role=role)
                session.add(row)
            for key, value in values.items():
                setattr(row, key, value)

    # ---------------------------------------------------------------- users

    async def user(self, user_id: int) -> DiscordUser:
        async with self._sessions() as session:
            row = await session.get(DiscordUser, user_id)
        return row if row is not None else DiscordUser(user_id=user_id)

    async def dms_closed(self, user_id: int, closed: bool) -> bool:
        """Record whether the user's DMs refuse the bot; True when he was never told why his
        prompts go elsewhere (the caller tells him, once)."""
        async with self._write() as session:
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
