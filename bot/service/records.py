"""Campaign commands of the service (issue 29): ratings as players read them, leaderboards,
player statistics and histories, a server's rating settings, managers' rated/unrated marks
and the rebuild. The rating maths and rules are in :mod:`bot.service.ratings`."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import col

import engine
from bot.models import CampaignGuild, Game, GameRated, Move, RatedGame, Rating, Seat, loads, utcnow
from bot.service import ratings
from bot.service.core import ServiceCore
from bot.service.ratings import Rebuilt, Shown, shown
from bot.service.sql import _fetch, _run
from bot.service.types import GameNotFound

TREND_GAMES = 10
"""Games a leaderboard's trend covers (the rating after each of a player's last ten)."""
LEADERBOARD_TOP = 20


@dataclass(frozen=True)
class RatingLine:
    """One line of a leaderboard, or one rating of a player. ``name`` is the name last seen
    in a rated game (a front end shows the member's display name of now instead, when he is
    still there)."""

    rank: int
    game_id: str
    entry: str
    user_id: int | None
    name: str
    rating: Shown
    mu: float
    sigma: float
    trend: list[int] = field(default_factory=list)
    """The shown rating after each of the entry's last games, oldest first."""


@dataclass(frozen=True)
class Board:
    game_id: str
    lines: list[RatingLine]
    """The top lines, in order."""
    own: RatingLine | None
    """The caller's line when he is rated but not among them."""
    entries: int


@dataclass(frozen=True)
class GameCount:
    game_id: str
    played: int
    won: int


@dataclass(frozen=True)
class Stats:
    """A member's record in one server."""

    user_id: int
    per_game: list[GameCount]
    in_progress: int
    median_move: timedelta | None
    """Median time from the move before his to his move."""
    moves: int
    on_time: int
    """His moves made within his game's pace (a game with no clock: all of them)."""
    longest: tuple[int, timedelta] | None
    """(game id, how long it lasted) of his longest finished game."""
    favourite_side: tuple[str, str, int] | None
    """(game id, role, times) he played most."""


@dataclass(frozen=True)
class Finished:
    """A finished game in a member's history."""

    game_pk: int
    game_id: str
    title: str
    role: str
    outcome: str
    """'won', 'shared win', 'draw', 'lost', or '2nd of 4'..."""
    reason: str
    thread_id: int | None
    ended_at: datetime
    change: int | None
    """What the game did to his shown rating (None: unrated)."""


def pace_delta(pace: str | None) -> timedelta | None:
    """The time allowed per move of a pace ('24h', '7d'; 'live' or None: no clock)."""
    found = re.fullmatch(r"(\d{1,4})([hd])", (pace or "").strip())
    if not found:
        return None
    n = int(found[1])
    return timedelta(hours=n) if found[2] == "h" else timedelta(days=n)


def outcome_of(result: dict[str, Any], roles: list[str], role: str) -> str:
    """How a finished game went for ``role``, in words."""
    places = ratings.place_roles(roles, result)
    place = places.get(role)
    if place is None:
        return "played"
    shared = sum(1 for p in places.values() if p == place)
    if place == 1:
        if shared == len(places):
            return "draw"
        return "shared win" if shared > 1 else "won"
    if len(roles) <= 2:
        return "lost"
    suffix = {2: "nd", 3: "rd"}.get(place, "th")
    return f"{place}{suffix} of {len(roles)}"


_RATING: sa.Table = Rating.__table__  # type: ignore[attr-defined]


