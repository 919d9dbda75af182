"""Granada's physical components: map, blocks, disks, cards and the setup map.

The printed components are pictures in the rulebook, so the data in ``data/*.json`` is a
reconstruction (each file says so in ``reconstructed``/``notes``). This module is the one
place that reads those files: it builds frozen, typed objects once (:func:`load` is cached)
and validates them against every count and rule statement the rulebook gives, so that a
hand edit by an owner of the physical game cannot silently break the engine: a bad entry is
refused with a ``ValueError`` naming it.

Rule numbers that the rulebook states and that are not a picture live here as constants
(setup draws, hand sizes, control-piece supply); map facts live in the data.
"""

from __future__ import annotations

import functools
import json
from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SIDES = ("christian", "muslim")
FACTIONS = {"christian": ("castile", "aragon", "leon", "other_kingdoms"),
            "muslim": ("andalusies", "banu_bannigas", "banu_sarray", "zegries")}
FACTION_SIDE = {f: side for side, facs in FACTIONS.items() for f in facs}
FACTION_NAMES = {"castile": "Castile", "aragon": "Aragón", "leon": "León",
                 "other_kingdoms": "Other Kingdoms", "andalusies": "Andalusíes",
                 "banu_bannigas": "Banu Bannigas", "banu_sarray": "Banu Sarray",
                 "zegries": "Zegríes"}

ROAD_KINDS = ("secondary", "main", "hybrid")
COLOURS = {"white": "christian", "black": "muslim", "grey": "christian"}
BLOCK_SPECIALS = ("ferdinand", "isabella", "boabdil", "el_zagal", "military_order",
                  "palace_guard", "mujahideen", "boabdil_army", "mercenaries", "crusaders")
DECKS = ("christian", "muslim", "naval", "surrender")
CARD_KINDS = ("faction", "double", "morale", "commander", "bombardment", "watchtower",
              "cavalry_charge", "crossbowmen", "surrender", "quiet_crossing", "naval_battle")
OPTIONAL_CARD_KINDS = ("papal_bull", "general_mobilization", "boabdil_captured", "sortie",
                       "naval_bombardment")

# --- Numbers the rulebook states (not pictures) -------------------------------------------
BLOCK_TOTALS = {"white": 68, "black": 63, "grey": 6}          # 1.0 / 3.2: 137 blocks
# Physical decks (1.0): surrender and optional cards are part of these totals (see cards.json).
PHYSICAL_DECKS = {"christian": 74, "muslim": 67, "naval": 17}
SURRENDER_CARDS = 2                                            # 10.5, per side
PORTS = 9                                                      # 4.5
CAPITALS = {"granada": "muslim", "cordoba": "christian"}       # 4.6
HYBRID_ROADS = (frozenset({"granada", "alhama"}), frozenset({"almeria", "guadix"}))  # 4.7, 7.3.3
B_TOWNS = ("guadix", "finana", "gergal", "albox")              # 10.12.1
# 5.1: control pieces white outside the kingdom, black inside, except these.
INITIAL_CONTROL_EXCEPTIONS = {"zahara": "muslim", "lucena": "muslim", "alhama": "christian"}
# 1.0 / 3.4: 10 castles, 10 watchtowers, 13 cubes per colour, 3 cubes of which mark the VP track.
PIECE_SUPPLY = {"castle": 10, "watchtower": 10, "cube": 13}
VP_TRACK_CUBES = 3
STARTING_HAND = 6                                              # 5.1
SETUP_RECRUITMENT_DRAWS = {"christian": 4, "muslim": 3}        # 5.2.3
# Section 10 card counts per side (the rest of each deck is reconstructed).
SPECIAL_CARD_COUNTS = {
    "christian": {"commander": 2, "bombardment": 2, "watchtower": 3, "cavalry_charge": 1,
                  "crossbowmen": 1},
    "muslim": {"commander": 2, "bombardment": 0, "watchtower": 4, "cavalry_charge": 1,
               "crossbowmen": 1},
}
# Section 10 unique blocks: special -> (count, side).
SPECIAL_BLOCK_COUNTS = {"ferdinand": (1, "christian"), "isabella": (1, "christian"),
                        "boabdil": (1, "muslim"), "el_zagal": (1, "muslim"),
                        "military_order": (2, "christian"), "palace_guard": (2, "muslim"),
                        "mujahideen": (2, "muslim"), "boabdil_army": (6, "christian")}
DISK_CASTLES = {"el_zegri": "malaga", "sidi_yahya": "baza"}    # 5.2.1, 10.6, 10.7
SEA_ONLY = ("oran",)  # reached by sea only: no road on the map

DATA_DIR = Path(__file__).with_name("data")
_DEFAULT_DIR = str(DATA_DIR)  # load() is called on every rule lookup: no Path work there


