"""Claims on a game's background work (its due deadline, its built-in player's turn), with a
lease, so that several processes sharing one database do that work once and keep doing it
when one of them dies.

The shape is the outbox's (:meth:`OutboxCommands.claim_outbox`): a row per piece of work,
taken with ``SELECT ... FOR UPDATE SKIP LOCKED`` and a conditional UPDATE in one write
transaction, held until a lease runs out. A worker that dies leaves its claims to expire;
one that lives renews them while its work lasts (a search that thinks for seconds) and
releases them when done. On SQLite (one writer at a time, no row locks) the same statements
run without the locking clause and the write transaction itself serialises the claimers.

A claim saves work and guarantees that someone does it; it is not what keeps a game
correct. A move is still applied only at the version it was decided from (StaleVersion, or a
dropped decision, otherwise), and deadline messages carry per-(game, deadline) nonces, so two
workers that both believe they hold a claim cannot double a move.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col

from bot.models import CLAIM_KINDS, Game, GameClaim, utcnow
from bot.service.core import ServiceCore
from bot.service.outbox import _rowcount
from bot.service.types import ServiceError

_CLAIM: sa.Table = GameClaim.__table__  # type: ignore[attr-defined]
DEADLINE, BOTS = CLAIM_KINDS
"""The kinds of claim: a game's due deadline handling, a game's built-in player's turn."""


@dataclass(frozen=True)
class Claim:
    """A claim row as operators and tests read it (``claimed_by`` None: released)."""

    game_pk: int
    kind: str
    claimed_by: str | None
    claimed_at: datetime | None
    expires_at: datetime | None


def _check_kind(kind: str) -> str:
    if kind not in CLAIM_KINDS:
        raise ServiceError(f"There is no claim kind {kind!r}; the kinds are {', '.join(CLAIM_KINDS)}.")
    return kind


def _free(worker: str, now: datetime) -> sa.ColumnElement[bool]:
    """Whether a claim row may be taken by ``worker``: nobody holds it, its lease ran out, or
    ``worker`` holds it already (taking it again renews it)."""
    return sa.or_(col(GameClaim.claimed_by).is_(None), col(GameClaim.expires_at) < now,
                  col(GameClaim.claimed_by) == worker)


