"""The components of Dirk Henn's Granada: building tiles, starting tiles, money, the yard.

They live in ``data/components.json`` because the rulebook shows them only as pictures: the
file is a reconstruction (``"reconstructed": true``, with a ``note`` saying what fixed each
value) that an owner of the physical game can correct without touching the rules. It is read
and checked once, at import, against everything the rulebook's text fixes; a file that breaks
one of those facts stops the import with a :class:`CityDataError` naming the fact.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).with_name("data") / "components.json"

EDGES = ("n", "e", "s", "w")
SIDES = ("even", "odd")


_CARDS: dict[str, tuple[str, int]] = {}


class CityDataError(ValueError):
    """The component file breaks one of the rulebook's stated facts or its own schema."""


@dataclass(frozen=True)
class Face:
    type: str
    price: int


@dataclass(frozen=True)
class Tile:
    id: str
    moats: frozenset[str]
    even: Face
    odd: Face

    def face(self, side: str) -> Face:
        return self.even if side == "even" else self.odd


@dataclass(frozen=True)
class Catalog:
    reconstructed: bool
    types: tuple[str, ...]
    type_names: dict[str, str]
    currencies: tuple[str, ...]
    values: tuple[int, ...]
    copies: int
    scoring_cards: tuple[str, ...]
    yard_currency: tuple[str, ...]
    colours: tuple[str, ...]
    tiles: dict[str, Tile]
    tile_order: tuple[str, ...]
    money: tuple[str, ...]

    def card(self, cid: str) -> tuple[str, int]:
        """(currency, value) of a money card id ``"orange-7-2"``."""
        known = _CARDS.get(cid)
        if known is None:
            cur, value, _copy = cid.split("-")
            known = _CARDS[cid] = (cur, int(value))
        return known


def _fail(fact: str) -> CityDataError:
    return CityDataError(f"{DATA_FILE.name}: {fact}")


def check(raw: dict[str, Any]) -> Catalog:
    """The catalog of ``raw``, or CityDataError naming the first rulebook fact it breaks."""
    if raw.get("reconstructed") is not True or not raw.get("note"):
        raise _fail("the file must say it is reconstructed and what fixed its values (note)")
    types = tuple(t["id"] for t in raw["building_types"])
    if len(types) != 9 or len(set(types)) != 9:
        raise _fail("there are 9 building types")
    currencies = tuple(raw["currencies"])
    if len(currencies) != 4 or len(set(currencies)) != 4:
        raise _fail("there are 4 currencies")
    values = tuple(raw["money"]["values"])
    copies = int(raw["money"]["copies"])
    if values != tuple(range(1, 10)) or copies != 3:
        raise _fail("money cards have values 1 to 9, three copies of each")
    money = tuple(f"{c}-{v}-{k}" for c in currencies for v in values for k in range(1, copies + 1))
    if len(money) != 108:
        raise _fail("there are 108 money cards")
    scoring = tuple(raw["scoring_cards"])
    if scoring != ("A", "B"):
        raise _fail("there are two scoring cards, A and B")
    spaces = raw["yard_spaces"]
    if [s["space"] for s in spaces] != [1, 2, 3, 4] or sorted(s["currency"] for s in spaces) != sorted(currencies):
        raise _fail("the construction yard has spaces 1 to 4, each allocated a different currency")
    colours = tuple(raw["player_colours"])
    if len(colours) != 6 or len(set(colours)) != 6:
        raise _fail("there are six player colours")
    starts = raw["starting_tiles"]
    if sorted(s["colour"] for s in starts) != sorted(colours) or any(s["moats"] for s in starts):
        raise _fail("there are 6 starting tiles, one per player colour, without moats")
    tiles: dict[str, Tile] = {}
    for t in raw["tiles"]:
        moats = list(t["moats"])
        if len(moats) > 3 or len(set(moats)) != len(moats) or any(m not in EDGES for m in moats):
            raise _fail(f"tile {t['id']}: moats lie on up to three distinct edges (n, e, s, w)")
        even, odd = Face(t["even"]["type"], int(t["even"]["price"])), Face(t["odd"]["type"], int(t["odd"]["price"]))
        if even.price % 2 or odd.price != even.price + 1:
            raise _fail(f"tile {t['id']}: one side shows an even value, the other the next odd value")
        if even.type == odd.type or even.type not in types or odd.type not in types:
            raise _fail(f"tile {t['id']}: the two sides show two different building types")
        if t["id"] in tiles:
            raise _fail(f"tile id {t['id']} appears twice")
        tiles[t["id"]] = Tile(t["id"], frozenset(moats), even, odd)
    if len(tiles) != 54:
        raise _fail("there are 54 building tiles")
    faces = Counter((f.type, f.price) for tile in tiles.values() for f in (tile.even, tile.odd))
    for kind in types:
        if sorted(p for (k, p) in faces if k == kind) != list(range(2, 14)) or any(
                faces[(kind, p)] != 1 for p in range(2, 14)):
            raise _fail(f"there are 12 buildings of type {kind}, valued 2 to 13")
    return Catalog(
        reconstructed=True,
        types=types,
        type_names={t["id"]: t["name"] for t in raw["building_types"]},
        currencies=currencies,
        values=values,
        copies=copies,
        scoring_cards=scoring,
        yard_currency=tuple(s["currency"] for s in spaces),
        colours=colours,
        tiles=tiles,
        tile_order=tuple(tiles),
        money=money,
    )


def load() -> Catalog:
    return check(json.loads(DATA_FILE.read_text(encoding="utf-8")))


CATALOG = load()


def tile(tid: str) -> Tile:
    return CATALOG.tiles[tid]


def is_start(tid: str) -> bool:
    return tid.startswith("start-")


_NO_MOATS: frozenset[str] = frozenset()


def moats_of(tid: str) -> frozenset[str]:
    t = CATALOG.tiles.get(tid)
    return _NO_MOATS if t is None else t.moats


def face(tid: str, side: str) -> Face | None:
    """The building a tile shows on ``side`` (None for a starting tile, which scores nothing)."""
    return None if is_start(tid) else CATALOG.tiles[tid].face(side)


def other(side: str) -> str:
    return "odd" if side == "even" else "even"


def type_name(kind: str) -> str:
    return CATALOG.type_names[kind]


def tile_text(tid: str, side: str) -> str:
    """``"Hospital 9"``: what a tile shows on that side, as players name it."""
    f = face(tid, side)
    if f is None:
        return "the Alhambra"
    return f"{type_name(f.type)} {f.price}"


def card_text(cid: str) -> str:
    cur, value = CATALOG.card(cid)
    return f"{value} {cur}"