@dataclass(frozen=True, slots=True)
class Location:
    id: str
    name: str
    lat: float
    lon: float
    kingdom: bool        # inside the reddish area -> natural Muslim alignment
    castle: bool
    watchtower: bool
    resource: bool
    capital: bool
    port: str | None     # sea zone id if the location has a port
    recruit: tuple[str, ...]
    b_town: bool
    control: str | None  # initial control piece colour per 5.1 (side id) or None

    @property
    def alignment(self) -> str:
        """Natural alignment of the location's castle (4.3)."""
        return "muslim" if self.kingdom else "christian"


@dataclass(frozen=True, slots=True)
class Road:
    a: str
    b: str
    kind: str            # "secondary" | "main" | "hybrid"


@dataclass(frozen=True, slots=True)
class SeaZone:
    id: str
    name: str
    port: str
    adjacent: tuple[str, ...]
    lat: float
    lon: float
    coast: tuple[str, ...] = ()     # coastal locations without port on this zone (11.6)


@dataclass(frozen=True, slots=True)
class Block:
    id: str
    side: str
    colour: str
    faction: str | None
    shields: int         # 0 for army leaders (two-dot banner, no shield) and fleets
    leader: int
    name: str | None
    horse: bool
    crossbow: bool
    gun: bool
    fleet: bool
    special: str | None
    optional: bool


@dataclass(frozen=True, slots=True)
class Disk:
    id: str
    name: str
    side: str
    castle: str


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    deck: str
    kind: str
    factions: tuple[str, ...]
    trumpet: bool
    bid: int | None
    naval: int | None
    evade: bool
    draw_winner: str | None
    name: str


@dataclass(frozen=True, slots=True)
class SetupMap:
    fixed: dict[str, tuple[str, ...]]
    random: dict[str, dict[str, int]]
    disks: dict[str, str]
    palace_guard: tuple[str, ...]
    boabdil_box: tuple[str, ...]


class Components:
    """The validated component set; use :func:`load` rather than building one."""

    __slots__ = ("locations", "roads", "adjacency", "sea_zones", "port_zone", "coast_zone", "blocks", "disks",
                 "cards", "optional_cards", "decks", "surrender", "setup", "reconstructed", "notes")

    def __init__(self, locations: dict[str, Location], roads: tuple[Road, ...],
                 sea_zones: dict[str, SeaZone], blocks: dict[str, Block], disks: dict[str, Disk],
                 cards: dict[str, Card], optional_cards: dict[str, Card], setup: SetupMap,
                 reconstructed: bool, notes: str) -> None:
        self.locations = locations
        self.roads = roads
        adj: dict[str, list[tuple[str, str]]] = {loc: [] for loc in locations}
        for r in roads:
            adj[r.a].append((r.b, r.kind))
            adj[r.b].append((r.a, r.kind))
        self.adjacency: dict[str, tuple[tuple[str, str], ...]] = {
            k: tuple(sorted(v)) for k, v in adj.items()}
        self.sea_zones = sea_zones
        self.port_zone: dict[str, str] = {z.port: z.id for z in sea_zones.values()}
        # 11.6: the sea zone off each coastal location (its port's, or the zone's "coast")
        self.coast_zone: dict[str, str] = {**{c: z.id for z in sea_zones.values() for c in z.coast},
                                           **self.port_zone}
        self.blocks = blocks
        self.disks = disks
        # Every card face (optional ones included, for the games whose options bring them in);
        # ``decks`` below lists the basic game's cards only.
        self.cards = {**cards, **optional_cards}
        self.optional_cards = optional_cards
        # Basic-game card ids per draw deck, and each side's Castle Surrender cards.
        self.decks: dict[str, tuple[str, ...]] = {
            d: tuple(c.id for c in cards.values() if c.deck == d) for d in ("christian", "muslim", "naval")}
        self.surrender: dict[str, tuple[str, ...]] = {
            side: tuple(c.id for c in cards.values() if c.deck == "surrender" and _surrender_side(c) == side)
            for side in SIDES}
        self.setup = setup
        self.reconstructed = reconstructed
        self.notes = notes

    def road(self, a: str, b: str) -> str | None:
        """Kind of the road joining a and b, or None."""
        for n, kind in self.adjacency.get(a, ()):
            if n == b:
                return kind
        return None


def _surrender_side(card: Card) -> str:
    # Castle Surrender cards carry their side in the id prefix (CS = Christian, MS = Muslim).
    return "christian" if card.id.startswith("C") else "muslim"


def card_side(card: Card) -> str | None:
    """Owner of a card: the deck's side, the surrender card's side, or None for naval cards."""
    if card.deck in SIDES:
        return card.deck
    if card.deck == "surrender":
        return _surrender_side(card)
    return None


# ------------------------------------------------------------------------------- loading

