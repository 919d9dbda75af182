"""The components of Sabika, read from ``data/sabika.json`` and checked once at import.

The rulebook shows the board, tiles and cards only as pictures, so the file is a
reconstruction (see its ``note`` and each section's ``fixed_by``). The counts the text states
(36/22/20/8 cards, 24+16 storehouses, 21 major constructions, 12 city tiles, 9 wishes, ...)
are checked here, so a corrected file that breaks one stops the import with a
:class:`SabikaDataError` naming it instead of failing in the middle of a game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).with_name("data") / "sabika.json"

MATERIALS = ("gypsum", "wood", "marble", "ceramic")
GOODS = ("sugar", "clothes", "pottery")
RONDELS = ("outer", "middle", "inner")
WORKER_RONDEL = {"builder": "outer", "merchant": "middle", "poet": "inner"}
EFFECT_KINDS = {"dinars", "parias", "pp", "mat", "matchoice", "raw", "good", "process", "market", "action", "or",
                "dp", "favour"}
BONUS_ACTIONS = {"construction", "storehouse", "export", "carve", "produce", "market", "consolidate"}
EVENT_EFFECTS = {"quarry_plus", "market_plus", "export_discount", "sultan_grace", "patron", "heavy_tribute", "crowds",
                 "long_roads", "closed_ports", "toll", "lean_market", "dear_materials", "weary", "costly_carving"}
CONSTRUCTION_TYPES = ("palace", "fountain", "door", "garden", "tower", "window")


class SabikaDataError(ValueError):
    """The component file breaks a count or constraint stated by the rulebook, or its own schema."""


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise SabikaDataError(f"data/sabika.json: {what}")


def _check_bonus(bonus: Any, where: str) -> None:
    _check(isinstance(bonus, list), f"{where}: a bonus is a list of effects")
    for effect in bonus:
        _check(isinstance(effect, dict) and effect.get("k") in EFFECT_KINDS, f"{where}: unknown effect {effect!r}")
        kind = effect["k"]
        if kind == "or":
            _check(len(effect["of"]) >= 2, f"{where}: an 'or' needs two choices")
            for i, part in enumerate(effect["of"]):
                _check_bonus(part, f"{where} or[{i}]")
        elif kind == "action":
            _check(effect["a"] in BONUS_ACTIONS, f"{where}: unknown bonus action {effect['a']!r}")
        elif kind == "mat":
            _check(effect["m"] in MATERIALS and effect["n"] >= 1, f"{where}: bad material effect")
        elif kind == "matchoice":
            _check(set(effect["of"]) <= set(MATERIALS) and effect["n"] >= 1, f"{where}: bad material choice")
        elif kind != "favour":
            _check(isinstance(effect.get("n"), int) and effect["n"] >= 1, f"{where}: effect needs n >= 1")


def load(path: Path = DATA_FILE) -> dict[str, Any]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    _check("RECONSTRUCTED" in raw["note"], "the file must say it is reconstructed")
    for key, section in raw.items():
        if isinstance(section, dict):
            _check(bool(section.get("fixed_by")), f"section {key} must say what fixed it ('fixed_by')")
    _check(tuple(raw["materials"]["order"]) == MATERIALS, "materials are gypsum, wood, marble, glazed ceramic")
    _check(raw["materials"]["pp"]["gypsum"] == 1 and raw["materials"]["pp"]["marble"] == 3,
           "worked example: Gypsum is worth 1 PP, Marble 3 PP")
    _check(tuple(raw["goods"]["goods"]) == GOODS and raw["goods"]["tokens_per_kind"] * 3 == 24,
           "24 Raw Materials/Goods tokens of 3 kinds")
    for rondel in RONDELS:
        squares = raw["rondels"][rondel]
        _check(sum(1 for s in squares if s.get("four")) == 1, f"rondel {rondel}: one square for 4 players only")
    actions = {s["a"] for r in RONDELS for s in raw["rondels"][r]}
    _check(actions == {"minor_quarry", "major_quarry", "storehouse", "market", "construction", "export", "consolidate",
                       "produce", "carve", "reactivate", "artisanal"}, f"rondel actions: {sorted(actions)}")
    _check(sum(1 for s in raw["rondels"]["outer"] if s["a"] == "storehouse") == 2, "two storehouse squares")
    sultan = raw["sultan_workers"]
    _check(sum(len(v) for v in sultan["small"].values()) <= 8 and sum(len(v) for v in sultan["large"].values()) <= 8,
           "8 Sultan's Workers in the box")
    majors = raw["majors"]["tiles"]
    _check(len(majors) == 21, "21 Major Constructions")
    _check(sum(1 for t in majors if t["era"] == 1) == 9 and sum(1 for t in majors if t["era"] == 2) == 12,
           "9 Era I and 12 Era II Major Constructions")
    _check(sum(1 for t in majors if t.get("large")) == 3, "3 Era II tiles marked 3/4 (9 left with 2 players)")
    _check(all(t["type"] in ("palace", "fountain", "door") for t in majors), "major types palace, fountain, door")
    minors = raw["minors"]["cards"]
    _check(len(minors) == 36, "36 Minor Construction cards")
    _check(all(c["type"] in ("garden", "tower", "window") and c["base"] in MATERIALS[:3] for c in minors),
           "minor constructions: garden/tower/window on gypsum/wood/marble")
    colours = raw["minors"]["colours"]
    _check(len(colours) == 4 and set(raw["balances"]["bonus"]) == set(colours), "4 ceramic colours, 4 balance bonuses")
    _check(len(raw["balances"]["cards"]) == 4, "4 Architectural Balance cards")
    tiles = raw["storehouses"]["tiles"]
    _check(len(tiles) == 24 and raw["storehouses"]["starting"] == 16, "24 Storehouses and 16 Starting Storehouses")
    _check(max(t["boxes"] for t in tiles) == 3, "a Storehouse shows up to 3 store boxes")
    poems = raw["minor_poems"]["cards"]
    _check(len(poems) == 22, "22 Minor Poems")
    _check(all(p["blue"] in raw["minor_poems"]["blue_effects"] for p in poems), "blue poem effects are described")
    majorp = raw["major_poems"]["cards"]
    _check(len(majorp) == 20, "20 Major Poems")
    _check(len({p["letter"] for p in majorp}) >= 8, "8 different letters for the 8 spaces of a 4-player game")
    _check({"A3", "C3", "F1"} <= {p["id"] for p in majorp}, "Major Poems A3, C3 and F1 are named by the rules")
    _check(all(p["crit"] in raw["major_poems"]["criteria"] for p in majorp), "major poem criteria are described")
    cities = raw["map"]["cities"]
    _check(len(cities) == 9 and {c["region"] for c in cities} == {"europe", "maghreb", "near_east"},
           "9 Cities in Europe, the Maghreb and the Near East")
    ids = {c["id"] for c in cities} | {"granada"}
    _check(all(a in ids and b in ids and cost >= 0 for a, b, cost in raw["map"]["routes"]), "routes join known places")
    route = {frozenset((a, b)): cost for a, b, cost in raw["map"]["routes"]}
    _check(route.get(frozenset(("florence", "ragusa"))) == 2 and route.get(frozenset(("ragusa", "constantinople"))) == 2,
           "worked example: Florence-Ragusa and Ragusa-Constantinople cost 2 Dinars each")
    city_tiles = raw["city_tiles"]["tiles"]
    _check(len(city_tiles) == 12, "12 City tiles")
    _check(sum(1 for t in city_tiles if t["colour"] == "blue") == 6, "6 blue and 6 red City tiles")
    _check(len(raw["trade_cards"]["cards"]) == 8, "8 Trade cards")
    wishes = raw["wishes"]["tiles"]
    _check(len(wishes) == 9 and all(sum(1 for w in wishes if w["letter"] == x) == 3 for x in "ABC"),
           "9 Sultan's Wishes, 3 of each letter")
    _check(len(raw["starting_tiles"]["tiles"]) == 10, "10 Starting tiles")
    _check(len(raw["rounds"]["era"]) == 5 and raw["rounds"]["era"].count(1) == 2, "5 rounds, the first 2 in Era I")
    yusuf = raw["yusuf"]
    _check(sorted(yusuf["tiles"]) == ["builder", "builder", "merchant", "poet"], "Yusuf's 4 Worker tiles")
    cards = yusuf["cards"]
    _check(len(cards) == 26, "26 Worker cards for Yusuf")
    _check([sum(1 for c in cards if c["worker"] == w) for w in ("builder", "merchant", "poet")] == [12, 7, 7],
           "Yusuf's decks: 12 Master Builder, 7 Merchant, 7 Poet cards")
    yusuf_actions = {"builder": {"major", "minor", "storehouse"}, "merchant": {"export"},
                     "poet": {"minor_poem", "major_poem"}}
    for card in cards:
        rondel = WORKER_RONDEL[card["worker"]]
        _check(0 <= card["square"] < len(raw["rondels"][rondel]) and not raw["rondels"][rondel][card["square"]].get("four"),
               f"Yusuf card {card['id']}: a square of the 1/2-player side")
        _check(set(card["actions"]) <= yusuf_actions[card["worker"]] and len(card["actions"]) <= 2,
               f"Yusuf card {card['id']}: actions of its worker")
        if "storehouse" in card["actions"]:
            _check(raw["rondels"]["outer"][card["square"]]["a"] == "storehouse",
                   f"Yusuf card {card['id']}: a Storehouse action on a Storehouse square")
    _check(yusuf["removed_major_poem"] in {p["id"] for p in majorp}, "solo removes Major Poem F1")
    events = raw["events"]["tiles"]
    _check(len(events) == 14, "14 Event tiles")
    _check([sum(1 for e in events if e["polarity"] == x) for x in ("positive", "negative")] == [5, 9],
           "5 positive and 9 negative Events")
    _check(len({e["effect"] for e in events}) == 14 and set(e["effect"] for e in events) <= EVENT_EFFECTS,
           "every Event has an effect the rules know")
    _check(len(raw["events"]["spaces"]) == 3, "3 Events in a game")
    bonuses: list[tuple[str, Any]] = [(f"major {t['id']}", t["bonus"]) for t in majors]
    bonuses += [(f"storehouse {t['id']}", t["bonus"]) for t in tiles]
    bonuses += [(f"poem {p['id']}", p["red"]) for p in poems]
    bonuses += [(f"city tile {t['id']}", t["bonus"]) for t in city_tiles]
    bonuses += [(f"city tile {t['id']} consolidation", t["consolidate"]) for t in city_tiles]
    bonuses += [(f"starting tile {t['id']}", t["bonus"]) for t in raw["starting_tiles"]["tiles"]]
    bonuses += [(f"favour space {i}", b) for i, b in enumerate(raw["favour_track"]["spaces"])]
    bonuses += [(f"balance {c}", b) for c, b in raw["balances"]["bonus"].items()]
    for where, bonus in bonuses:
        _check_bonus(bonus, where)
    return raw


DATA = load()
MINORS = {c["id"]: c for c in DATA["minors"]["cards"]}
MAJORS = {t["id"]: t for t in DATA["majors"]["tiles"]}
STOREHOUSES = {t["id"]: t for t in DATA["storehouses"]["tiles"]}
POEMS = {p["id"]: p for p in DATA["minor_poems"]["cards"]}
MAJOR_POEMS = {p["id"]: p for p in DATA["major_poems"]["cards"]}
CITIES = {c["id"]: c for c in DATA["map"]["cities"]}
CITY_TILES = {t["id"]: t for t in DATA["city_tiles"]["tiles"]}
TRADE = {t["id"]: t for t in DATA["trade_cards"]["cards"]}
WISHES = {t["id"]: t for t in DATA["wishes"]["tiles"]}
STARTING = {t["id"]: t for t in DATA["starting_tiles"]["tiles"]}
BALANCES = {c["id"]: c for c in DATA["balances"]["cards"]}
PP_VALUE: dict[str, int] = DATA["materials"]["pp"]
EVENTS = {e["id"]: e for e in DATA["events"]["tiles"]}
YUSUF_CARDS = {c["id"]: c for c in DATA["yusuf"]["cards"]}
