"""Tournament pairings, points and standings (issue 29), as pure functions: the service
stores what they decide, the tests check them on hand-worked examples.

Points. A game gives each of its players (the players he placed ahead of + half the players
he tied with) / (seats - 1): a two-seat game 1 for a win, 1/2 for a draw or a shared result,
0 for a loss; at a table of four, 1, 2/3, 1/3 and 0 from first to last. A bye gives 1. A game
a withdrawal forfeits is a loss for the one who withdrew; a game still running at the round's
limit that nobody can claim is a shared result (everyone at the table ties).

Ranking. Points, then the format's tie-breaks, then the rating each player had when the
tournament started, then who signed up first:

* Swiss and pods: *Buchholz* (the sum of the final points of everyone he played: a bye
  adds nothing), then *the sum of the points of the opponents he scored against*, each
  weighted by what he scored against him (Sonneborn-Berger: a win over a strong player is
  worth more than a win over a weak one).
* Round robin: *head-to-head* (his points in the games among the players tied with him),
  then *wins* (games won outright).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

BYE_POINTS = 1.0


@dataclass(frozen=True)
class Played:
    """One finished tournament game (or a bye: one player, ``places`` {player: 1})."""

    round: int
    places: Mapping[int, int]
    """Player -> place at the table (1 best; equal places shared)."""
    sides: Mapping[int, int] = field(default_factory=dict)
    """Player -> seat index he played (0: the game's first role)."""

    @property
    def bye(self) -> bool:
        return len(self.places) == 1


def game_points(places: Mapping[int, int]) -> dict[int, float]:
    """Each player's points from one game (see the module's docstring)."""
    if len(places) == 1:
        return {p: BYE_POINTS for p in places}
    others = len(places) - 1
    return {p: (sum(1 for q in places if places[q] > mine) + 0.5 * sum(1 for q in places if q != p and
                                                                          places[q] == mine)) / others
            for p, mine in places.items()}


def points(games: Sequence[Played]) -> dict[int, float]:
    total: dict[int, float] = defaultdict(float)
    for g in games:
        for p, value in game_points(g.places).items():
            total[p] += value
    return dict(total)


def opponents(games: Sequence[Played]) -> dict[int, list[int]]:
    """Everyone each player met, once per game (a bye: nobody)."""
    met: dict[int, list[int]] = defaultdict(list)
    for g in games:
        for p in g.places:
            met[p] += [q for q in g.places if q != p]
    return dict(met)


@dataclass(frozen=True)
class Standing:
    player: int
    rank: int
    points: float
    tiebreaks: tuple[float, ...]
    games: int


def standings(players: Sequence[int], games: Sequence[Played], fmt: str, seeds: Mapping[int, float]) -> list[Standing]:
    """The ranking of ``players`` (in sign-up order) after ``games``; ``seeds``: their ratings
    when the tournament started. Equal points and tie-breaks share a rank."""
    pts = {p: points(games).get(p, 0.0) for p in players}
    played = {p: sum(1 for g in games if p in g.places and not g.bye) for p in players}
    breaks: dict[int, tuple[float, ...]] = {}
    if fmt == "round_robin":
        wins = {p: sum(1 for g in games if not g.bye and g.places.get(p) == 1
                       and sum(1 for v in g.places.values() if v == 1) == 1) for p in players}
        for p in players:
            tied = {q for q in players if pts[q] == pts[p]}
            head = sum(game_points(g.places)[p] for g in games
                       if p in g.places and not g.bye and set(g.places) <= tied)
            breaks[p] = (head, float(wins[p]))
    else:
        for p in players:
            buchholz = 0.0
            sonneborn = 0.0
            for g in games:
                if p not in g.places or g.bye:
                    continue
                mine = g.places[p]
                for q, theirs in g.places.items():
                    if q == p:
                        continue
                    buchholz += pts.get(q, 0.0)
                    sonneborn += pts.get(q, 0.0) * (1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
            breaks[p] = (buchholz, sonneborn)
    order = {p: i for i, p in enumerate(players)}
    ranked = sorted(players, key=lambda p: (-pts[p], tuple(-b for b in breaks[p]), -seeds.get(p, 0.0), order[p]))
    out: list[Standing] = []
    for i, p in enumerate(ranked):
        same = out and (out[-1].points, out[-1].tiebreaks) == (pts[p], breaks[p])
        out.append(Standing(p, out[-1].rank if same else i + 1, pts[p], breaks[p], played[p]))
    return out


# --------------------------------------------------------------------------- Swiss


def swiss_round(ranked: Sequence[int], games: Sequence[Played]) -> tuple[list[tuple[int, int]], int | None]:
    """One Swiss round for players in standing order (the withdrawn left out): pairs (first
    side, second side) and the player with the bye (None when even).

    The bye goes to the lowest-ranked player who has not had one. Then the highest-ranked
    player still unpaired meets the highest-ranked he has not met yet, backtracking when a
    choice leaves the rest unpairable without a repeat (only when there is no way at all are
    repeats allowed). Sides: the one who played the first side less often takes it (then the
    one who had the second side last, then the higher ranked)."""
    players = list(ranked)
    byes = {p for g in games if g.bye for p in g.places}
    bye = None
    if len(players) % 2:
        bye = next((p for p in reversed(players) if p not in byes), players[-1])
        players.remove(bye)
    met = opponents(games)
    pairs = (_pair(players, met, False, [PAIRING_BUDGET]) or _pair(players, met, True, [PAIRING_BUDGET])
             or [])
    return [_sides(a, b, games, players) for a, b in pairs], bye


PAIRING_BUDGET = 200_000
"""Choices the search for a round without repeats may try before it settles for repeats
(a long Swiss of few players can leave no way without one, and proving that could take
exponential time)."""


def _pair(players: list[int], met: Mapping[int, list[int]], allow_repeat: bool,
          budget: list[int]) -> list[tuple[int, int]] | None:
    if not players:
        return []
    top, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        if not allow_repeat and other in met.get(top, []):
            continue
        budget[0] -= 1
        if budget[0] < 0:
            return None
        found = _pair(rest[:i] + rest[i + 1:], met, allow_repeat, budget)
        if found is not None:
            return [(top, other), *found]
    return None


def side_history(player: int, games: Sequence[Played]) -> tuple[int, int | None]:
    """(games on the first side - games on the second, the side of his last game or None)."""
    balance, last = 0, None
    for g in sorted(games, key=lambda g: g.round):
        side = g.sides.get(player)
        if side is None:
            continue
        balance += 1 if side == 0 else -1
        last = side
    return balance, last


def _sides(a: int, b: int, games: Sequence[Played], order: Sequence[int]) -> tuple[int, int]:
    (ba, la), (bb, lb) = side_history(a, games), side_history(b, games)
    key_a = (ba, 0 if la == 1 else 1, order.index(a))
    key_b = (bb, 0 if lb == 1 else 1, order.index(b))
    return (a, b) if key_a <= key_b else (b, a)


# --------------------------------------------------------------------------- round robin


def round_robin(players: Sequence[int], double: bool = False) -> list[list[tuple[int, int]]]:
    """Every round of a round robin by the circle method: the first player stays, the others
    turn one place each round; with an odd number a bye fills the circle (whoever meets it
    sits out). Sides alternate: the fixed player's by round, the others' by their place on
    the circle. ``double``: the whole cycle again with the sides swapped."""
    circle: list[int | None] = list(players) + ([None] if len(players) % 2 else [])
    n = len(circle)
    rounds: list[list[tuple[int, int]]] = []
    for r in range(n - 1):
        pairs: list[tuple[int, int]] = []
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if a is None or b is None:
                continue
            swap = r % 2 == 1 if i == 0 else i % 2 == 1
            pairs.append((b, a) if swap else (a, b))
        rounds.append(pairs)
        circle = [circle[0], circle[-1], *circle[1:-1]]
    if double:
        rounds += [[(b, a) for a, b in pairs] for pairs in rounds]
    return rounds


def round_robin_bye(players: Sequence[int], pairs: Sequence[tuple[int, int]]) -> int | None:
    playing = {p for pair in pairs for p in pair}
    idle = [p for p in players if p not in playing]
    return idle[0] if idle else None


# --------------------------------------------------------------------------- pods


def table_sizes(count: int, largest: int, smallest: int) -> list[int]:
    """Tables for ``count`` players, none over ``largest`` or under ``smallest`` seats, as
    few and as even as can be, the larger first (7 at tables of up to 4: 4 and 3)."""
    if count < smallest:
        raise ValueError(f"{count} players cannot fill a table of {smallest}")
    tables = -(-count // largest)
    while True:
        base, extra = divmod(count, tables)
        if base >= smallest:
            return [base + 1] * extra + [base] * (tables - extra)
        tables -= 1
        if tables == 0:
            raise ValueError(f"{count} players cannot be seated at tables of {smallest} to {largest}")


def pods_round(ranked: Sequence[int], round_no: int, largest: int, smallest: int) -> list[list[int]]:
    """Tables of one round, grouped by standing (the leaders together), each table's seats
    rotated one place per round so that nobody keeps the first seat."""
    tables: list[list[int]] = []
    start = 0
    for size in table_sizes(len(ranked), largest, smallest):
        group = list(ranked[start:start + size])
        start += size
        shift = (round_no - 1) % size
        tables.append(group[shift:] + group[:shift])
    return tables
