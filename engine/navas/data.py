"""The components of 1212 (board, unit markers, combat and special cards, reference cards).

They live in ``data/navas.json`` because the rulebook shows them only as pictures: the file
is a reconstruction (``"reconstructed": true``) that an owner of the physical game can correct
without touching the rules. It is read and checked once, at import; a malformed file stops the
import with a :class:`NavasDataError` that names the bad entry, instead of a confusing failure
in the middle of a game.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).with_name("data") / "navas.json"

SIDES = ("christian", "muslim")
ICONS = ("archer", "cavalry")
KINGDOMS = ("aragon", "castile", "navarre")
ZONE_CAPACITY = 3
POWER_FACES = (2, 1)
SPECIAL_TIMINGS = (
    "own-turn",
    "own-turn-start",
    "before-own-attack",
    "maintenance-start",
    "opponent-attack-on-camp",
    "opponent-charge-clears-zone",
    "after-karr-declaration",
    "volunteers-eliminated",
)


class NavasDataError(ValueError):
    """The component file breaks one of the rulebook's stated facts or its own schema."""


@dataclass(frozen=True)
class Unit:
    id: str
    name: str
    kind: str
    side: str
    deploy: str
    icons: tuple[str, ...]
    star: bool
    immobile: bool

    @property
    def column(self) -> str:
        return self.deploy[0]


@dataclass(frozen=True)
class CombatCard:
    id: str
    muslim: int
    christian: int
    arms: str

    def value(self, side: str) -> int:
        return self.muslim if side == "muslim" else self.christian


@dataclass(frozen=True)
class SpecialCard:
    id: str
    side: str
    name: str
    unit_kind: str
    timing: str
    text: str


@dataclass(frozen=True)
class Catalog:
    reconstructed: bool
    note: str
    components: dict[str, int]
    columns: tuple[str, ...]
    rows: tuple[int, ...]
    muslim_rows: tuple[int, ...]
    christian_rows: tuple[int, ...]
    christian_forward: int
    column_kingdoms: dict[str, str]
    kingdoms: dict[str, dict[str, str]]
    camp: str
    reference: dict[str, dict[str, dict[str, int]]]
    special_modifiers: dict[str, int]
    units: dict[str, Unit]
    unit_order: tuple[str, ...]
    cards: dict[str, CombatCard]
    card_order: tuple[str, ...]
    specials: dict[str, SpecialCard]
    special_order: dict[str, tuple[str, ...]]
    zones: tuple[str, ...]


def _fail(where: str, what: str) -> NavasDataError:
    return NavasDataError(f"{DATA_FILE.name}: {where}: {what}")