def load(data_dir: str | Path | None = None) -> Components:
    """The validated components; cached, so the JSON is read and checked once per process.

    ``data_dir`` lets tests validate a modified copy of the data.
    """
    if data_dir is None:
        return _load(_DEFAULT_DIR)
    return _load(str(Path(data_dir)))


@functools.cache
def _load(data_dir: str) -> Components:
    base = Path(data_dir)
    raw = {name: _read(base / f"{name}.json") for name in ("map", "blocks", "cards", "setup")}
    notes = "\n\n".join(f"{name}.json: {doc['notes']}" for name, doc in raw.items())
    reconstructed = any(doc["reconstructed"] for doc in raw.values())
    locations = _locations(raw["map"])
    roads = _roads(raw["map"], locations)
    sea_zones = _sea_zones(raw["map"], locations)
    blocks = _blocks(raw["blocks"])
    disks = _disks(raw["blocks"], locations)
    cards, optional_cards = _cards(raw["cards"])
    setup = _setup(raw["setup"], locations, blocks, disks)
    comps = Components(locations, roads, sea_zones, blocks, disks, cards, optional_cards, setup,
                       reconstructed, notes)
    _check_graph(comps)
    return comps


def _read(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path.name}: cannot read component data: {exc}") from exc
    if not isinstance(doc, dict):
        raise ValueError(f"{path.name}: top level must be an object")
    if not isinstance(doc.get("reconstructed"), bool):
        raise ValueError(f"{path.name}: missing boolean 'reconstructed'")
    if not isinstance(doc.get("notes"), str) or not doc["notes"].strip():
        raise ValueError(f"{path.name}: missing 'notes'")
    return doc


def _fields(where: str, entry: Any, spec: Mapping[str, tuple[type, ...]]) -> dict[str, Any]:
    """Check an entry has exactly the expected keys with the expected JSON types."""
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object, got {entry!r}")
    keys = set(entry)
    if keys != set(spec):
        missing = sorted(set(spec) - keys)
        extra = sorted(keys - set(spec))
        raise ValueError(f"{where}: missing fields {missing} / unknown fields {extra}")
    for key, types in spec.items():
        value = entry[key]
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if not ok:
            raise ValueError(f"{where}: field {key!r} has bad value {value!r}")
    return entry


def _eid(entry: Any) -> str:
    """How an error message names a data entry: its id, or the entry itself."""
    if isinstance(entry, dict) and isinstance(entry.get("id"), str):
        return str(entry["id"])
    return repr(entry)


def _unique(where: str, kind: str, ids: list[str]) -> None:
    dup = [i for i, n in Counter(ids).items() if n > 1]
    if dup:
        raise ValueError(f"{where}: duplicate {kind} id(s): {', '.join(sorted(dup))}")


_NUM = (int, float)
_OPT_STR = (str, type(None))
_OPT_INT = (int, type(None))


def _locations(doc: dict[str, Any]) -> dict[str, Location]:
    spec = {"id": (str,), "name": (str,), "lat": _NUM, "lon": _NUM, "kingdom": (bool,),
            "castle": (bool,), "watchtower": (bool,), "resource": (bool,), "capital": (bool,),
            "port": _OPT_STR, "recruit": (list,), "b_town": (bool,), "control": _OPT_STR}
    out: dict[str, Location] = {}
    entries = doc.get("locations")
    if not isinstance(entries, list):
        raise ValueError("map.json: 'locations' must be a list")
    _unique("map.json", "location", [_eid(e) for e in entries])
    for e in entries:
        where = f"map.json location {_eid(e)}"
        _fields(where, e, spec)
        if not (35.0 <= e["lat"] <= 39.0 and -7.0 <= e["lon"] <= 0.0):
            raise ValueError(f"{where}: lat/lon {e['lat']}, {e['lon']} outside the map (southern Iberia, Oran)")
        for f in e["recruit"]:
            if f not in FACTION_SIDE:
                raise ValueError(f"{where}: unknown faction {f!r} in 'recruit'")
        if len(set(e["recruit"])) != len(e["recruit"]):
            raise ValueError(f"{where}: repeated faction in 'recruit'")
        if e["castle"] and e["watchtower"]:
            raise ValueError(f"{where}: a location has a castle or a watchtower, not both (4.1)")
        loc = Location(id=e["id"], name=e["name"], lat=float(e["lat"]), lon=float(e["lon"]),
                       kingdom=e["kingdom"], castle=e["castle"], watchtower=e["watchtower"],
                       resource=e["resource"], capital=e["capital"], port=e["port"],
                       recruit=tuple(e["recruit"]), b_town=e["b_town"], control=e["control"])
        expected = None
        if loc.castle or loc.watchtower or loc.resource:
            expected = INITIAL_CONTROL_EXCEPTIONS.get(loc.id, loc.alignment)
        if loc.control != expected:
            raise ValueError(f"{where}: initial control {loc.control!r} should be {expected!r} (5.1)")
        out[loc.id] = loc
    for loc_id in INITIAL_CONTROL_EXCEPTIONS:
        if loc_id not in out or not out[loc_id].watchtower:
            raise ValueError(f"map.json location {loc_id}: must exist with a watchtower (5.1)")
    capitals = {loc.id for loc in out.values() if loc.capital}
    if capitals != set(CAPITALS):
        raise ValueError(f"map.json: capitals are {sorted(capitals)}, expected Granada and Córdoba (4.6)")
    for cap, side in CAPITALS.items():
        if not out[cap].resource or out[cap].control != side:
            raise ValueError(f"map.json location {cap}: a capital is a Resource Location aligned "
                             f"with {side} (4.6)")
    b_towns = {loc.id for loc in out.values() if loc.b_town}
    if b_towns != set(B_TOWNS):
        raise ValueError(f"map.json: 'B' towns are {sorted(b_towns)}, expected {sorted(B_TOWNS)} (10.12.1)")
    _check_piece_supply(out)
    return out


