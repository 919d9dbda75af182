"""Ratings (issue 29): one per player per game per Discord server, by the ``openskill``
package's Plackett-Luce model (2 to 6 seats, ranks and shared places; no rating maths of
our own).

What counts. A game that finishes by the rules, by a resignation, a claim or a deadline, in
a Discord server (``guild_id``; 0 for a game played outside one), between members. Not:
an aborted game (it never finishes), a game a manager marked unrated (``game_rated``), an
imported game unless a manager rates it, a game with a terminal (hot-seat) seat, a game one
member plays against himself. The built-in player is rated too, one entry per level and game
(``bot:easy``, ``bot:normal``, ``bot:hard``; Sabika's Yusuf ``bot:yusuf`` in a solo game),
so that a player sees where he stands against each level; but a game with the built-in
player (a solo game included) counts only where the server allows it (``/server ratings
vs_bot:true``, off by default), and then for everyone in it. When two of a game's seats
are the built-in player at one level, the better placed one is its entry.

A seat that a person left during the game (a resignation in a game of 3 or more seats, a
seat handed to the built-in player at a deadline) counts for that person, placed after all
who stayed (of several who left, the one who left last is placed first): leaving is never a
way round a loss. The built-in player who finished the seat is not rated.

Ranking. The game's result ranks its seats: the winner(s) first (``winner``, or
``winners`` for a shared win), then the others by their score when the result scores the
roles (Dirk Henn's Granada, Sabika), equal places shared; a two-seat game without a winner
is a draw.

Shown: the conservative estimate mu - 3 sigma, as ``1000 + 40 (mu - 3 sigma)`` (a newcomer
shows 1000 and rises as his games make the estimate surer), "provisional" while sigma is
at least :data:`PROVISIONAL_SIGMA` (6.5: about ten games).

Derived data. Each rating change is written in the transaction that records the result
(``ServiceCore._record``, ``LobbyCommands._give_up``) with a ``rated_game`` row, unique per
game, which keeps the game's ranking: a crash never counts a game twice or not at all.
:func:`rebuild_sync` makes every rating again from those rows in their order and gives the
same numbers to the last bit (``alcazaba ratings rebuild``). On PostgreSQL a game locks its
entries' rows (in one order) before it reads them, so that two games sharing an entry are
counted one after the other, in the order of their ``rated_game`` ids.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import sqlalchemy as sa
from openskill.models import PlackettLuce
from sqlalchemy.dialects import postgresql, sqlite

import engine
from bot.models import CampaignGuild, GameRated, RatedGame, Rating, dumps, loads, utcnow
from bot.service.levels import game_level, seat_level

MODEL = PlackettLuce()
"""The model with openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300)."""
PROVISIONAL_SIGMA = 6.5
"""A rating is provisional while its sigma is at least this (some ten two-player games)."""
SCALE_BASE = 1000
SCALE_STEP = 40
DEPARTED = "departed"
"""The seat preference that names the person who left a seat to the built-in player."""

_RATING: sa.Table = Rating.__table__  # type: ignore[attr-defined]
_RATED: sa.Table = RatedGame.__table__  # type: ignore[attr-defined]
_FLAG: sa.Table = GameRated.__table__  # type: ignore[attr-defined]
_GUILD: sa.Table = CampaignGuild.__table__  # type: ignore[attr-defined]

_ALREADY = sa.select(_RATED.c.id).where(_RATED.c.game_pk == sa.bindparam("pk"))
_FLAG_OF = sa.select(_FLAG.c.rated).where(_FLAG.c.game_pk == sa.bindparam("pk"))
_VS_BOT = sa.select(_GUILD.c.ratings_vs_bot).where(_GUILD.c.guild_id == sa.bindparam("guild"))
_ONE = (sa.select(_RATING.c.mu, _RATING.c.sigma, _RATING.c.games, _RATING.c.wins)
        .where(_RATING.c.guild_id == sa.bindparam("guild"), _RATING.c.game_id == sa.bindparam("game"),
               _RATING.c.entry == sa.bindparam("entry")))
_ONE_LOCKED = _ONE.with_for_update()
_UPDATE = (sa.update(_RATING)
           .where(_RATING.c.guild_id == sa.bindparam("k_guild"), _RATING.c.game_id == sa.bindparam("k_game"),
                  _RATING.c.entry == sa.bindparam("k_entry")))
_INSERT_RATED = sa.insert(_RATED)
_NEW = {name: dialect.insert(_RATING).on_conflict_do_nothing()
        for name, dialect in (("sqlite", sqlite), ("postgresql", postgresql))}


class SeatFacts(Protocol):
    """What a seat row tells the ranking (a ``Seat``, or a row read by Core)."""

    role: str
    user_id: int | None
    is_bot: bool
    display_name: str
    prefs: str


@dataclass(frozen=True)
class Placed:
    """One entry of a game's ranking."""

    entry: str
    rank: int
    user_id: int | None
    name: str


