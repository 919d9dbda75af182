"""Scorings A, B and C: majorities of each building type and each city's longest moat.

Only built tiles count (never a supply). Places are ranked by the number of buildings of a
type; the tie-break for every scoring is the most expensive building of that type, and since
each type's twelve buildings carry twelve different prices, it always settles a tie between
players who have built at least one. Dirk (the imaginary third player of the 2-player game)
is ranked for majorities like a player but scores no moats.
"""

from __future__ import annotations

from typing import Any

from engine.granada_city.city import City, longest_moat
from engine.granada_city.data import CATALOG, face

# Multipliers of the number of buildings of that type in all cities (regular scoring) and
# fixed points (simplified scoring), by place.
REGULAR = {"A": [1], "B": [2, 1], "C": [3, 2, 1]}
SIMPLIFIED = {"A": [3], "B": [10, 3], "C": [18, 10, 3]}

DIRK = "dirk"


def built(city: City) -> list[tuple[str, int]]:
    """(type, price) of every building of a city; the starting tile is none."""
    out = []
    for tid, side in city.values():
        f = face(tid, side)
        if f is not None:
            out.append((f.type, f.price))
    return out


def held(tiles: list[list[str]]) -> list[tuple[str, int]]:
    out = []
    for tid, side in tiles:
        f = face(tid, side)
        assert f is not None
        out.append((f.type, f.price))
    return out


def score(card: str, buildings: dict[str, list[tuple[str, int]]], cities: dict[str, City],
          simplified: bool) -> dict[str, Any]:
    """The report of one scoring: who takes which place for each type, the moats, the points.

    ``buildings`` maps every competitor (players and Dirk) to its built buildings; ``cities``
    maps the players (not Dirk) to their cities, for the moats.
    """
    table = (SIMPLIFIED if simplified else REGULAR)[card]
    points = {who: 0 for who in buildings}
    types: dict[str, Any] = {}
    for kind in CATALOG.types:
        counts = {who: [p for (k, p) in have if k == kind] for who, have in buildings.items()}
        total = sum(len(v) for v in counts.values())
        ranked = sorted((who for who in counts if counts[who]), key=lambda w: (-len(counts[w]), -max(counts[w])))
        ranking = []
        for place, who in enumerate(ranked):
            gain = 0
            if place < len(table):
                gain = table[place] if simplified else table[place] * total
            points[who] += gain
            ranking.append({"who": who, "count": len(counts[who]), "best": max(counts[who]), "points": gain})
        types[kind] = {"total": total, "ranking": ranking}
    moats = {who: longest_moat(city) for who, city in cities.items()}
    for who, length in moats.items():
        points[who] += length
    return {"card": card, "simplified": simplified, "types": types, "moats": moats, "points": points}