def _check_piece_supply(locs: dict[str, Location]) -> None:
    """The control pieces in the box bound the map (1.0, 3.4).

    Every castle, watchtower and resource location carries one control piece from the
    start, so each side's initial count of a kind cannot exceed that colour's supply, and
    the number of such locations cannot exceed both supplies together. Cubes: 13 per colour
    minus the 3 that mark the Victory Points track.
    """
    supply = {"castle": PIECE_SUPPLY["castle"], "watchtower": PIECE_SUPPLY["watchtower"],
              "resource": PIECE_SUPPLY["cube"] - VP_TRACK_CUBES}
    for kind, limit in supply.items():
        with_kind = [loc for loc in locs.values() if getattr(loc, kind)]
        if len(with_kind) > 2 * limit:
            raise ValueError(f"map.json: {len(with_kind)} {kind} locations exceed the {2 * limit} "
                             f"control pieces of both colours")
        for side in SIDES:
            held = [loc.id for loc in with_kind if loc.control == side]
            if len(held) > limit:
                raise ValueError(f"map.json: {len(held)} initial {side} {kind} pieces exceed the "
                                 f"{limit} in the box: {', '.join(held)}")


def _roads(doc: dict[str, Any], locs: dict[str, Location]) -> tuple[Road, ...]:
    entries = doc.get("roads")
    if not isinstance(entries, list):
        raise ValueError("map.json: 'roads' must be a list")
    seen: set[frozenset[str]] = set()
    out = []
    for e in entries:
        where = f"map.json road {e!r}"
        _fields(where, e, {"a": (str,), "b": (str,), "kind": (str,)})
        for end in (e["a"], e["b"]):
            if end not in locs:
                raise ValueError(f"map.json road {e['a']}-{e['b']}: unknown location {end!r}")
        if e["a"] == e["b"]:
            raise ValueError(f"map.json road {e['a']}-{e['b']}: a road joins two different locations")
        if e["kind"] not in ROAD_KINDS:
            raise ValueError(f"map.json road {e['a']}-{e['b']}: unknown kind {e['kind']!r}")
        pair = frozenset((e["a"], e["b"]))
        if pair in seen:
            raise ValueError(f"map.json road {e['a']}-{e['b']}: listed twice")
        seen.add(pair)
        if (e["kind"] == "hybrid") != (pair in HYBRID_ROADS):
            raise ValueError(f"map.json road {e['a']}-{e['b']}: only Granada-Alhama and Almería-Guadix "
                             f"are hybrid roads (4.7)")
        out.append(Road(e["a"], e["b"], e["kind"]))
    for pair in HYBRID_ROADS:
        if pair not in seen:
            raise ValueError(f"map.json: hybrid road {'-'.join(sorted(pair))} missing (4.7)")
    return tuple(out)