@dataclass(frozen=True)
class Shown:
    """A rating as people read it."""

    value: int
    provisional: bool
    games: int
    wins: int


def shown(mu: float, sigma: float, games: int = 0, wins: int = 0) -> Shown:
    """The familiar number of a rating (see the module's docstring)."""
    return Shown(max(0, round(SCALE_BASE + SCALE_STEP * (mu - 3 * sigma))), sigma >= PROVISIONAL_SIGMA,
                 games, wins)


def person(user_id: int) -> str:
    return f"u:{user_id}"


def level_entry(level: str) -> str:
    return f"bot:{level}"


def _role_scores(result: Mapping[str, Any], roles: Iterable[str]) -> dict[str, float]:
    """The result's score of each role, when it scores every role with a number (else {})."""
    score = result.get("score")
    if not isinstance(score, Mapping):
        return {}
    found = {r: score.get(r) for r in roles}
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in found.values()):
        return {}
    return {r: float(v) for r, v in found.items() if v is not None}


def place_roles(roles: Sequence[str], result: Mapping[str, Any]) -> dict[str, int]:
    """Each role's place (1 best; equal places shared) from a game's result dict."""
    winners = result.get("winners")
    if not isinstance(winners, list) or not winners:
        winners = [result["winner"]] if result.get("winner") else []
    scores = _role_scores(result, roles)
    keys = {r: (0 if r in winners else 1, -scores.get(r, 0.0)) for r in roles}
    distinct = sorted(set(keys.values()))
    return {r: distinct.index(keys[r]) + 1 for r in roles}


def ranking(game_id: str, seats: Sequence[SeatFacts], result: Mapping[str, Any], *,
            vs_bot: bool) -> list[Placed] | str:
    """The entries a finished game rates and their places, or why it is not rated.

    ``seats``: the game's seats in the game's role order."""
    if not seats:
        return "nobody played it"
    prefs = [loads(s.prefs) or {} for s in seats]
    level = game_level(prefs)
    roles = [s.role for s in seats]
    automaton = engine.get(game_id).SOLO_OPPONENT if len(seats) == 1 else None
    places = place_roles([*roles, automaton] if automaton else roles, result)
    if automaton and automaton not in _role_scores(result, [automaton]):
        places[automaton] = 1 if not result.get("winner") else 2
    last = max(places.values()) + 1
    # Those who left: after everyone who stayed, the one who left last first.
    leaving = sorted((str(p[DEPARTED].get("at") or ""), i) for i, p in enumerate(prefs)
                     if isinstance(p.get(DEPARTED), dict))
    left_rank = {i: last + n for n, (_at, i) in enumerate(reversed(leaving))}
    placed: dict[str, Placed] = {}
    people: set[int] = set()
    bots = False

    def put(entry: str, rank: int, user_id: int | None, name: str) -> None:
        held = placed.get(entry)
        if held is None or rank < held.rank:
            placed[entry] = Placed(entry, rank, user_id, name)

    for index, (seat, pref) in enumerate(zip(seats, prefs, strict=True)):
        gone = pref.get(DEPARTED)
        if isinstance(gone, dict) and isinstance(gone.get("user_id"), int):
            uid = int(gone["user_id"])
            if uid in people:
                return "one member held two of its seats"
            people.add(uid)
            placed[person(uid)] = Placed(person(uid), left_rank.get(index, last), uid, str(gone.get("name") or ""))
            continue
        if seat.is_bot:
            bots = True
            lvl = seat_level(pref, level)
            put(level_entry(lvl), places[seat.role], None, lvl)
        elif seat.user_id is None:
            return "a seat was played at the terminal table"
        else:
            if seat.user_id in people:
                return "one member held two of its seats"
            people.add(seat.user_id)
            placed[person(seat.user_id)] = Placed(person(seat.user_id), places[seat.role], seat.user_id,
                                                  seat.display_name)
    if automaton:
        bots = True
        put(level_entry(automaton), places[automaton], None, automaton)
    if not people:
        return "no member played it"
    if len(placed) < 2:
        return "it was played alone"
    if bots and not vs_bot:
        return "games against the built-in player do not count on this server"
    # Places renumbered densely in entry order of merit (a merged bot entry may leave a gap).
    distinct = sorted({p.rank for p in placed.values()})
    return sorted((Placed(p.entry, distinct.index(p.rank) + 1, p.user_id, p.name) for p in placed.values()),
                  key=lambda p: (p.rank, p.entry))