class ClaimCommands(ServiceCore):
    """Claiming, renewing and releasing a game's background work."""

    async def claim_games(self, kind: str, worker: str, game_pks: Iterable[int], lease_seconds: float,
                          now: datetime | None = None) -> set[int]:
        """Claim ``kind`` work of each of ``game_pks`` for ``worker`` until ``lease_seconds``
        from now; the games claimed. A game is left out when another worker holds its claim
        and the lease has not run out, or is claiming it at this moment (its row is locked:
        skipped, not waited for). ``worker`` already holding a claim gets it renewed.

        ``now`` is for tests of leases; it defaults to the clock."""
        _check_kind(kind)
        wanted = sorted(set(game_pks))
        if not wanted:
            return set()
        now = now or utcnow()
        until = now + timedelta(seconds=lease_seconds)
        postgres = self.db.dialect.name == "postgresql"
        claimed: set[int] = set()
        async with self._write() as session:
            existing = set((await session.execute(
                sa.select(col(GameClaim.game_pk))
                .where(col(GameClaim.kind) == kind, col(GameClaim.game_pk).in_(wanted)))).scalars())
            missing = [pk for pk in wanted if pk not in existing]
            if missing:
                # The row is made once, free, and then claimed like any other. Two workers
                # making it at once: one insert wins, the other does nothing.
                rows = sa.select(col(Game.id), sa.literal(kind)).where(col(Game.id).in_(missing))
                insert: Any = (postgresql.insert(_CLAIM) if postgres else sqlite.insert(_CLAIM))
                await session.execute(insert.from_select(["game_pk", "kind"], rows)
                                      .on_conflict_do_nothing(index_elements=["game_pk", "kind"]))
            free = _free(worker, now)
            query = (
                sa.select(col(GameClaim.game_pk))
                .where(col(GameClaim.kind) == kind, col(GameClaim.game_pk).in_(wanted), free)
                .order_by(col(GameClaim.game_pk))
                .with_for_update(skip_locked=True)
            )
            for pk in list((await session.execute(query)).scalars()):
                done = await session.execute(
                    sa.update(GameClaim)
                    .where(col(GameClaim.game_pk) == pk, col(GameClaim.kind) == kind, free)
                    .values(claimed_by=worker, claimed_at=now, expires_at=until))
                if _rowcount(done) == 1:
                    claimed.add(pk)
        return claimed

    async def claim_game(self, kind: str, worker: str, game_pk: int, lease_seconds: float,
                         now: datetime | None = None) -> bool:
        """:meth:`claim_games` for one game: whether ``worker`` holds its claim now."""
        return game_pk in await self.claim_games(kind, worker, [game_pk], lease_seconds, now)

    async def renew_claim(self, kind: str, worker: str, game_pk: int, lease_seconds: float,
                          now: datetime | None = None) -> bool:
        """Extend ``worker``'s claim to ``lease_seconds`` from now, as long work goes on; False
        if the claim is no longer its own (it ran out and another worker took it)."""
        _check_kind(kind)
        now = now or utcnow()
        async with self._write() as session:
            done = await session.execute(
                sa.update(GameClaim)
                .where(col(GameClaim.game_pk) == game_pk, col(GameClaim.kind) == kind,
                       col(GameClaim.claimed_by) == worker)
                .values(expires_at=now + timedelta(seconds=lease_seconds)))
            return _rowcount(done) == 1

    async def release_claim(self, kind: str, worker: str, game_pk: int) -> bool:
        """Give the claim up (the work is done): another worker may take it at once. False if
        it was not ``worker``'s any more."""
        _check_kind(kind)
        async with self._write() as session:
            done = await session.execute(
                sa.update(GameClaim)
                .where(col(GameClaim.game_pk) == game_pk, col(GameClaim.kind) == kind,
                       col(GameClaim.claimed_by) == worker)
                .values(claimed_by=None, claimed_at=None, expires_at=None))
            return _rowcount(done) == 1

    async def release_claims(self, worker: str) -> int:
        """Give up every claim ``worker`` holds, of any kind and game (it is shutting down
        cleanly): the work is taken over at once, not after the lease. The number released."""
        async with self._write() as session:
            done = await session.execute(
                sa.update(GameClaim).where(col(GameClaim.claimed_by) == worker)
                .values(claimed_by=None, claimed_at=None, expires_at=None))
            return _rowcount(done)

    async def held_claims(self, kind: str, game_pks: Iterable[int], now: datetime | None = None) -> dict[int, datetime]:
        """Of ``game_pks``, those whose ``kind`` claim someone holds now, with the moment its
        lease runs out: a read, so that a worker looking for work left behind does not
        write a claim attempt for every game another worker is busy with."""
        _check_kind(kind)
        wanted = sorted(set(game_pks))
        if not wanted:
            return {}
        now = now or utcnow()
        query = (sa.select(col(GameClaim.game_pk), col(GameClaim.expires_at))
                 .where(col(GameClaim.kind) == kind, col(GameClaim.game_pk).in_(wanted),
                        col(GameClaim.claimed_by).is_not(None), col(GameClaim.expires_at) >= now))
        async with self._read() as session:
            return {pk: until for pk, until in (await session.execute(query)).all() if until is not None}

    async def claims(self, game_pk: int | None = None) -> list[Claim]:
        """Claim rows (of one game), for operators and tests."""
        query = sa.select(GameClaim).order_by(col(GameClaim.game_pk), col(GameClaim.kind))
        if game_pk is not None:
            query = query.where(col(GameClaim.game_pk) == game_pk)
        async with self._read() as session:
            return [Claim(r.game_pk, r.kind, r.claimed_by, r.claimed_at, r.expires_at)
                    for r in (await session.execute(query)).scalars()]
