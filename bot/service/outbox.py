"""The outbox: notifications written with each step, claimed and delivered by front ends."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import aliased
from sqlmodel import col

from bot.models import Outbox, dumps, loads, utcnow
from bot.service.core import (
    ServiceCore,
)
from bot.service.types import (
    OutboxItem,
)


class OutboxCommands(ServiceCore):
    """Claiming, acknowledging and giving up outbox rows, with leases so that several
    processes may deliver from one database."""


    async def claim_outbox(self, worker: str, limit: int = 20, lease_seconds: float = 60.0,
                           kinds: Sequence[str] | None = None, together: Sequence[str] = ()) -> list[OutboxItem]:
        """Claim up to ``limit`` notifications due for delivery, for ``lease_seconds``.

        Several workers (processes) may call this at once: a row is claimed by one only. A
        worker that dies leaves its claims to expire. Deliver, then :meth:`mark_sent` (or
        :meth:`mark_all_sent`) or :meth:`mark_failed`.

        Rows of the kinds in ``together`` are claimed a recipient at a time: none of a
        recipient's rows while another of its unsent rows is claimed by another worker or
        waits for a retry. A worker that posts them grouped (a game's thread) then holds
        every unsent row of that recipient, so what it posts comes in order and a dead
        worker's half-posted group is taken over whole, never re-formed with other members.
        """
        now = utcnow()
        expired = now - timedelta(seconds=lease_seconds)
        free = sa.or_(col(Outbox.claimed_at).is_(None), col(Outbox.claimed_at) < expired)
        query = (
            sa.select(col(Outbox.id))
            .where(col(Outbox.sent_at).is_(None), col(Outbox.failed_at).is_(None), col(Outbox.next_attempt_at) <= now,
                   free)
            .order_by(col(Outbox.id))
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        if kinds is not None:
            query = query.where(col(Outbox.kind).in_(list(kinds)))
        if together:
            other = aliased(Outbox)
            held_elsewhere = sa.exists().where(
                col(other.kind) == col(Outbox.kind), col(other.recipient) == col(Outbox.recipient),
                col(other.id) != col(Outbox.id), col(other.sent_at).is_(None), col(other.failed_at).is_(None),
                sa.or_(col(other.next_attempt_at) > now,
                       sa.and_(col(other.claimed_at) >= expired, col(other.claimed_by) != worker)))
            query = query.where(sa.or_(col(Outbox.kind).not_in(list(together)), ~held_elsewhere))
        claimed: list[OutboxItem] = []
        async with self._write() as session:
            ids = list((await session.execute(query)).scalars())
            for item_id in ids:
                done = await session.execute(
                    sa.update(Outbox)
                    .where(col(Outbox.id) == item_id, col(Outbox.sent_at).is_(None), free)
                    .values(claimed_by=worker, claimed_at=now)
                )
                if _rowcount(done) == 1:
                    row = (await session.execute(sa.select(Outbox).where(col(Outbox.id) == item_id))).scalar_one()
                    claimed.append(_outbox_item(row))
        return claimed

    async def mark_sent(self, item_id: int, worker: str) -> bool:
        """Record a delivery; False if the claim was lost (another worker took it over)."""
        async with self._write() as session:
            done = await session.execute(
                sa.update(Outbox)
                .where(col(Outbox.id) == item_id, col(Outbox.claimed_by) == worker, col(Outbox.sent_at).is_(None))
                .values(sent_at=utcnow())
            )
            return bool(_rowcount(done))

    async def mark_all_sent(self, item_ids: Sequence[int], worker: str) -> int:
        """Record the delivery of several rows sent as one (a grouped thread post) in one
        transaction, so that a crash cannot leave part of the group pending: a retry would
        make a group of the rest, under another nonce. The number of rows still this
        worker's claim, now marked."""
        if not item_ids:
            return 0
        async with self._write() as session:
            done = await session.execute(
                sa.update(Outbox)
                .where(col(Outbox.id).in_(list(item_ids)), col(Outbox.claimed_by) == worker,
                       col(Outbox.sent_at).is_(None))
                .values(sent_at=utcnow())
            )
            return _rowcount(done)

    async def mark_failed(self, item_id: int, worker: str, error: str, retry_in_seconds: float = 30.0) -> bool:
        """Count a failed attempt and release the row for a retry after ``retry_in_seconds``."""
        async with self._write() as session:
            done = await session.execute(
                sa.update(Outbox)
                .where(col(Outbox.id) == item_id, col(Outbox.claimed_by) == worker, col(Outbox.sent_at).is_(None))
                .values(attempts=col(Outbox.attempts) + 1, last_error=error[:2000], claimed_by=None, claimed_at=None,
                        next_attempt_at=utcnow() + timedelta(seconds=retry_in_seconds))
            )
            return bool(_rowcount(done))

    async def mark_given_up(self, item_id: int, worker: str, error: str) -> bool:
        """Give a row up for good (Discord refuses it whatever we do): it is recorded with its
        last error and ``failed_at``, is never claimed again and holds nothing back."""
        async with self._write() as session:
            done = await session.execute(
                sa.update(Outbox)
                .where(col(Outbox.id) == item_id, col(Outbox.claimed_by) == worker, col(Outbox.sent_at).is_(None))
                .values(attempts=col(Outbox.attempts) + 1, last_error=error[:2000], claimed_by=None, claimed_at=None,
                        failed_at=utcnow())
            )
            return bool(_rowcount(done))

    async def release_outbox(self, worker: str) -> int:
        """Give back every row ``worker`` holds and has not sent (it is shutting down cleanly):
        another worker, or this one's successor after a planned restart, takes them at once
        instead of waiting out the lease, which stays for a worker that dies. A row given back
        while its send was under way is sent again under the same nonce, as after a lease.
        The number of rows given back."""
        async with self._write() as session:
            done = await session.execute(
                sa.update(Outbox)
                .where(col(Outbox.claimed_by) == worker, col(Outbox.sent_at).is_(None))
                .values(claimed_by=None, claimed_at=None)
            )
            return _rowcount(done)

    async def tell_players(self, game_pk: int, text: str, key: str) -> int:
        """A DM row with ``text`` for every person seated in the game, once per ``key`` (a
        second call with the same key writes nothing). The number of rows written."""
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            written = 0
            for seat in self._people(loaded):
                dedupe = f"g{game_pk}:tell:{key}:{seat.role}"[:200]
                exists = (await session.execute(
                    sa.select(col(Outbox.id)).where(col(Outbox.dedupe_key) == dedupe))).first()
                if exists is not None:
                    continue
                payload = {"type": "note", "game": game_pk, "role": seat.role, "text": text}
                session.add(Outbox(game_pk=game_pk, kind="dm", recipient=str(seat.user_id), payload=dumps(payload),
                                   dedupe_key=dedupe))
                written += 1
            return written

    async def outbox(self, game_pk: int | None = None, pending_only: bool = False) -> list[OutboxItem]:
        """Notification rows (of one game), oldest first; for operators and tests."""
        query = sa.select(Outbox).order_by(col(Outbox.id))
        if game_pk is not None:
            query = query.where(col(Outbox.game_pk) == game_pk)
        if pending_only:
            query = query.where(col(Outbox.sent_at).is_(None), col(Outbox.failed_at).is_(None))
        async with self._read() as session:
            return [_outbox_item(r) for r in (await session.execute(query)).scalars()]


# --------------------------------------------------------------------------- replay helpers


def _rowcount(result: Any) -> int:
    """Rows an UPDATE touched (the conditional updates that claim rows depend on it)."""
    return int(getattr(result, "rowcount", 0) or 0)


def _outbox_item(row: Outbox) -> OutboxItem:
    assert row.id is not None
    return OutboxItem(row.id, row.game_pk, row.kind, row.recipient, loads(row.payload), row.attempts,
                      row.dedupe_key, row.created_at, row.sent_at, row.failed_at, row.last_error)