class RecordCommands(ServiceCore):
    """Ratings, leaderboards, statistics and histories (issue 29)."""

    # ------------------------------------------------------------------ ratings

    async def ratings_of(self, guild_id: int, user_id: int, game_id: str | None = None) -> list[RatingLine]:
        """A member's ratings in a server (one game, or every game he is rated in), with his
        rank among the entries of each game."""
        entry = ratings.person(user_id)
        async with self._read() as session:
            query = sa.select(Rating).where(col(Rating.guild_id) == guild_id, col(Rating.entry) == entry)
            if game_id is not None:
                query = query.where(col(Rating.game_id) == game_id)
            rows = list((await session.execute(query.order_by(col(Rating.game_id)))).scalars())
            out = []
            for row in rows:
                everyone = list((await session.execute(sa.select(Rating).where(
                    col(Rating.guild_id) == guild_id, col(Rating.game_id) == row.game_id))).scalars())
                rank = 1 + sum(1 for other in everyone if _order(other) < _order(row))
                trend = await self._trend(session, guild_id, row.game_id, row.entry)
                out.append(_line(rank, row, trend))
        return out

    async def leaderboard(self, guild_id: int, game_id: str, user_id: int | None = None,
                          top: int = LEADERBOARD_TOP) -> Board:
        """The best ``top`` entries of a game in a server (people and built-in levels), and the
        caller's own line when he is further down."""
        async with self._read() as session:
            rows = sorted((await session.execute(sa.select(Rating).where(
                col(Rating.guild_id) == guild_id, col(Rating.game_id) == game_id))).scalars(), key=_order)
            lines = []
            own = None
            mine = ratings.person(user_id) if user_id is not None else None
            for rank, row in enumerate(rows, start=1):
                if rank <= top or row.entry == mine:
                    line = _line(rank, row, await self._trend(session, guild_id, game_id, row.entry))
                    if rank <= top:
                        lines.append(line)
                    else:
                        own = line
        return Board(game_id, lines, own, len(rows))

    @staticmethod
    async def _trend(session: Any, guild_id: int, game_id: str, entry: str) -> list[int]:
        """The shown rating after each of the entry's last games, oldest first."""
        rows = (await session.execute(
            sa.select(col(RatedGame.changes)).where(col(RatedGame.guild_id) == guild_id, col(RatedGame.game_id) == game_id,
                                               col(RatedGame.changes).contains(f'"{entry}"'))
            .order_by(col(RatedGame.id).desc()).limit(TREND_GAMES))).scalars()
        out = []
        for text in rows:
            change = loads(text).get(entry)
            if change is not None:
                out.append(shown(change[2], change[3]).value)
        return out[::-1]

    async def ratings_vs_bot(self, guild_id: int) -> bool:
        async with self._read() as session:
            row = await session.get(CampaignGuild, guild_id)
            return bool(row and row.ratings_vs_bot)

    async def set_ratings_vs_bot(self, guild_id: int, allowed: bool) -> None:
        """Whether games against the built-in player count from now on (games already counted
        stay as they are)."""
        async with self._write() as session:
            row = await session.get(CampaignGuild, guild_id)
            if row is None:
                session.add(CampaignGuild(guild_id=guild_id, ratings_vs_bot=allowed))
            else:
                row.ratings_vs_bot = allowed

    async def set_rated(self, game_pk: int, rated: bool, by: int | None = None) -> str | None:
        """A manager's word on whether a game counts. Unrated: a game already counted stops
        counting and its server's ratings of that game are made again without it. Rated (an
        import, a game marked unrated before): a finished game counts now, after the games
        counted so far. Returns why a game to rate still does not count, or None."""
        async with self._write() as session:
            game = await session.get(Game, game_pk)
            if game is None:
                raise GameNotFound(f"There is no game {game_pk}.")
            flag = await session.get(GameRated, game_pk)
            if flag is None:
                session.add(GameRated(game_pk=game_pk, rated=rated, set_by=by))
            else:
                flag.rated, flag.set_by, flag.set_at = rated, by, utcnow()
            await session.flush()
            counted = (await session.execute(sa.select(RatedGame).where(col(RatedGame.game_pk) == game_pk))).scalar()
            if not rated:
                if counted is not None:
                    await session.delete(counted)
                    await session.flush()
                    await (await session.connection()).run_sync(ratings.rebuild_sync)
                return None
            if counted is not None or game.status != "finished" or game.result is None:
                return None if counted is not None else "it has not finished"
            module = engine.get(game.game_id)
            order = {r: i for i, r in enumerate(module.roles(loads(game.options)))}
            seats = sorted((await self._seats(session, game_pk)).values(), key=lambda s: order.get(s.role, 99))
            return await ratings.rate_finished(
                lambda statement, values: _fetch(session, statement, values),
                lambda statement, values: _run(session, statement, values), self.db.dialect.name,
                game_pk=game_pk, guild_id=game.guild_id, game_id=game.game_id, seats=seats,
                result=loads(game.result), force=True)

    async def rebuild_ratings(self) -> Rebuilt:
        """Make every rating again from the games counted, in their order (one transaction)."""
        async with self._write() as session:
            return await (await session.connection()).run_sync(ratings.rebuild_sync)

    # ------------------------------------------------------------------ records

    async def stats(self, guild_id: int, user_id: int) -> Stats:
        """A member's record in a server: games played and won per game, games in progress,
        the median time he takes to move, his moves made in time, his longest game and his
        favourite side."""
        async with self._read() as session:
            rows = (await session.execute(
                sa.select(Game, col(Seat.role)).join(Seat, col(Seat.game_pk) == col(Game.id))
                .where(col(Game.guild_id) == guild_id, col(Seat.user_id) == user_id))).all()
            played: Counter[str] = Counter()
            wins: Counter[str] = Counter()
            sides: Counter[tuple[str, str]] = Counter()
            running = 0
            longest: tuple[int, timedelta] | None = None
            paces: dict[int, timedelta | None] = {}
            for game, role in rows:
                assert game.id is not None
                paces[game.id] = pace_delta(game.pace)
                sides[(game.game_id, role)] += 1
                if game.status == "running":
                    running += 1
                if game.status != "finished" or game.result is None:
                    continue
                played[game.game_id] += 1
                roles = (await self._seat_roles(session, game))
                if outcome_of(loads(game.result), roles, role) in ("won", "shared win"):
                    wins[game.game_id] += 1
                lasted = game.updated_at - game.created_at
                if longest is None or lasted > longest[1]:
                    longest = (game.id, lasted)
            gaps: list[timedelta] = []
            on_time = 0
            if paces:
                moves = (await session.execute(
                    sa.select(col(Move.game_pk), col(Move.seq), col(Move.user_id), col(Move.created_at))
                    .where(col(Move.game_pk).in_(list(paces)), col(Move.kind) == "step")
                    .order_by(col(Move.game_pk), col(Move.seq)))).all()
                before: dict[int, datetime] = {}
                for game_pk, _seq, mover, at in moves:
                    prior = before.get(game_pk)
                    before[game_pk] = at
                    if mover != user_id or prior is None:
                        continue
                    gap = at - prior
                    gaps.append(gap)
                    allowed = paces.get(game_pk)
                    on_time += allowed is None or gap <= allowed
        favourite = sides.most_common(1)
        return Stats(
            user_id=user_id,
            per_game=[GameCount(g, played[g], wins[g]) for g in sorted(played)],
            in_progress=running,
            median_move=statistics.median_low(gaps) if gaps else None,
            moves=len(gaps), on_time=on_time, longest=longest,
            favourite_side=(favourite[0][0][0], favourite[0][0][1], favourite[0][1]) if favourite else None)

    @staticmethod
    async def _seat_roles(session: Any, game: Game) -> list[str]:
        try:
            return list(engine.get(game.game_id).roles(loads(game.options)))
        except (KeyError, ValueError):
            rows = (await session.execute(sa.select(col(Seat.role)).where(col(Seat.game_pk) == game.id))).scalars()
            return list(rows)

    async def history(self, guild_id: int, user_id: int, limit: int = 10) -> list[Finished]:
        """A member's last finished games in a server, the newest first."""
        entry = ratings.person(user_id)
        async with self._read() as session:
            rows = (await session.execute(
                sa.select(Game, col(Seat.role)).join(Seat, col(Seat.game_pk) == col(Game.id))
                .where(col(Game.guild_id) == guild_id, col(Seat.user_id) == user_id, col(Game.status) == "finished")
                .order_by(col(Game.updated_at).desc(), col(Game.id).desc()).limit(limit))).all()
            out = []
            for game, role in rows:
                assert game.id is not None
                result = loads(game.result) or {}
                rated = (await session.execute(sa.select(col(RatedGame.changes)).where(
                    col(RatedGame.game_pk) == game.id))).scalar()
                change = None
                if rated is not None and entry in loads(rated):
                    mu0, s0, mu1, s1 = loads(rated)[entry]
                    change = shown(mu1, s1).value - shown(mu0, s0).value
                try:
                    title = engine.get(game.game_id).title
                except KeyError:
                    title = game.game_id
                out.append(Finished(game.id, game.game_id, title, role,
                                    outcome_of(result, await self._seat_roles(session, game), role),
                                    str(result.get("reason") or ""), game.thread_id, game.updated_at, change))
        return out


def _order(row: Rating) -> tuple[float, float, str]:
    """Leaderboard order: the conservative estimate, then mu, then the entry (stable)."""
    return (-(row.mu - 3 * row.sigma), -row.mu, row.entry)


def _line(rank: int, row: Rating, trend: list[int]) -> RatingLine:
    return RatingLine(rank, row.game_id, row.entry, row.user_id, row.last_name,
                      shown(row.mu, row.sigma, row.games, row.wins), row.mu, row.sigma, trend)