def rate(before: Mapping[str, tuple[float, float]], placed: Sequence[Placed]) -> dict[str, tuple[float, float]]:
    """The (mu, sigma) of each entry after the game (openskill's Plackett-Luce)."""
    teams = [[MODEL.rating(mu=before[p.entry][0], sigma=before[p.entry][1])] for p in placed]
    out = MODEL.rate(teams, ranks=[float(p.rank) for p in placed])
    return {p.entry: (float(team[0].mu), float(team[0].sigma)) for p, team in zip(placed, out, strict=True)}


def won(placed: Sequence[Placed], entry: Placed) -> bool:
    """A first place that not everybody shares (a draw is no win)."""
    return entry.rank == 1 and any(p.rank > 1 for p in placed)


def ranks_json(placed: Sequence[Placed]) -> str:
    return dumps([[p.entry, p.rank, p.user_id, p.name] for p in placed])


def ranks_of(text: str) -> list[Placed]:
    return [Placed(str(e), int(r), None if u is None else int(u), str(n)) for e, r, u, n in loads(text)]


Fetch = Callable[[sa.Executable, Mapping[str, Any]], Awaitable[Sequence[Any]]]
Run = Callable[[sa.Executable, Mapping[str, Any]], Awaitable[None]]


async def rate_finished(fetch: Fetch, run: Run, dialect: str, *, game_pk: int, guild_id: int | None, game_id: str,
                        seats: Sequence[SeatFacts], result: Mapping[str, Any], force: bool = False) -> str | None:
    """Count a game that just finished, in the caller's transaction: its ratings and its
    ``rated_game`` row. Returns why it does not count (None: it counted, or had counted).
    ``force``: a manager rates it (the game's own flag is not read)."""
    if await fetch(_ALREADY, {"pk": game_pk}):
        return None
    if not force:
        flag = await fetch(_FLAG_OF, {"pk": game_pk})
        if flag and not flag[0][0]:
            return "it is marked unrated"
    guild = int(guild_id or 0)
    setting = await fetch(_VS_BOT, {"guild": guild}) if guild else []
    placed = ranking(game_id, seats, result, vs_bot=bool(setting and setting[0][0]))
    if isinstance(placed, str):
        return placed
    new = _NEW["postgresql" if dialect == "postgresql" else "sqlite"]
    now = utcnow()
    for p in sorted(placed, key=lambda p: p.entry):
        await run(new, {"guild_id": guild, "game_id": game_id, "entry": p.entry, "user_id": p.user_id,
                        "mu": MODEL.mu, "sigma": MODEL.sigma, "games": 0, "wins": 0, "last_name": p.name[:100],
                        "updated_at": now})
    before: dict[str, tuple[float, float]] = {}
    counts: dict[str, tuple[int, int]] = {}
    for p in sorted(placed, key=lambda p: p.entry):  # one locking order: no deadlock between games
        row = (await fetch(_ONE_LOCKED, {"guild": guild, "game": game_id, "entry": p.entry}))[0]
        before[p.entry] = (float(row[0]), float(row[1]))
        counts[p.entry] = (int(row[2]), int(row[3]))
    after = rate(before, placed)
    for p in placed:
        games, wins = counts[p.entry]
        await run(_UPDATE, {"k_guild": guild, "k_game": game_id, "k_entry": p.entry, "mu": after[p.entry][0],
                            "sigma": after[p.entry][1], "games": games + 1, "wins": wins + won(placed, p),
                            "last_name": p.name[:100], "updated_at": now})
    changes = {e: [*before[e], *after[e]] for e in after}
    await run(_INSERT_RATED, {"game_pk": game_pk, "guild_id": guild, "game_id": game_id,
                              "ranks": ranks_json(placed), "changes": dumps(changes), "created_at": now})
    return None


