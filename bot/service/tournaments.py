"""Leagues and tournaments (issue 29): sign-up, rounds made once, standings, withdrawal.

Formats: ``swiss`` and ``round_robin`` for two-seat games, ``pods`` for games of 3 to 6
seats (tables of the game's seat count, ``players`` option; fewer when the numbers need it,
never under the game's least). Pairings, points and tie-breaks are
:mod:`bot.service.pairing`'s. A round robin has as many rounds as its circle needs (twice as
many with ``double``); Swiss and pods play the ``rounds`` asked for.

A round is created in one transaction: its ``tournament_round`` row (the idempotency key:
primary key (tournament, round)), its games with their seats, its ``tournament_game`` rows
and the players' DMs. A process killed while creating it leaves the whole round or nothing,
and creating it again finds the row and does nothing. Opening the games (threads, start) is
the front end's, under a lease on each ``tournament_game`` row, as matchmaking's.

A round ends when all its games have ended; the next one is then made from the standings.
Withdrawal: the player's running games are resigned (two seats: the opponent wins; three or
more: the built-in player takes his seat and the table plays on, and he is placed last), and
he is paired no more. Tournament games are ordinary games: they count for ratings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import col

from bot.models import (
    Game,
    Outbox,
    Rating,
    Tournament,
    TournamentGame,
    TournamentPlayer,
    TournamentRound,
    dumps,
    loads,
    utcnow,
)
from bot.service import pairing, ratings
from bot.service.core import _module
from bot.service.matchmaking import SeekCommands
from bot.service.types import NotAllowed, ServiceError
from engine.api import clone

FORMATS = ("swiss", "round_robin", "pods")
ROUND_LIMIT_MOVES = 40
"""A round's limit: this many times the pace after it began (none for a game without a
clock). Until then each game's own deadlines apply (the front end opens tournament games
with at_deadline 'claim': the opponent of a late player may claim the game); a game still
running at the limit is stopped as a shared result."""
OPENING_LEASE = timedelta(seconds=60)
MAX_PLAYERS = 64


@dataclass(frozen=True)
class TournamentInfo:
    id: int
    guild_id: int
    channel_id: int | None
    thread_id: int | None
    message_id: int | None
    created_by: int
    game_id: str
    title: str
    format: str
    rounds: int
    """Rounds in all (a round robin's from its players once started)."""
    pace: str
    options: dict[str, Any]
    double: bool
    status: str
    round: int
    players: list[tuple[int, str, bool]]
    """(user id, name, withdrawn), in sign-up order."""
    starts_at: datetime | None = None


@dataclass(frozen=True)
class Table:
    """A table of a round as the front end opens and shows it."""

    id: int
    tournament_id: int
    round: int
    table_no: int
    players: list[int]
    game_pk: int | None
    forfeit: int | None


@dataclass(frozen=True)
class Line:
    rank: int
    user_id: int
    name: str
    points: float
    tiebreaks: tuple[float, ...]
    games: int
    withdrawn: bool


@dataclass(frozen=True)
class Advanced:
    """What :meth:`TournamentCommands.advance_tournament` did: the round that ended (its
    standings are due in the thread), and the round made next (None: the tournament ended)."""

    tournament_id: int
    ended: int
    next: int | None


class TournamentCommands(SeekCommands):
    """Tournaments over the service's games."""

    # ------------------------------------------------------------------ sign-up

    async def create_tournament(self, guild_id: int, created_by: int, game_id: str, fmt: str, rounds: int,
                                pace: str, options: dict[str, Any] | None = None, *, double: bool = False,
                                channel_id: int | None = None, starts_at: datetime | None = None) -> TournamentInfo:
        if fmt not in FORMATS:
            raise ServiceError(f"There is no format {fmt!r}; the formats are {', '.join(FORMATS)}.")
        module = _module(game_id)
        full = self._options(module, dict(options or {}))
        seats = len(module.roles(clone(full)))
        if fmt == "pods" and seats < 3:
            raise ServiceError(f"Pods are tables of 3 to 6; {module.title} is played by {seats} here "
                               "(choose swiss or round_robin, or set players=).")
        if fmt != "pods" and seats != 2:
            raise ServiceError(f"{fmt} pairs two players; {module.title} is played by {seats} here: choose pods.")
        if not 1 <= rounds <= 30:
            raise ServiceError("A tournament has 1 to 30 rounds.")
        async with self._write() as session:
            row = Tournament(guild_id=guild_id, channel_id=channel_id, created_by=created_by, game_id=game_id,
                             format=fmt, rounds=rounds, pace=pace, options=dumps(full), double=double,
                             starts_at=starts_at)
            session.add(row)
            await session.flush()
            assert row.id is not None
            return await self._tournament_info(session, row)

    async def set_tournament_place(self, tournament_id: int, *, thread_id: int | None = None,
                                   message_id: int | None = None) -> None:
        async with self._write() as session:
            row = await self._tournament_row(session, tournament_id)
            if thread_id is not None:
                row.thread_id = thread_id
            if message_id is not None:
                row.message_id = message_id

    async def join_tournament(self, tournament_id: int, user_id: int, name: str) -> TournamentInfo:
        async with self._write() as session:
            row = await self._tournament_row(session, tournament_id)
            if row.status != "signup":
                raise NotAllowed(f"Tournament #{tournament_id} has started: sign-up is closed.")
            if await session.get(TournamentPlayer, (tournament_id, user_id)) is not None:
                raise NotAllowed(f"You are signed up for tournament #{tournament_id} already.")
            count = len(list((await session.execute(sa.select(TournamentPlayer).where(
                col(TournamentPlayer.tournament_id) == tournament_id))).scalars()))
            if count >= MAX_PLAYERS:
                raise NotAllowed(f"Tournament #{tournament_id} is full ({MAX_PLAYERS} players).")
            session.add(TournamentPlayer(tournament_id=tournament_id, user_id=user_id, display_name=name[:100]))
            await session.flush()
            return await self._tournament_info(session, row)

    async def leave_tournament(self, tournament_id: int, user_id: int) -> TournamentInfo:
        async with self._write() as session:
            row = await self._tournament_row(session, tournament_id)
            if row.status != "signup":
                raise NotAllowed(f"Tournament #{tournament_id} has started: use /tournament withdraw.")
            player = await session.get(TournamentPlayer, (tournament_id, user_id))
            if player is None:
                raise NotAllowed(f"You are not signed up for tournament #{tournament_id}.")
            await session.delete(player)
            await session.flush()
            return await self._tournament_info(session, row)

    async def tournament(self, tournament_id: int) -> TournamentInfo:
        async with self._read() as session:
            return await self._tournament_info(session, await self._tournament_row(session, tournament_id))

    async def tournaments(self, guild_id: int, statuses: Sequence[str] = ("signup", "running")) -> list[TournamentInfo]:
        async with self._read() as session:
            rows = (await session.execute(sa.select(Tournament).where(
                col(Tournament.guild_id) == guild_id, col(Tournament.status).in_(list(statuses)))
                .order_by(col(Tournament.id)))).scalars()
            return [await self._tournament_info(session, r) for r in list(rows)]

    async def due_tournaments(self, now: datetime | None = None) -> list[int]:
        """Tournaments still in sign-up whose start time has come."""
        now = now or utcnow()
        async with self._read() as session:
            found = (await session.execute(sa.select(col(Tournament.id)).where(
                col(Tournament.status) == "signup", col(Tournament.starts_at).is_not(None),
                col(Tournament.starts_at) <= now))).scalars()
            return [int(pk or 0) for pk in found]

    async def clear_start(self, tournament_id: int) -> None:
        """Forget a start time that came and could not be kept (the creator starts it by hand)."""
        async with self._write() as session:
            (await self._tournament_row(session, tournament_id)).starts_at = None

    async def unplaced_tournaments(self, created_before: datetime, guild_ids: Sequence[int]) -> list[int]:
        """Tournaments of these servers made before ``created_before`` whose thread was never
        stored: ``/tournament new`` stopped with its process before it finished."""
        if not guild_ids:
            return []
        async with self._read() as session:
            found = (await session.execute(sa.select(col(Tournament.id)).where(
                col(Tournament.thread_id).is_(None), col(Tournament.channel_id).is_not(None),
                col(Tournament.status) != "finished", col(Tournament.guild_id).in_(list(guild_ids)),
                col(Tournament.created_at) < created_before).order_by(col(Tournament.id)))).scalars()
            return [int(pk or 0) for pk in found]

    async def running_tournaments(self) -> list[int]:
        async with self._read() as session:
            found = (await session.execute(sa.select(col(Tournament.id)).where(
                col(Tournament.status) == "running"))).scalars()
            return [int(pk or 0) for pk in found]

    # ------------------------------------------------------------------ rounds

    async def start_tournament(self, tournament_id: int, by: int, manager: bool = False) -> TournamentInfo:
        """Close the sign-up and make round 1 (its creator or a manager)."""
        async with self._write() as session:
            row = await self._tournament_row(session, tournament_id, lock=True)
            if row.created_by != by and not manager:
                raise NotAllowed("Only the tournament's creator or a server manager can start it.")
            if row.status != "signup":
                raise NotAllowed(f"Tournament #{tournament_id} has started already.")
            players = await self._players(session, tournament_id)
            least = 2 if row.format != "pods" else self._least_seats(row)
            if len(players) < max(2, least):
                raise NotAllowed(f"Tournament #{tournament_id} needs at least {max(2, least)} players; "
                                 f"{len(players)} signed up.")
            rated = {r.entry: r.mu - 3 * r.sigma for r in (await session.execute(sa.select(Rating).where(
                col(Rating.guild_id) == row.guild_id, col(Rating.game_id) == row.game_id))).scalars()}
            for p in players:
                p.seed = rated.get(ratings.person(p.user_id), ratings.MODEL.mu - 3 * ratings.MODEL.sigma)
            if row.format == "round_robin":
                row.rounds = len(pairing.round_robin([p.user_id for p in players], row.double))
            row.status = "running"
            await session.flush()
            await self._make_round(session, row, 1)
            return await self._tournament_info(session, row)

    async def make_round(self, tournament_id: int, round_no: int) -> bool:
        """Make a round if it is not made yet (True when this call made it)."""
        async with self._write() as session:
            row = await self._tournament_row(session, tournament_id, lock=True)
            return await self._make_round(session, row, round_no)

    async def _make_round(self, session: Any, row: Tournament, round_no: int) -> bool:
        assert row.id is not None
        if await session.get(TournamentRound, (row.id, round_no)) is not None:
            return False
        session.add(TournamentRound(tournament_id=row.id, round=round_no))
        row.round = round_no
        await session.flush()  # the key first: a second maker meets it here and rolls back
        everyone = await self._players(session, row.id)
        active = [p.user_id for p in everyone if p.withdrawn_at is None]
        names = {p.user_id: p.display_name for p in everyone}
        module = _module(row.game_id)
        options = loads(row.options) or {}
        played = await self._played(session, row)
        seeds = {p.user_id: p.seed for p in everyone}
        ranked = [s.player for s in pairing.standings([p.user_id for p in everyone], played, row.format, seeds)
                  if s.player in active]
        tables: list[tuple[list[int], int | None]] = []  # (players in seat order, forfeit by)
        if row.format == "swiss":
            pairs, bye = pairing.swiss_round(ranked, played)
            tables = [([a, b], None) for a, b in pairs]
            if bye is not None:
                tables.append(([bye], None))
        elif row.format == "round_robin":
            schedule = pairing.round_robin([p.user_id for p in everyone], row.double)
            pairs = schedule[round_no - 1]
            withdrawn = {p.user_id for p in everyone if p.withdrawn_at is not None}
            for a, b in pairs:
                gone = a if a in withdrawn else b if b in withdrawn else None
                tables.append(([a, b], gone))
            bye = pairing.round_robin_bye([p.user_id for p in everyone], pairs)
            if bye is not None and bye not in withdrawn:
                tables.append(([bye], None))
        else:
            largest = len(module.roles(clone(options)))
            for group in pairing.pods_round(ranked, round_no, largest, self._least_seats(row)):
                tables.append((group, None))
        for number, (seated, forfeit) in enumerate(tables, start=1):
            game_pk = None
            if len(seated) > 1 and forfeit is None:
                table_options = dict(options)
                if row.format == "pods" and "players" in table_options:
                    table_options["players"] = len(seated)
                roles = list(module.roles(clone(table_options)))
                game = await self._new_game(session, row.game_id, table_options, row.guild_id, row.channel_id,
                                            row.pace, [(roles[i], u, names[u]) for i, u in enumerate(seated)])
                game_pk = game.id
                for i, user in enumerate(seated):
                    others = ", ".join(names[u] for u in seated if u != user)
                    text = (f"Tournament #{row.id}, round {round_no}: your game #{game_pk} of {module.title} "
                            f"against {others}; you play **{roles[i]}**. Its thread opens in the tournament's "
                            "channel.")
                    session.add(Outbox(game_pk=game_pk, kind="dm", recipient=str(user),
                                       payload=dumps({"type": "note", "game": game_pk, "role": roles[i],
                                                      "text": text}),
                                       dedupe_key=f"g{game_pk}:tournament:{roles[i]}"))
            session.add(TournamentGame(tournament_id=row.id, round=round_no, table_no=number, players=dumps(seated),
                                       game_pk=game_pk, forfeit=forfeit,
                                       opened_at=None if game_pk is not None else utcnow()))
        await session.flush()
        return True

    def _least_seats(self, row: Tournament) -> int:
        module = _module(row.game_id)
        spec = module.OPTIONS.get("players")
        if isinstance(spec, dict) and spec.get("choices"):
            return max(3, min(int(c) for c in spec["choices"]))
        return len(module.roles(loads(row.options) or {}))

    async def advance_tournament(self, tournament_id: int) -> Advanced | None:
        """When the current round's games have all ended: close it and make the next one (or
        end the tournament). None while games are still running."""
        async with self._write() as session:
            row = await self._tournament_row(session, tournament_id, lock=True)
            if row.status != "running":
                return None
            assert row.id is not None
            current = await session.get(TournamentRound, (row.id, row.round))
            if current is None or current.finished_at is not None:
                return None
            tables = await self._tables(session, row.id, row.round)
            for t in tables:
                if t.game_pk is not None:
                    game = await session.get(Game, t.game_pk)
                    if game is not None and game.status in ("open", "running"):
                        return None
            current.finished_at = utcnow()
            ended = row.round
            if ended >= row.rounds:
                row.status = "finished"
                return Advanced(row.id, ended, None)
            await self._make_round(session, row, ended + 1)
            return Advanced(row.id, ended, ended + 1)

    async def settle_round(self, tournament_id: int, now: datetime | None = None) -> list[int]:
        """Stop, as shared results, the games of the current round still running at its limit
        (:data:`ROUND_LIMIT_MOVES`); the games stopped."""
        from bot.service.lobby import LobbyCommands
        from bot.service.records import pace_delta

        assert isinstance(self, LobbyCommands), "a tournament's games are stopped through the lobby's abort"
        now = now or utcnow()
        async with self._read() as session:
            row = await self._tournament_row(session, tournament_id)
            per_move = pace_delta(row.pace)
            current = await session.get(TournamentRound, (tournament_id, row.round))
            if row.status != "running" or per_move is None or current is None or current.finished_at is not None:
                return []
            if now < current.created_at + ROUND_LIMIT_MOVES * per_move:
                return []
            tables = await self._tables(session, tournament_id, row.round)
        stopped = []
        for t in tables:
            if t.game_pk is None:
                continue
            game = await self.game(t.game_pk)
            if game.status in ("open", "running"):
                await self.abort(t.game_pk, reason=f"round {t.round} of tournament #{tournament_id} ran out of "
                                                   "time: a shared result")
                stopped.append(t.game_pk)
        return stopped

    async def standings_posted(self, tournament_id: int, round_no: int) -> bool:
        """Claim the posting of a round's standings (True once, for the first caller)."""
        async with self._write() as session:
            done = await session.execute(sa.update(TournamentRound).where(
                col(TournamentRound.tournament_id) == tournament_id, col(TournamentRound.round) == round_no,
                col(TournamentRound.finished_at).is_not(None), col(TournamentRound.posted_at).is_(None))
                .values(posted_at=utcnow()))
            return bool(getattr(done, "rowcount", 0))

    async def unposted_rounds(self) -> list[tuple[int, int]]:
        async with self._read() as session:
            rows = (await session.execute(sa.select(col(TournamentRound.tournament_id), col(TournamentRound.round))
                                          .where(col(TournamentRound.finished_at).is_not(None),
                                                 col(TournamentRound.posted_at).is_(None)))).all()
            return [(int(a), int(b)) for a, b in rows]

    async def tables(self, tournament_id: int, round_no: int | None = None) -> list[Table]:
        async with self._read() as session:
            row = await self._tournament_row(session, tournament_id)
            return await self._tables(session, tournament_id, row.round if round_no is None else round_no)

    async def tables_to_open(self, now: datetime | None = None) -> list[Table]:
        """Tables with a game nobody has opened (or whose opener's lease ran out), each taken
        for the caller for a lease."""
        now = now or utcnow()
        out: list[Table] = []
        if not await self._any(sa.select(col(TournamentGame.id)).where(
                col(TournamentGame.game_pk).is_not(None), col(TournamentGame.opened_at).is_(None),
                sa.or_(col(TournamentGame.lease_until).is_(None), col(TournamentGame.lease_until) <= now))):
            return out  # the loop's usual pass: a read, no write transaction
        async with self._write() as session:
            rows = list((await session.execute(sa.select(TournamentGame).where(
                col(TournamentGame.game_pk).is_not(None), col(TournamentGame.opened_at).is_(None),
                sa.or_(col(TournamentGame.lease_until).is_(None), col(TournamentGame.lease_until) <= now))
                .order_by(col(TournamentGame.id)))).scalars())
            for t in rows:
                done = await session.execute(sa.update(TournamentGame).where(
                    col(TournamentGame.id) == t.id, col(TournamentGame.opened_at).is_(None),
                    sa.or_(col(TournamentGame.lease_until).is_(None), col(TournamentGame.lease_until) <= now))
                    .values(lease_until=now + OPENING_LEASE))
                if getattr(done, "rowcount", 0):
                    out.append(_table(t))
        return out

    async def table_opened(self, table_id: int) -> None:
        async with self._write() as session:
            await session.execute(sa.update(TournamentGame).where(col(TournamentGame.id) == table_id)
                                  .values(opened_at=utcnow()))

    # ------------------------------------------------------------------ standings and withdrawal

    async def tournament_standings(self, tournament_id: int) -> list[Line]:
        async with self._read() as session:
            row = await self._tournament_row(session, tournament_id)
            everyone = await self._players(session, tournament_id)
            played = await self._played(session, row)
        seeds = {p.user_id: p.seed for p in everyone}
        by = {p.user_id: p for p in everyone}
        return [Line(s.rank, s.player, by[s.player].display_name, s.points, s.tiebreaks, s.games,
                     by[s.player].withdrawn_at is not None)
                for s in pairing.standings([p.user_id for p in everyone], played, row.format, seeds)]

    async def withdraw(self, tournament_id: int, user_id: int) -> list[int]:
        """The member leaves a running tournament; returns his running games there, which the
        caller resigns for him (see the module's docstring)."""
        async with self._write() as session:
            row = await self._tournament_row(session, tournament_id, lock=True)
            if row.status != "running":
                raise NotAllowed(f"Tournament #{tournament_id} is not under way"
                                 + (": leave it with the Leave button." if row.status == "signup" else "."))
            player = await session.get(TournamentPlayer, (tournament_id, user_id))
            if player is None:
                raise NotAllowed(f"You are not playing in tournament #{tournament_id}.")
            if player.withdrawn_at is not None:
                raise NotAllowed(f"You withdrew from tournament #{tournament_id} already.")
            player.withdrawn_at = utcnow()
            games = []
            for t in (await session.execute(sa.select(TournamentGame).where(
                    col(TournamentGame.tournament_id) == tournament_id,
                    col(TournamentGame.game_pk).is_not(None)))).scalars():
                game = await session.get(Game, t.game_pk)
                if game is not None and game.status in ("open", "running") and user_id in loads(t.players):
                    games.append(int(t.game_pk or 0))
            return games

    # ------------------------------------------------------------------ reading

    async def _tournament_row(self, session: Any, tournament_id: int, lock: bool = False) -> Tournament:
        query = sa.select(Tournament).where(col(Tournament.id) == tournament_id)
        if lock:
            query = query.with_for_update()
        row = (await session.execute(query)).scalar_one_or_none()
        if row is None:
            raise NotAllowed(f"There is no tournament #{tournament_id}.")
        return row

    @staticmethod
    async def _players(session: Any, tournament_id: int) -> list[TournamentPlayer]:
        return list((await session.execute(sa.select(TournamentPlayer).where(
            col(TournamentPlayer.tournament_id) == tournament_id)
            .order_by(col(TournamentPlayer.joined_at), col(TournamentPlayer.user_id)))).scalars())

    @staticmethod
    async def _tables(session: Any, tournament_id: int, round_no: int) -> list[Table]:
        rows = (await session.execute(sa.select(TournamentGame).where(
            col(TournamentGame.tournament_id) == tournament_id, col(TournamentGame.round) == round_no)
            .order_by(col(TournamentGame.table_no)))).scalars()
        return [_table(t) for t in rows]

    async def _played(self, session: Any, row: Tournament) -> list[pairing.Played]:
        """The tournament's tables that have a result: byes, forfeits, finished games (places
        from the result; a player who left his seat placed last) and games stopped at a
        round's limit (aborted: a shared result)."""
        out: list[pairing.Played] = []
        rows = (await session.execute(sa.select(TournamentGame).where(
            col(TournamentGame.tournament_id) == row.id).order_by(col(TournamentGame.id)))).scalars()
        for t in list(rows):
            seated = [int(u) for u in loads(t.players)]
            sides = {u: i for i, u in enumerate(seated)}
            if len(seated) == 1:
                out.append(pairing.Played(t.round, {seated[0]: 1}))
                continue
            if t.forfeit is not None:
                out.append(pairing.Played(t.round, {u: 2 if u == t.forfeit else 1 for u in seated}))
                continue
            game = await session.get(Game, t.game_pk) if t.game_pk is not None else None
            if game is None or game.status not in ("finished", "aborted"):
                continue
            if game.status == "aborted":
                out.append(pairing.Played(t.round, {u: 1 for u in seated}, sides))
                continue
            roles = list(_module(game.game_id).roles(loads(game.options)))
            places = ratings.place_roles(roles, loads(game.result) or {})
            by_user = {u: places[roles[i]] for i, u in enumerate(seated)}
            seats = await self._seats(session, int(game.id or 0))
            last = max(by_user.values()) + 1
            left = sorted((str((loads(seats[roles[i]].prefs) or {}).get(ratings.DEPARTED, {}).get("at") or ""), u)
                          for i, u in enumerate(seated) if roles[i] in seats and seats[roles[i]].user_id != u)
            for n, (_at, u) in enumerate(reversed(left)):  # who left: after all who stayed, the last first
                by_user[u] = last + n
            out.append(pairing.Played(t.round, by_user, sides))
        return out

    async def _tournament_info(self, session: Any, row: Tournament) -> TournamentInfo:
        assert row.id is not None
        players = await self._players(session, row.id)
        try:
            title = _module(row.game_id).title
        except ServiceError:
            title = row.game_id
        return TournamentInfo(row.id, row.guild_id, row.channel_id, row.thread_id, row.message_id, row.created_by,
                              row.game_id, title, row.format, row.rounds, row.pace, loads(row.options) or {},
                              row.double, row.status, row.round,
                              [(p.user_id, p.display_name, p.withdrawn_at is not None) for p in players],
                              row.starts_at)


def _table(t: TournamentGame) -> Table:
    assert t.id is not None
    return Table(t.id, t.tournament_id, t.round, t.table_no, [int(u) for u in loads(t.players)], t.game_pk,
                 t.forfeit)