def _sea_zones(doc: dict[str, Any], locs: dict[str, Location]) -> dict[str, SeaZone]:
    entries = doc.get("sea_zones")
    if not isinstance(entries, list):
        raise ValueError("map.json: 'sea_zones' must be a list")
    spec = {"id": (str,), "name": (str,), "port": (str,), "adjacent": (list,), "coast": (list,),
            "lat": _NUM, "lon": _NUM}
    _unique("map.json", "sea zone", [_eid(e) for e in entries])
    out: dict[str, SeaZone] = {}
    for e in entries:
        where = f"map.json sea zone {_eid(e)}"
        _fields(where, e, spec)
        if e["port"] not in locs:
            raise ValueError(f"{where}: unknown port location {e['port']!r}")
        if locs[e["port"]].port != e["id"]:
            raise ValueError(f"{where}: location {e['port']} does not name this zone as its port")
        for c in e["coast"]:
            if c not in locs or locs[c].port is not None:
                raise ValueError(f"{where}: coast {c!r} is not a location without port")
        out[e["id"]] = SeaZone(e["id"], e["name"], e["port"], tuple(e["adjacent"]),
                               float(e["lat"]), float(e["lon"]), tuple(e["coast"]))
    for z in out.values():
        for n in z.adjacent:
            if n not in out:
                raise ValueError(f"map.json sea zone {z.id}: unknown adjacent zone {n!r}")
            if n == z.id:
                raise ValueError(f"map.json sea zone {z.id}: adjacent to itself")
            if z.id not in out[n].adjacent:
                raise ValueError(f"map.json sea zone {z.id}: adjacent to {n} but {n} is not adjacent "
                                 f"to {z.id} (adjacency must be symmetric)")
    ports = {loc.id: loc.port for loc in locs.values() if loc.port is not None}
    for loc_id, zone in ports.items():
        if zone not in out:
            raise ValueError(f"map.json location {loc_id}: port in unknown sea zone {zone!r}")
        if out[zone].port != loc_id:
            raise ValueError(f"map.json location {loc_id}: port in sea zone {zone}, which already holds "
                             f"the port of {out[zone].port} (each sea zone contains one port, 4.5)")
    port_owners = Counter(z.port for z in out.values())
    for loc_id, count in port_owners.items():
        if count > 1:
            raise ValueError(f"map.json location {loc_id}: port of {count} sea zones (one each, 4.5)")
    if len(ports) != PORTS or len(out) != PORTS:
        raise ValueError(f"map.json: {len(ports)} ports and {len(out)} sea zones, expected {PORTS} "
                         f"of each, every sea zone holding one port (4.5)")
    return out


def _blocks(doc: dict[str, Any]) -> dict[str, Block]:
    entries = doc.get("blocks")
    if not isinstance(entries, list):
        raise ValueError("blocks.json: 'blocks' must be a list")
    spec = {"id": (str,), "side": (str,), "colour": (str,), "faction": _OPT_STR, "shields": (int,),
            "leader": (int,), "name": _OPT_STR, "horse": (bool,), "crossbow": (bool,), "gun": (bool,),
            "fleet": (bool,), "special": _OPT_STR, "optional": (bool,)}
    _unique("blocks.json", "block", [_eid(e) for e in entries])
    out: dict[str, Block] = {}
    for e in entries:
        where = f"blocks.json block {_eid(e)}"
        _fields(where, e, spec)
        b = Block(**e)
        if b.colour not in COLOURS:
            raise ValueError(f"{where}: unknown colour {b.colour!r}")
        if b.side != COLOURS[b.colour]:
            raise ValueError(f"{where}: a {b.colour} block belongs to side {COLOURS[b.colour]}, "
                             f"not {b.side!r}")
        if b.faction is not None:
            if b.faction not in FACTION_SIDE:
                raise ValueError(f"{where}: unknown faction {b.faction!r}")
            # Grey blocks keep their printed shields (Banu Sarray, Castile) under Christian control.
            if b.colour != "grey" and FACTION_SIDE[b.faction] != b.side:
                raise ValueError(f"{where}: faction {b.faction} does not belong to side {b.side}")
        if b.special is not None and b.special not in BLOCK_SPECIALS:
            raise ValueError(f"{where}: unknown special {b.special!r}")
        if not 0 <= b.shields <= 4 or b.leader not in (0, 1, 2):
            raise ValueError(f"{where}: shields must be 0-4 and leader 0, 1 or 2")
        if b.shields == 4 and b.special != "mujahideen":
            raise ValueError(f"{where}: only the Mujahideens have 4 shields (10.11)")
        if b.leader == 2 and b.shields != 0:
            raise ValueError(f"{where}: army leaders have a two-dot banner and no shield (8.3.1)")
        if b.fleet and (b.shields or b.leader or b.faction or b.horse or b.crossbow or b.gun or b.special):
            raise ValueError(f"{where}: a fleet block carries no shield, leader or icon")
        if not b.fleet and b.leader != 2 and b.shields < 1:
            raise ValueError(f"{where}: a land block has 1 to 4 shields (3.2)")
        if b.optional != (b.special in ("mercenaries", "crusaders")):
            raise ValueError(f"{where}: only the section 11 Mercenaries and Crusaders are optional")
        out[b.id] = b
    counts = Counter(b.colour for b in out.values())
    for colour, n in BLOCK_TOTALS.items():
        if counts[colour] != n:
            raise ValueError(f"blocks.json: {counts[colour]} {colour} blocks, expected {n} (1.0, 3.2)")
    specials = Counter(b.special for b in out.values() if b.special is not None)
    for special, (n, side) in SPECIAL_BLOCK_COUNTS.items():
        if specials[special] != n:
            raise ValueError(f"blocks.json: {specials[special]} '{special}' blocks, expected {n}")
        wrong = [b.id for b in out.values() if b.special == special and b.side != side]
        if wrong:
            raise ValueError(f"blocks.json block {wrong[0]}: '{special}' belongs to side {side}")
    for b in out.values():
        where = f"blocks.json block {b.id}"
        if b.special in ("ferdinand", "isabella", "boabdil", "el_zagal") and b.leader != 2:
            raise ValueError(f"{where}: {b.name} is an army leader with a two-dot banner (3.2)")
        if b.special in ("military_order", "crusaders") and not (b.shields == 2 and b.horse):
            raise ValueError(f"{where}: Military Orders have 2 shields and a horse (10.9)")
        if b.special == "mujahideen" and b.shields != 4:
            raise ValueError(f"{where}: Mujahideens have 4 shields (10.11)")
        if b.special == "palace_guard" and b.shields != 2:
            raise ValueError(f"{where}: Nasrid Palace Guard blocks have 2 shields (10.10)")
        if (b.colour == "grey") != (b.special == "boabdil_army"):
            raise ValueError(f"{where}: grey blocks, and only they, are the Boabdil Mixed Army (10.12)")
    guards = sorted(b.horse for b in out.values() if b.special == "palace_guard")
    if guards != [False, True]:
        raise ValueError("blocks.json: the Nasrid Palace Guard is one 2-shield block and one 2-shield "
                         "block with a horse (10.10)")
    grey = [b for b in out.values() if b.colour == "grey"]
    if sum(b.leader == 2 for b in grey) != 1 or sum(b.faction == "banu_sarray" for b in grey) != 3:
        raise ValueError("blocks.json: the grey blocks are Boabdil, 3 Banu Sarray blocks and Castile "
                         "blocks (10.12.1)")
    return out