# --------------------------------------------------------------------------- rebuilding


@dataclass(frozen=True)
class Rebuilt:
    """What a rebuild did: games replayed, ratings written, and the ratings whose stored
    values it did not reproduce exactly (none on a database this code wrote)."""

    games: int
    ratings: int
    differed: list[str]


def replay(rows: Iterable[tuple[int, str, str]]) -> tuple[dict[tuple[int, str, str], list[Any]],
                                                         list[tuple[int, str]]]:
    """Ratings made from ``rated_game`` rows (guild, game, ranks) in order: {(guild, game,
    entry): [mu, sigma, games, wins, user id, name]}, and the new ``changes`` text of each
    row, by its index."""
    table: dict[tuple[int, str, str], list[Any]] = {}
    changes: list[tuple[int, str]] = []
    for index, (guild, game_id, ranks) in enumerate(rows):
        placed = ranks_of(ranks)
        before = {}
        for p in placed:
            held = table.setdefault((guild, game_id, p.entry), [MODEL.mu, MODEL.sigma, 0, 0, p.user_id, p.name])
            before[p.entry] = (held[0], held[1])
        after = rate(before, placed)
        for p in placed:
            held = table[(guild, game_id, p.entry)]
            held[0], held[1] = after[p.entry]
            held[2] += 1
            held[3] += int(won(placed, p))
            held[4], held[5] = p.user_id, p.name[:100]
        changes.append((index, dumps({e: [*before[e], *after[e]] for e in after})))
    return table, changes


def rebuild_sync(conn: sa.Connection) -> Rebuilt:
    """Make every rating again from the ``rated_game`` rows, in their order, in the caller's
    transaction; report the ratings whose stored (mu, sigma, games, wins) differ."""
    rows = conn.execute(sa.select(_RATED.c.id, _RATED.c.guild_id, _RATED.c.game_id, _RATED.c.ranks)
                        .order_by(_RATED.c.id)).all()
    table, changes = replay((int(r.guild_id), str(r.game_id), str(r.ranks)) for r in rows)
    stored = {(int(r.guild_id), str(r.game_id), str(r.entry)): (r.mu, r.sigma, r.games, r.wins)
              for r in conn.execute(sa.select(_RATING)).all()}
    differed = sorted(f"{g}/{game}/{e}" for (g, game, e), v in table.items()
                      if stored.get((g, game, e)) != (v[0], v[1], v[2], v[3]))
    differed += sorted(f"{g}/{game}/{e}" for (g, game, e) in stored if (g, game, e) not in table)
    now = utcnow()
    conn.execute(sa.delete(_RATING))
    if table:
        conn.execute(sa.insert(_RATING), [
            {"guild_id": g, "game_id": game, "entry": e, "mu": v[0], "sigma": v[1], "games": v[2], "wins": v[3],
             "user_id": v[4], "last_name": v[5], "updated_at": now} for (g, game, e), v in table.items()])
    for index, text in changes:
        conn.execute(sa.update(_RATED).where(_RATED.c.id == rows[index].id).values(changes=text))
    return Rebuilt(len(rows), len(table), differed)


