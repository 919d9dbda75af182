"""Matchmaking (issue 29): ``/game seek`` tickets, paired by rating into new games.

A ticket names a pool: server, game, pace, options and seat count. A matching pass takes a
pool whose oldest open ticket has waited :data:`GATHER_SECONDS` (the front end's setting:
long enough that players who ask at about the same time are paired by rating rather than by
arrival) and makes as many games of it as it can, the closest ratings first
(:func:`group_tickets`), each player's side chosen so that he alternates across his games
(:func:`assign_sides`). Tickets that are left keep waiting.

Life of a ticket (``status``): 'open' until it expires (:data:`EXPIRY`, by pace), its
holder cancels it, or a match takes it: then 'matched', in the very transaction that creates
the game, its seats and the players' DMs (outbox rows). The conditional update
``status = 'open' -> 'matched'`` (on PostgreSQL after ``SELECT ... FOR UPDATE SKIP LOCKED``)
means two processes never match one ticket twice. The front end then opens the game (its
thread, the start); ``expires_at`` of a matched ticket is the lease of that opening, so that
another process takes it over if the one that matched dies first, and 'started' ends it.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import col

from bot.models import Game, GameState, Outbox, Rating, Seat, SeekTicket, dumps, loads, utcnow
from bot.service import ratings
from bot.service.core import _SEED_LIMIT, ServiceCore, _module, rules_version
from bot.service.outbox import _rowcount
from bot.service.types import NotAllowed, ServiceError
from engine.api import clone

EXPIRY: dict[str, timedelta] = {
    "live": timedelta(minutes=30),
    "24h": timedelta(days=2),
    "48h": timedelta(days=3),
    "72h": timedelta(days=4),
    "7d": timedelta(days=7),
}
"""How long a ticket waits for opponents, by pace: a live game wants someone now, a slow
one may wait days (another pace of the NhNd form waits as long as its time per move, at
least a day)."""
GATHER_SECONDS = 20.0
"""Default wait of a pool's oldest ticket before it is matched."""
OPENING_LEASE = timedelta(seconds=60)
"""How long the process that matched a game has to open it before another may."""
MAX_TICKETS = 5
"""Open tickets one member may hold in one server."""


def expiry(pace: str) -> timedelta:
    if pace in EXPIRY:
        return EXPIRY[pace]
    per_move = None
    if pace[:-1].isdigit() and pace[-1:] in ("h", "d"):
        n = int(pace[:-1])
        per_move = timedelta(hours=n) if pace.endswith("h") else timedelta(days=n)
    return max(per_move or timedelta(0), timedelta(days=1))


@dataclass(frozen=True)
class Ticket:
    id: int
    guild_id: int
    channel_id: int | None
    user_id: int
    display_name: str
    game_id: str
    pace: str
    options: dict[str, Any]
    players: int
    status: str
    game_pk: int | None
    created_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class Match:
    """A game a matching pass made: where to open it and who plays which side."""

    game_pk: int
    guild_id: int
    channel_id: int | None
    game_id: str
    pace: str
    seats: list[tuple[str, int, str]]
    """(role, user id, name), in the game's role order."""


@dataclass(frozen=True)
class Waiting:
    """A ticket as the pairing sees it."""

    ticket: int
    user_id: int
    rating: float
    created_at: datetime


def group_tickets(waiting: Sequence[Waiting], size: int) -> list[list[int]]:
    """Tickets grouped into games of ``size``, the closest ratings first: among the runs of
    ``size`` tickets next to each other in rating order (no member twice), the one with the
    smallest spread of ratings (then the one waiting longest) makes a game; again with the
    rest, until fewer are left than a game needs. Ticket ids of each game, in rating order."""
    pool = sorted(waiting, key=lambda w: (w.rating, w.created_at, w.ticket))
    games: list[list[int]] = []
    while len(pool) >= size:
        best: tuple[float, datetime, int] | None = None
        for start in range(len(pool) - size + 1):
            run = pool[start:start + size]
            if len({w.user_id for w in run}) < size:
                continue
            key = (run[-1].rating - run[0].rating, min(w.created_at for w in run), start)
            if best is None or key < best:
                best = key
        if best is None:
            break
        start = best[2]
        games.append([w.ticket for w in pool[start:start + size]])
        del pool[start:start + size]
    return games