def _disks(doc: dict[str, Any], locs: dict[str, Location]) -> dict[str, Disk]:
    entries = doc.get("disks")
    if not isinstance(entries, list):
        raise ValueError("blocks.json: 'disks' must be a list")
    _unique("blocks.json", "disk", [_eid(e) for e in entries])
    out: dict[str, Disk] = {}
    for e in entries:
        where = f"blocks.json disk {_eid(e)}"
        _fields(where, e, {"id": (str,), "name": (str,), "side": (str,), "castle": (str,)})
        if DISK_CASTLES.get(e["id"]) != e["castle"] or e["side"] != "muslim":
            raise ValueError(f"{where}: the disks are El Zegri at Málaga and Sidi Yahya at Baza, "
                             f"Muslim (10.6, 10.7)")
        if e["castle"] not in locs or not locs[e["castle"]].castle:
            raise ValueError(f"{where}: {e['castle']!r} is not a castle location")
        out[e["id"]] = Disk(**e)
    if set(out) != set(DISK_CASTLES):
        raise ValueError(f"blocks.json: disks are {sorted(out)}, expected {sorted(DISK_CASTLES)}")
    return out


_CARD_SPEC = {"id": (str,), "deck": (str,), "kind": (str,), "factions": (list,), "trumpet": (bool,),
              "bid": _OPT_INT, "naval": _OPT_INT, "evade": (bool,), "draw_winner": _OPT_STR,
              "name": (str,)}