def _req(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise _fail(where, f"missing key {key!r}")
    value = obj[key]
    if isinstance(value, bool) and kind is int:
        raise _fail(f"{where}.{key}", "must be an integer, not a boolean")
    if not isinstance(value, kind):
        raise _fail(f"{where}.{key}", f"must be {getattr(kind, '__name__', kind)}, got {type(value).__name__}")
    return value


def parse(raw: Any) -> Catalog:
    """Check a decoded component file against the rulebook's stated facts and build the catalog."""
    if not isinstance(raw, dict):
        raise _fail("top level", "must be an object")
    reconstructed = _req(raw, "reconstructed", bool, "top level")
    note = _req(raw, "note", str, "top level")
    if reconstructed and not note.strip():
        raise _fail("note", "a reconstructed file must say what was reconstructed")
    components = _req(raw, "components", dict, "top level")
    for key in ("unit_markers", "combat_cards", "reference_cards", "special_cards"):
        _req(components, key, int, "components")

    board = _req(raw, "board", dict, "top level")
    columns = tuple(_req(board, "columns", list, "board"))
    rows = tuple(_req(board, "rows", list, "board"))
    if len(columns) * len(rows) != 18:
        raise _fail("board", f"the rulebook's board has 18 zones, these columns and rows make {len(columns) * len(rows)}")
    if len(columns) != 3:
        raise _fail("board.columns", "the Christian army has three columns, one per king")
    areas = _req(board, "areas", dict, "board")
    muslim_rows = tuple(_req(areas, "muslim", list, "board.areas"))
    christian_rows = tuple(_req(areas, "christian", list, "board.areas"))
    if sorted(muslim_rows + christian_rows) != sorted(rows) or len(muslim_rows) * 3 != 9 or len(christian_rows) * 3 != 9:
        raise _fail("board.areas", "the two areas must split the rows into 9 zones each")
    forward = _req(board, "christian_forward", int, "board")
    if forward not in (-1, 1):
        raise _fail("board.christian_forward", "must be -1 or 1")
    column_kingdoms = dict(_req(board, "column_kingdoms", dict, "board"))
    if sorted(column_kingdoms) != sorted(columns) or sorted(column_kingdoms.values()) != sorted(KINGDOMS):
        raise _fail("board.column_kingdoms", "each column belongs to exactly one of Aragon, Castile, Navarre")
    zones = tuple(f"{c}{r}" for r in rows for c in columns)
    camp = _req(board, "camp", str, "board")
    if camp not in zones or int(camp[1:]) not in muslim_rows:
        raise _fail("board.camp", "al-Nasir's camp must be a zone of the Muslim area")
    kingdoms = _req(raw, "kingdoms", dict, "top level")
    if sorted(kingdoms) != sorted(KINGDOMS):
        raise _fail("kingdoms", "must describe aragon, castile and navarre")

    reference = _req(raw, "reference_cards", dict, "top level")
    needed = {"archers": ("cost", "damage"), "standard": ("cost", "modifier"), "charge": ("cost", "modifier"),
              "move": ("cost",), "rally": ("cost",), "switch": ("cost", "shield_extra")}
    for side in SIDES:
        table = _req(reference, side, dict, "reference_cards")
        for action, keys in needed.items():
            entry = _req(table, action, dict, f"reference_cards.{side}")
            for key in keys:
                _req(entry, key, int, f"reference_cards.{side}.{action}")
    _req(_req(reference["muslim"], "karr", dict, "reference_cards.muslim"), "modifier", int,
         "reference_cards.muslim.karr")
    _req(reference["christian"]["move"], "empty_muslim_area_extra", int, "reference_cards.christian.move")
    _req(_req(reference["christian"], "for_the_king", dict, "reference_cards.christian"), "modifier", int,
         "reference_cards.christian.for_the_king")
    special_modifiers = _req(raw, "special_modifiers", dict, "top level")
    for key in ("camp_defense", "volunteers_attack", "volunteers_defense", "special_card_damage",
                "special_card_attack", "special_card_action_points"):
        _req(special_modifiers, key, int, "special_modifiers")

    units: dict[str, Unit] = {}
    per_zone: dict[str, list[str]] = {}
    for i, entry in enumerate(_req(raw, "units", list, "top level")):
        where = f"units[{i}]"
        uid = _req(entry, "id", str, where)
        where = f"unit {uid}"
        if uid in units:
            raise _fail(where, "duplicate id")
        side = _req(entry, "side", str, where)
        if side not in SIDES:
            raise _fail(where, f"side must be one of {SIDES}")
        deploy = _req(entry, "deploy", str, where)
        if deploy not in zones:
            raise _fail(where, f"deployment zone {deploy!r} is not on the board")
        area_rows = muslim_rows if side == "muslim" else christian_rows
        if int(deploy[1:]) not in area_rows:
            raise _fail(where, f"a {side} unit must deploy in the {side} area, not {deploy}")
        icons = tuple(_req(entry, "icons", list, where))
        if any(icon not in ICONS for icon in icons) or len(set(icons)) != len(icons):
            raise _fail(where, f"icons must be distinct values among {ICONS}")
        units[uid] = Unit(uid, _req(entry, "name", str, where), _req(entry, "kind", str, where), side, deploy,
                          icons, _req(entry, "star", bool, where), _req(entry, "immobile", bool, where))
        per_zone.setdefault(deploy, []).append(uid)
    if len(units) != components["unit_markers"]:
        raise _fail("units", f"the components list {components['unit_markers']} unit markers, the file has {len(units)}")
    for zone, ids in per_zone.items():
        if len(ids) > ZONE_CAPACITY:
            raise _fail(f"zone {zone}", f"{len(ids)} units deploy there, over the limit of {ZONE_CAPACITY} per zone")
    nasir = [u for u in units.values() if u.kind == "al-nasir"]
    if len(nasir) != 1 or nasir[0].deploy != camp:
        raise _fail("units", f"exactly one al-Nasir unit must deploy in the camp {camp}")

    cards: dict[str, CombatCard] = {}
    for i, entry in enumerate(_req(raw, "combat_cards", list, "top level")):
        cid = _req(entry, "id", str, f"combat_cards[{i}]")
        where = f"combat card {cid}"
        if cid in cards:
            raise _fail(where, "duplicate id")
        green = _req(entry, "muslim", int, where)
        red = _req(entry, "christian", int, where)
        if not (1 <= green <= 6 and 1 <= red <= 6):
            raise _fail(where, "card numbers run from 1 to 6")
        arms = _req(entry, "arms", str, where)
        if arms not in KINGDOMS:
            raise _fail(where, f"coat of arms must be one of {KINGDOMS}")
        cards[cid] = CombatCard(cid, green, red, arms)
    if len(cards) != components["combat_cards"]:
        raise _fail("combat_cards", f"the deck has {components['combat_cards']} cards, the file has {len(cards)}")

    specials: dict[str, SpecialCard] = {}
    order: dict[str, list[str]] = {side: [] for side in SIDES}
    kinds = {(u.side, u.kind) for u in units.values()}
    for i, entry in enumerate(_req(raw, "special_cards", list, "top level")):
        sid = _req(entry, "id", str, f"special_cards[{i}]")
        where = f"special card {sid}"
        if sid in specials:
            raise _fail(where, "duplicate id")
        side = _req(entry, "side", str, where)
        if side not in SIDES:
            raise _fail(where, f"side must be one of {SIDES}")
        kind = _req(entry, "unit_kind", str, where)
        if (side, kind) not in kinds:
            raise _fail(where, f"no {side} unit of kind {kind!r} on the board for the card to relate to")
        timing = _req(entry, "timing", str, where)
        if timing not in SPECIAL_TIMINGS:
            raise _fail(where, f"timing must be one of {SPECIAL_TIMINGS}")
        specials[sid] = SpecialCard(sid, side, _req(entry, "name", str, where), kind, timing,
                                    _req(entry, "text", str, where))
        order[side].append(sid)
    if len(specials) != components["special_cards"] or any(len(v) != len(specials) // 2 for v in order.values()):
        raise _fail("special_cards", f"{components['special_cards']} special cards, half of them for each side")

    return Catalog(
        reconstructed=reconstructed, note=note, components=dict(components), columns=columns, rows=rows,
        muslim_rows=muslim_rows, christian_rows=christian_rows, christian_forward=forward,
        column_kingdoms=column_kingdoms, kingdoms={k: dict(v) for k, v in kingdoms.items()}, camp=camp,
        reference=reference, special_modifiers=dict(special_modifiers), units=units,
        unit_order=tuple(units), cards=cards, card_order=tuple(cards), specials=specials,
        special_order={side: tuple(v) for side, v in order.items()}, zones=zones,
    )


def load(path: Path = DATA_FILE) -> Catalog:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise NavasDataError(f"{path.name}: not valid JSON: {e}") from e
    return parse(raw)


CATALOG = load()

# Board geometry, computed once: the rules ask these questions at every step.
ZONES = CATALOG.zones
COLUMN_INDEX = {c: i for i, c in enumerate(CATALOG.columns)}
ROW_INDEX = {r: i for i, r in enumerate(CATALOG.rows)}


def col(zone: str) -> str:
    return zone[0]


def row(zone: str) -> int:
    return int(zone[1:])


def zone_at(column_index: int, row_number: int) -> str | None:
    if 0 <= column_index < len(CATALOG.columns) and row_number in ROW_INDEX:
        return f"{CATALOG.columns[column_index]}{row_number}"
    return None


def distance(a: str, b: str) -> int:
    """Zones apart, diagonals counting as one step (attacks and Muslim moves go any direction)."""
    return max(abs(COLUMN_INDEX[col(a)] - COLUMN_INDEX[col(b)]), abs(row(a) - row(b)))


def in_muslim_area(zone: str) -> bool:
    return row(zone) in CATALOG.muslim_rows


def ahead(zone: str) -> str | None:
    """The zone in front of ``zone`` for the Christian columns (toward al-Nasir's camp)."""
    return zone_at(COLUMN_INDEX[col(zone)], row(zone) + CATALOG.christian_forward)


def behind(zone: str) -> str | None:
    return zone_at(COLUMN_INDEX[col(zone)], row(zone) - CATALOG.christian_forward)


NEIGHBOURS: dict[str, tuple[str, ...]] = {z: tuple(o for o in ZONES if distance(z, o) == 1) for z in ZONES}
RING2: dict[str, tuple[str, ...]] = {z: tuple(o for o in ZONES if distance(z, o) == 2) for z in ZONES}
COLUMN_NEIGHBOURS: dict[str, tuple[str, ...]] = {
    z: tuple(o for o in (ahead(z), behind(z)) if o is not None) for z in ZONES
}


def unit(uid: str) -> Unit:
    return CATALOG.units[uid]


def card(cid: str) -> CombatCard:
    return CATALOG.cards[cid]


def card_text(cid: str) -> str:
    """How a combat card is named to players: green (Muslim) number, red (Christian) number, arms."""
    c = CATALOG.cards[cid]
    return f"[{c.muslim} green / {c.christian} red, {CATALOG.kingdoms[c.arms]['name']}]"


@functools.cache
def _names_with_variants() -> frozenset[str]:
    """Unit names shared by units with different icons (Council Militia and Jund Infantry
    come with and without the archer icon)."""
    icons: dict[str, set[tuple[str, ...]]] = {}
    for u in CATALOG.units.values():
        icons.setdefault(u.name, set()).add(u.icons)
    return frozenset(name for name, kinds in icons.items() if len(kinds) > 1)


def unit_text(uid: str) -> str:
    """A unit as players read it: its name, its icons where units of that name differ by them
    (``Council Militia (archer, c05)`` against ``Council Militia (c04)``: only the picture
    showed which one is an archer, issue 38) and its id."""
    u = CATALOG.units[uid]
    traits = ", ".join(u.icons) + ", " if u.name in _names_with_variants() and u.icons else ""
    return f"{u.name} ({traits}{uid})"