def assign_sides(roles: Sequence[str], players: Sequence[tuple[int, dict[str, int], str | None]]) -> dict[int, str]:
    """Each player's side: ``players`` are (user id, games played per role, last role played)
    in ticket order. The player whose history leans most to one side chooses first, and takes
    the free role he played least (then not his last one, then the game's order): a player
    who had the first side last time gets the other, and over his games the sides even out."""
    def lean(counts: dict[str, int]) -> int:
        return max(counts.values(), default=0) - min((counts.get(r, 0) for r in roles), default=0)

    order = sorted(range(len(players)), key=lambda i: (-lean(players[i][1]), i))
    free = list(roles)
    out: dict[int, str] = {}
    for i in order:
        user, counts, last = players[i]
        role = min(free, key=lambda r: (counts.get(r, 0), r == last, roles.index(r)))
        free.remove(role)
        out[user] = role
    return out


def _ticket(row: SeekTicket) -> Ticket:
    assert row.id is not None
    return Ticket(row.id, row.guild_id, row.channel_id, row.user_id, row.display_name, row.game_id, row.pace,
                  loads(row.options) or {}, row.players, row.status, row.game_pk, row.created_at, row.expires_at)


class SeekCommands(ServiceCore):
    """Tickets and matching passes."""

    def _pool_options(self, game_id: str, options: dict[str, Any], players: int | None) -> tuple[dict[str, Any], int]:
        """The ticket's options, complete (defaults filled in: tickets compare equal whatever
        was left unsaid), and its seat count."""
        module = _module(game_id)
        given = dict(options)
        spec = module.OPTIONS
        if players is not None and "players" in spec:
            given["players"] = players
        full = self._options(module, given)
        seats = len(module.roles(clone(full)))
        if players is not None and players != seats:
            raise ServiceError(f"{module.title} is played by {seats}, not {players}.")
        return full, seats

    async def seek(self, guild_id: int, user_id: int, display_name: str, game_id: str, pace: str,
                   options: dict[str, Any] | None = None, players: int | None = None, *,
                   channel_id: int | None = None, now: datetime | None = None) -> Ticket:
        """A new ticket. Refused when the member waits in that pool already, or holds
        :data:`MAX_TICKETS` open tickets."""
        now = now or utcnow()
        full, seats = self._pool_options(game_id, options or {}, players)
        if seats < 2:
            raise ServiceError("A solo game needs no opponent: open it with /game new.")
        text = dumps(full)
        async with self._write() as session:
            mine = list((await session.execute(sa.select(SeekTicket).where(
                col(SeekTicket.guild_id) == guild_id, col(SeekTicket.user_id) == user_id,
                col(SeekTicket.status) == "open", col(SeekTicket.expires_at) > now))).scalars())
            for t in mine:
                if (t.game_id, t.pace, t.options, t.players) == (game_id, pace, text, seats):
                    raise NotAllowed(f"You are waiting for that game already (ticket #{t.id}).")
            if len(mine) >= MAX_TICKETS:
                raise NotAllowed(f"You hold {MAX_TICKETS} tickets already: cancel one first.")
            row = SeekTicket(guild_id=guild_id, channel_id=channel_id, user_id=user_id,
                             display_name=display_name[:100], game_id=game_id, pace=pace, options=text,
                             players=seats, status="open", created_at=now, expires_at=now + expiry(pace))
            session.add(row)
            await session.flush()
            return _ticket(row)

    async def tickets(self, guild_id: int, user_id: int | None = None, *, now: datetime | None = None,
                      status: str | None = "open") -> list[Ticket]:
        """Tickets of a server (one member's, or everyone's): the open and unexpired ones by
        default, the oldest first."""
        now = now or utcnow()
        query = sa.select(SeekTicket).where(col(SeekTicket.guild_id) == guild_id)
        if user_id is not None:
            query = query.where(col(SeekTicket.user_id) == user_id)
        if status is not None:
            query = query.where(col(SeekTicket.status) == status)
            if status == "open":
                query = query.where(col(SeekTicket.expires_at) > now)
        async with self._read() as session:
            return [_ticket(t) for t in (await session.execute(query.order_by(col(SeekTicket.id)))).scalars()]

    async def cancel_ticket(self, guild_id: int, user_id: int, ticket_id: int) -> Ticket:
        async with self._write() as session:
            done = await session.execute(sa.update(SeekTicket).where(
                col(SeekTicket.id) == ticket_id, col(SeekTicket.guild_id) == guild_id,
                col(SeekTicket.user_id) == user_id, col(SeekTicket.status) == "open").values(status="cancelled"))
            row = await session.get(SeekTicket, ticket_id)
            if _rowcount(done) != 1 or row is None:
                if row is None or row.user_id != user_id or row.guild_id != guild_id:
                    raise NotAllowed(f"You hold no ticket #{ticket_id} on this server.")
                raise NotAllowed(f"Ticket #{ticket_id} is {row.status} already.")
            return _ticket(row)

    async def expire_tickets(self, now: datetime | None = None) -> int:
        """Open tickets past their time: 'expired'. How many."""
        now = now or utcnow()
        if not await self._any(sa.select(col(SeekTicket.id)).where(col(SeekTicket.status) == "open",
                                                                  col(SeekTicket.expires_at) <= now)):
            return 0  # the loop's usual pass: a read, no write transaction
        async with self._write() as session:
            done = await session.execute(sa.update(SeekTicket).where(
                col(SeekTicket.status) == "open", col(SeekTicket.expires_at) <= now).values(status="expired"))
            return _rowcount(done)

    async def _any(self, query: Any) -> bool:
        async with self._read() as session:
            return (await session.execute(query.limit(1))).first() is not None

    async def match_tickets(self, *, now: datetime | None = None, gather_seconds: float = GATHER_SECONDS,
                            guild_ids: Sequence[int] | None = None) -> list[Match]:
        """One matching pass (see the module's docstring): the games it made, each created
        with its seats and its players' DMs in the transaction that took the tickets."""
        now = now or utcnow()
        made: list[Match] = []
        if not await self._any(sa.select(col(SeekTicket.id)).where(
                col(SeekTicket.status) == "open", col(SeekTicket.expires_at) > now,
                col(SeekTicket.created_at) <= now - timedelta(seconds=gather_seconds))):
            return made  # no pool is ripe: a read, no write transaction
        async with self._write() as session:
            query = (sa.select(SeekTicket).where(col(SeekTicket.status) == "open", col(SeekTicket.expires_at) > now)
                     .order_by(col(SeekTicket.id)).with_for_update(skip_locked=True))
            if guild_ids is not None:
                query = query.where(col(SeekTicket.guild_id).in_(list(guild_ids)))
            rows = list((await session.execute(query)).scalars())
            pools: dict[tuple[int, str, str, str, int], list[SeekTicket]] = {}
            for row in rows:
                pools.setdefault((row.guild_id, row.game_id, row.pace, row.options, row.players), []).append(row)
            for (guild_id, game_id, pace, options, size), tickets in sorted(pools.items()):
                if len(tickets) < size or min(t.created_at for t in tickets) > now - timedelta(seconds=gather_seconds):
                    continue
                rated = {r.entry: r.mu - 3 * r.sigma for r in (await session.execute(sa.select(Rating).where(
                    col(Rating.guild_id) == guild_id, col(Rating.game_id) == game_id))).scalars()}
                newcomer = ratings.MODEL.mu - 3 * ratings.MODEL.sigma
                by_id = {t.id: t for t in tickets}
                waiting = [Waiting(t.id or 0, t.user_id, rated.get(ratings.person(t.user_id), newcomer), t.created_at)
                           for t in tickets]
                for group in group_tickets(waiting, size):
                    made.append(await self._make_match(session, [by_id[i] for i in group], guild_id, game_id, pace,
                                                       loads(options) or {}, now))
        return made

    async def _make_match(self, session: Any, tickets: list[SeekTicket], guild_id: int, game_id: str, pace: str,
                          options: dict[str, Any], now: datetime) -> Match:
        module = _module(game_id)
        roles = list(module.roles(clone(options)))
        history = await self._sides(session, guild_id, game_id, [t.user_id for t in tickets])
        sides = assign_sides(roles, [(t.user_id, *history.get(t.user_id, ({}, None))) for t in tickets])
        game = await self._new_game(session, game_id, options, guild_id, tickets[0].channel_id, pace,
                                    [(sides[t.user_id], t.user_id, t.display_name) for t in tickets])
        assert game.id is not None
        names = {t.user_id: t.display_name for t in tickets}
        for t in tickets:
            done = await session.execute(sa.update(SeekTicket).where(
                col(SeekTicket.id) == t.id, col(SeekTicket.status) == "open").values(
                status="matched", game_pk=game.id, expires_at=now + OPENING_LEASE))
            if _rowcount(done) != 1:  # taken meanwhile (cannot happen under the row locks): nothing of it stays
                raise ServiceError(f"Ticket #{t.id} was taken by another match.")
        seats = sorted(((sides[u], u, names[u]) for u in sides), key=lambda s: roles.index(s[0]))
        for role, user, _name in seats:
            others = ", ".join(f"{n} ({r})" for r, u, n in seats if u != user)
            text = (f"Matchmaking found your game: #{game.id}, {module.title}, {pace} per move. You play **{role}** "
                    f"against {others}. Its thread opens in the channel where you asked.")
            session.add(Outbox(game_pk=game.id, kind="dm", recipient=str(user),
                               payload=dumps({"type": "note", "game": game.id, "role": role, "text": text}),
                               dedupe_key=f"g{game.id}:matched:{role}"))
        return Match(game.id, guild_id, tickets[0].channel_id, game_id, pace, seats)

    async def _new_game(self, session: Any, game_id: str, options: dict[str, Any], guild_id: int,
                        channel_id: int | None, pace: str, seats: Sequence[tuple[str, int, str]]) -> Game:
        """A new game, open, with its state set up and its seats taken (role, user, name), in
        the caller's transaction: a match or a tournament round writes its games with the rows
        that decided them."""
        module = _module(game_id)
        seed = secrets.randbelow(_SEED_LIMIT)
        state = module.setup(seed, clone(options))
        game = Game(game_id=game_id, seed=seed, options=dumps(options), status="open", version=0,
                    active=dumps(list(module.active(state))), created_by=None, guild_id=guild_id,
                    channel_id=channel_id, pace=pace, rules_version=rules_version(module),
                    schema_revision=await self._schema_revision(session))
        session.add(game)
        await session.flush()
        assert game.id is not None
        session.add(GameState(game_pk=game.id, version=0, state=dumps(state)))
        for role, user, name in seats:
            session.add(Seat(game_pk=game.id, role=role, user_id=user, display_name=name[:100]))
        return game

    @staticmethod
    async def _sides(session: Any, guild_id: int, game_id: str,
                     users: list[int]) -> dict[int, tuple[dict[str, int], str | None]]:
        """Per member: how often he played each side of the game on the server, and his last."""
        rows = (await session.execute(
            sa.select(col(Seat.user_id), col(Seat.role)).join(Game, col(Game.id) == col(Seat.game_pk))
            .where(col(Game.guild_id) == guild_id, col(Game.game_id) == game_id, col(Seat.user_id).in_(users),
                   col(Game.status).in_(("running", "finished")))
            .order_by(col(Game.id)))).all()
        out: dict[int, tuple[dict[str, int], str | None]] = {}
        for user, role in rows:
            counts, _last = out.get(user, ({}, None))
            counts[role] = counts.get(role, 0) + 1
            out[user] = (counts, role)
        return out

    async def matches_to_open(self, worker_now: datetime | None = None,
                              guild_ids: Sequence[int] | None = None) -> list[Match]:
        """Matched games nobody is opening (the lease of the one that matched them ran out):
        each is taken for this caller for another lease."""
        now = worker_now or utcnow()
        out: list[Match] = []
        if not await self._any(sa.select(col(SeekTicket.id)).where(col(SeekTicket.status) == "matched",
                                                                  col(SeekTicket.expires_at) <= now)):
            return out
        async with self._write() as session:
            query = (sa.select(col(SeekTicket.game_pk)).where(col(SeekTicket.status) == "matched",
                                                              col(SeekTicket.expires_at) <= now).distinct())
            if guild_ids is not None:
                query = query.where(col(SeekTicket.guild_id).in_(list(guild_ids)))
            for game_pk in list((await session.execute(query)).scalars()):
                done = await session.execute(sa.update(SeekTicket).where(
                    col(SeekTicket.game_pk) == game_pk, col(SeekTicket.status) == "matched",
                    col(SeekTicket.expires_at) <= now).values(expires_at=now + OPENING_LEASE))
                if not _rowcount(done):
                    continue
                game = await session.get(Game, game_pk)
                if game is None or game_pk is None:
                    continue
                order = {r: i for i, r in enumerate(_module(game.game_id).roles(loads(game.options)))}
                seats = sorted(((s.role, s.user_id or 0, s.display_name)
                                for s in (await self._seats(session, game_pk)).values()),
                               key=lambda s: order.get(s[0], 99))
                out.append(Match(game_pk, game.guild_id or 0, game.channel_id, game.game_id, game.pace or "", seats))
        return out

    async def match_opened(self, game_pk: int) -> None:
        """The front end opened the game (thread, start): its tickets are done."""
        async with self._write() as session:
            await session.execute(sa.update(SeekTicket).where(
                col(SeekTicket.game_pk) == game_pk, col(SeekTicket.status) == "matched").values(status="started"))