def _card(where: str, e: Any, optional: bool) -> Card:
    _fields(where, e, _CARD_SPEC)
    c = Card(**{**e, "factions": tuple(e["factions"])})
    kinds = OPTIONAL_CARD_KINDS if optional else CARD_KINDS
    if c.kind not in kinds:
        raise ValueError(f"{where}: unknown kind {c.kind!r}")
    decks = SIDES if optional else DECKS
    if c.deck not in decks:
        raise ValueError(f"{where}: unknown deck {c.deck!r}")
    side = card_side(c)
    for f in c.factions:
        if f not in FACTION_SIDE:
            raise ValueError(f"{where}: unknown faction {f!r}")
        if FACTION_SIDE[f] != side:
            raise ValueError(f"{where}: faction {f} is not in the {c.deck} deck's side")
    n_factions = {"faction": 1, "double": 2}.get(c.kind, 0)
    if len(c.factions) != n_factions:
        raise ValueError(f"{where}: a {c.kind} card shows {n_factions} faction shield(s)")
    if c.kind == "double" and c.factions[0] != c.factions[1]:
        raise ValueError(f"{where}: a Double Shield card shows two identical shields (8.3.4)")
    if c.trumpet and c.kind != "faction":
        raise ValueError(f"{where}: only single-faction cards carry a trumpet (8.3.3, 8.3.4)")
    if c.evade and c.naval is not None:
        raise ValueError(f"{where}: a card shows a naval number or an evade arrow, not both (9.2)")
    if (c.bid is not None and c.bid < 1) or (c.naval is not None and c.naval < 0):
        raise ValueError(f"{where}: bid/naval values must be positive")
    unnumbered = {"watchtower", "surrender", "quiet_crossing", "naval_battle", "papal_bull",
                  "boabdil_captured", "sortie"}
    if c.kind in unnumbered and (c.bid is not None or c.naval is not None or c.evade):
        raise ValueError(f"{where}: {c.kind} cards have no number (6.2, 9.0, 10.3, 10.5, 11.x)")
    if c.kind not in unnumbered and c.bid is None:
        raise ValueError(f"{where}: a {c.kind} card needs its bid number (bottom right)")
    if c.kind not in unnumbered and c.kind not in OPTIONAL_CARD_KINDS and c.naval is None and not c.evade:
        raise ValueError(f"{where}: a {c.kind} card needs a naval value or an evade arrow (bottom left)")
    if (c.kind == "naval_battle") != (c.draw_winner is not None):
        raise ValueError(f"{where}: Naval Battle cards, and only they, show the coat of arms winning a draw")
    if c.draw_winner is not None and c.draw_winner not in SIDES:
        raise ValueError(f"{where}: unknown draw winner {c.draw_winner!r}")
    if (c.deck == "naval") != (c.kind in ("quiet_crossing", "naval_battle")):
        raise ValueError(f"{where}: the Naval deck holds Quiet Crossing and Naval Battle cards only (7.5.3)")
    if (c.deck == "surrender") != (c.kind == "surrender"):
        raise ValueError(f"{where}: Castle Surrender cards form their own set (10.5)")
    if c.deck == "surrender" and c.id[:2] not in ("CS", "MS"):
        raise ValueError(f"{where}: Castle Surrender ids start with CS (Christian) or MS (Muslim)")
    return c


def _cards(doc: dict[str, Any]) -> tuple[dict[str, Card], dict[str, Card]]:
    entries = doc.get("cards")
    opt_entries = doc.get("optional_cards")
    if not isinstance(entries, list) or not isinstance(opt_entries, list):
        raise ValueError("cards.json: 'cards' and 'optional_cards' must be lists")
    _unique("cards.json", "card", [_eid(e) for e in entries + opt_entries])
    cards = {c.id: c for c in (_card(f"cards.json card {_eid(e)}",
                                     e, False) for e in entries)}
    optional = {c.id: c for c in (_card(f"cards.json optional card "
                                        f"{_eid(e)}", e, True)
                                  for e in opt_entries)}
    for side in SIDES:
        physical = (sum(c.deck == side for c in cards.values())
                    + sum(card_side(c) == side for c in cards.values() if c.deck == "surrender")
                    + sum(c.deck == side for c in optional.values()))
        if physical != PHYSICAL_DECKS[side]:
            raise ValueError(f"cards.json: {physical} {side} cards (deck + Castle Surrender + optional), "
                             f"expected {PHYSICAL_DECKS[side]} (1.0)")
        surr = sum(card_side(c) == side for c in cards.values() if c.deck == "surrender")
        if surr != SURRENDER_CARDS:
            raise ValueError(f"cards.json: {surr} {side} Castle Surrender cards, expected 2 (10.5)")
        kinds = Counter(c.kind for c in cards.values() if c.deck == side)
        for kind, n in SPECIAL_CARD_COUNTS[side].items():
            if kinds[kind] != n:
                raise ValueError(f"cards.json: {kinds[kind]} {side} '{kind}' cards, expected {n} (10.x)")
        if kinds["morale"] < 1:
            raise ValueError(f"cards.json: the {side} deck has no Morale Challenge card (8.4)")
    naval = sum(c.deck == "naval" for c in cards.values())
    if naval != PHYSICAL_DECKS["naval"]:
        raise ValueError(f"cards.json: {naval} Naval cards, expected {PHYSICAL_DECKS['naval']} (1.0)")
    return cards, optional