def backfill_sync(conn: sa.Connection) -> int:
    """Count every finished game not counted yet, in the order the games finished (their
    last update, then id): migration 0010 runs it on a database of an older release, where
    no server has allowed games against the built-in player yet. Returns how many counted."""
    games = conn.execute(sa.text(
        "SELECT g.id, g.guild_id, g.game_id, g.result FROM game g WHERE g.status = 'finished' "
        "AND g.result IS NOT NULL AND NOT EXISTS (SELECT 1 FROM rated_game r WHERE r.game_pk = g.id) "
        "ORDER BY g.updated_at, g.id")).all()
    counted = 0
    for game_pk, guild_id, game_id, result in games:
        seats = conn.execute(sa.text("SELECT role, user_id, is_bot, display_name, prefs FROM seat "
                                     "WHERE game_pk = :pk ORDER BY id"), {"pk": game_pk}).all()
        ordered = _role_order(str(game_id), [_SeatRow(*s) for s in seats], conn, int(game_pk))
        placed = ranking(str(game_id), ordered, loads(result) or {}, vs_bot=False)
        if isinstance(placed, str):
            continue
        guild = int(guild_id or 0)
        before: dict[str, tuple[float, float]] = {}
        held: dict[str, tuple[int, int]] = {}
        for p in placed:
            row = conn.execute(sa.select(_RATING.c.mu, _RATING.c.sigma, _RATING.c.games, _RATING.c.wins).where(
                _RATING.c.guild_id == guild, _RATING.c.game_id == game_id, _RATING.c.entry == p.entry)).first()
            if row is None:
                conn.execute(sa.insert(_RATING).values(guild_id=guild, game_id=game_id, entry=p.entry,
                                                       user_id=p.user_id, mu=MODEL.mu, sigma=MODEL.sigma, games=0,
                                                       wins=0, last_name=p.name[:100], updated_at=utcnow()))
                before[p.entry], held[p.entry] = (MODEL.mu, MODEL.sigma), (0, 0)
            else:
                before[p.entry], held[p.entry] = (float(row[0]), float(row[1])), (int(row[2]), int(row[3]))
        after = rate(before, placed)
        for p in placed:
            conn.execute(sa.update(_RATING).where(
                _RATING.c.guild_id == guild, _RATING.c.game_id == game_id, _RATING.c.entry == p.entry).values(
                mu=after[p.entry][0], sigma=after[p.entry][1], games=held[p.entry][0] + 1,
                wins=held[p.entry][1] + won(placed, p), last_name=p.name[:100]))
        conn.execute(sa.insert(_RATED).values(
            game_pk=game_pk, guild_id=guild, game_id=game_id, ranks=ranks_json(placed),
            changes=dumps({e: [*before[e], *after[e]] for e in after}), created_at=utcnow()))
        counted += 1
    return counted


@dataclass
class _SeatRow:
    role: str
    user_id: int | None
    is_bot: bool
    display_name: str
    prefs: str


def _role_order(game_id: str, seats: list[_SeatRow], conn: sa.Connection, game_pk: int) -> list[_SeatRow]:
    """The seats in the game's role order (the engine's, when it is installed; else as stored)."""
    try:
        import engine

        module = engine.get(game_id)
        options = loads(conn.execute(sa.text("SELECT options FROM game WHERE id = :pk"), {"pk": game_pk}).scalar())
        order = {r: i for i, r in enumerate(module.roles(options or {}))}
    except Exception:
        return seats
    return sorted(seats, key=lambda s: order.get(s.role, len(order)))


def mark_departed(seat: Any) -> None:
    """Note on a seat that its person leaves it to the built-in player (before the seat row
    changes hands): the game then counts for him, placed last."""
    if seat.is_bot or seat.user_id is None:
        return
    prefs = loads(seat.prefs) or {}
    prefs[DEPARTED] = {"user_id": int(seat.user_id), "name": str(seat.display_name or ""),
                       "at": utcnow().isoformat()}
    seat.prefs = dumps(prefs)