def _setup(doc: dict[str, Any], locs: dict[str, Location], blocks: dict[str, Block],
           disks: dict[str, Disk]) -> SetupMap:
    for key, types in (("fixed", dict), ("random", dict), ("disks", dict), ("palace_guard", list),
                       ("boabdil_box", list)):
        if not isinstance(doc.get(key), types):
            raise ValueError(f"setup.json: '{key}' missing or of the wrong type")
    placed: Counter[str] = Counter()
    fixed: dict[str, tuple[str, ...]] = {}
    for loc_id, ids in doc["fixed"].items():
        where = f"setup.json fixed {loc_id}"
        if loc_id not in locs:
            raise ValueError(f"{where}: unknown location {loc_id!r}")
        if not isinstance(ids, list) or not ids:
            raise ValueError(f"{where}: expected a non-empty list of block ids")
        side = locs[loc_id].control or locs[loc_id].alignment
        for bid in ids:
            if bid not in blocks:
                raise ValueError(f"{where}: unknown block {bid!r}")
            b = blocks[bid]
            if b.optional or b.colour == "grey" or b.fleet or b.special == "palace_guard":
                raise ValueError(f"{where}: block {bid} cannot start on the map (5.1, 5.2.1)")
            if b.side != side:
                raise ValueError(f"{where}: block {bid} ({b.side}) placed in {side} territory")
            placed[bid] += 1
        fixed[loc_id] = tuple(ids)
    random: dict[str, dict[str, int]] = {}
    if set(doc["random"]) != set(SIDES):
        raise ValueError("setup.json random: expected one entry per side")
    for side, draws in doc["random"].items():
        random[side] = {}
        for loc_id, n in draws.items():
            where = f"setup.json random {side} {loc_id}"
            if loc_id not in locs:
                raise ValueError(f"{where}: unknown location {loc_id!r}")
            if isinstance(n, bool) or not isinstance(n, int) or n not in (1, 2, 3):
                raise ValueError(f"{where}: draws are +1, +2 or +3 (5.2.2), got {n!r}")
            if (locs[loc_id].control or locs[loc_id].alignment) != side:
                raise ValueError(f"{where}: random blocks drawn into enemy territory")
            random[side][loc_id] = n
    for bid in doc["palace_guard"] + doc["boabdil_box"]:
        if bid not in blocks:
            raise ValueError(f"setup.json: unknown block {bid!r} in a box")
        placed[bid] += 1
    dup = sorted(bid for bid, n in placed.items() if n > 1)
    if dup:
        raise ValueError(f"setup.json: block {dup[0]} placed more than once")
    guards = {b.id for b in blocks.values() if b.special == "palace_guard"}
    if set(doc["palace_guard"]) != guards:
        raise ValueError(f"setup.json palace_guard: must hold exactly the Nasrid Palace Guard {sorted(guards)}")
    grey = {b.id for b in blocks.values() if b.colour == "grey"}
    if set(doc["boabdil_box"]) != grey:
        raise ValueError(f"setup.json boabdil_box: must hold exactly the grey blocks {sorted(grey)}")
    crowns: tuple[tuple[str, str | None], ...] = (("ferdinand", None), ("isabella", None),
                                                  ("boabdil", None), ("el_zagal", "malaga"))
    for special, home in crowns:
        b = next(b for b in blocks.values() if b.special == special)
        at = [loc for loc, ids in fixed.items() if b.id in ids]
        if not at or (home is not None and at[0] != home):
            raise ValueError(f"setup.json: {b.name} ({b.id}) must start on the map"
                             + (f" at {home} (10.8)" if home else " (crown, 5.2.1)"))
    for special, homes, rule in (("military_order", {"ubeda", "sevilla"}, "10.9"),
                                 ("mujahideen", {"malaga", "oran"}, "10.11")):
        at = sorted(loc for loc, ids in fixed.items() for bid in ids if blocks[bid].special == special)
        if set(at) != homes or len(at) != 2:
            raise ValueError(f"setup.json: the {special} blocks start at {sorted(homes)} ({rule}), "
                             f"found {at}")
    if doc["disks"] != {d.id: d.castle for d in disks.values()}:
        raise ValueError(f"setup.json disks: expected {DISK_CASTLES} (5.2.1)")
    for side in SIDES:
        pool = [b for b in blocks.values() if b.side == side and b.colour != "grey" and not b.optional
                and not b.fleet and b.special != "palace_guard" and b.id not in placed]
        need = sum(random[side].values())
        if need > len(pool):
            raise ValueError(f"setup.json random {side}: {need} draws but only {len(pool)} land blocks "
                             f"left in the bag")
    return SetupMap(fixed=fixed, random=random, disks=dict(doc["disks"]),
                    palace_guard=tuple(doc["palace_guard"]), boabdil_box=tuple(doc["boabdil_box"]))


def _check_graph(comps: Components) -> None:
    """Every land location is reachable by road; Oran only by sea."""
    land = [loc for loc in comps.locations if loc not in SEA_ONLY]
    for loc in SEA_ONLY:
        if loc not in comps.locations or comps.adjacency[loc]:
            raise ValueError(f"map.json location {loc}: must exist and be reached by sea only")
        if comps.locations[loc].port is None:
            raise ValueError(f"map.json location {loc}: reached by sea only, so it needs a port")
    start = land[0]
    seen = {start}
    queue = deque([start])
    while queue:
        for n, _ in comps.adjacency[queue.popleft()]:
            if n not in seen:
                seen.add(n)
                queue.append(n)
    cut = sorted(set(land) - seen)
    if cut:
        raise ValueError(f"map.json location {cut[0]}: not connected by road to {start} "
                         f"(unreachable: {', '.join(cut)})")
