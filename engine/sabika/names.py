"""What each Sabika component is called and what it does, in words (issue 35).

The component file names cards and tiles by short ids (``p13``, ``II1``, ``s20``, ``T8``) that
no player knows: prompt labels, log lines and pictures name a thing by :func:`name` (its kind
and what it costs, gives or scores), with the id at most as a small tag beside it. The
descriptions are built from ``data/sabika.json``, so a corrected card reads right everywhere.
"""

from __future__ import annotations

from typing import Any

from engine.sabika.data import (
    BALANCES,
    CITIES,
    CITY_TILES,
    DATA,
    EVENTS,
    MAJOR_POEMS,
    MAJORS,
    MINORS,
    POEMS,
    STARTING,
    STOREHOUSES,
    TRADE,
    WISHES,
    YUSUF_CARDS,
)
from engine.text import plural

RAW_NAME = {"sugar": "sugar cane", "clothes": "silk", "pottery": "clay"}
ITEM_NAME = {"gypsum": "Gypsum", "wood": "Wood", "marble": "Marble", "ceramic": "Glazed Ceramic",
             "sugar": "Sugar", "clothes": "Clothes", "pottery": "Pottery"}
ACTION_NAME = {"minor_quarry": "Minor Quarry", "major_quarry": "Major Quarry", "storehouse": "Storehouse",
               "market": "Market", "construction": "Construction", "export": "Export", "consolidate": "Consolidate",
               "produce": "Produce", "carve": "Carve Poem", "reactivate": "Reactivate", "artisanal": "Artisanal Labour"}
WORKER_NAME = {"builder": "Master Builder", "merchant": "Merchant", "poet": "Poet"}
"""A player's Workers by the rulebook's names (the state calls the two Master Builders
``builder1`` and ``builder2``)."""
REGION_NAME = {"europe": "Europe", "maghreb": "the Maghreb", "near_east": "the Near East"}
WISH_ITEM = {"palace": "Palace", "fountain": "Fountain", "door": "Door", "garden": "Garden", "tower": "Tower",
             "window": "Window", "presence": "City with your Ship", "consolidated": "consolidated City",
             "seal": "Seal", "blue_poem": "blue Poem", "red_poem": "red Poem", "poem": "Poem"}
YUSUF_ACTION = {"major": "Major Construction", "minor": "Minor Construction", "storehouse": "Storehouse",
                "export": "Export", "minor_poem": "Minor Poem", "major_poem": "Major Poem"}


def describe_bonus(bonus: list[dict[str, Any]]) -> str:
    """A bonus (a list of effects) in words."""
    return ", ".join(describe_effect(e) for e in bonus)


def describe_effect(e: dict[str, Any]) -> str:
    """One effect of a bonus in words (its keys are checked by ``data.load``)."""
    k = e["k"]
    if k == "dinars":
        return plural(e["n"], "Dinar")
    if k == "parias":
        return plural(e["n"], "Paria")
    if k == "pp":
        return f"{e['n']} PP"
    if k == "mat":
        return f"{e['n']} {ITEM_NAME[e['m']]}"
    if k == "matchoice":
        return f"{e['n']} of {'/'.join(ITEM_NAME[m] for m in e['of'])}"
    if k == "raw":
        return f"{e['n']} Raw Material{'s' * (e['n'] > 1)}"
    if k == "good":
        return f"{e['n']} Good{'s' * (e['n'] > 1)}"
    if k == "process":
        return f"process {e['n']} Raw Material{'s' * (e['n'] > 1)}"
    if k == "market":
        return f"{e['n']} transaction{'s' * (e['n'] > 1)}"
    if k == "action":
        act = ACTION_NAME[e["a"]]
        return f"{'an' if act[0] in 'AEIOU' else 'a'} {act} Action"
    if k == "dp":
        return f"{plural(e['n'], 'Dinar')} or {plural(e['n'], 'Paria')}"
    if k == "favour":
        return "advance on the Favour track"
    return " OR ".join(describe_bonus(part) for part in e["of"])


def cost(n: int) -> str:
    """What a step costs in Dinars, for a menu entry: ``free``, ``cost 1 Dinar``, ``cost 3 Dinars``."""
    return "free" if n == 0 else f"cost {plural(n, 'Dinar')}"


def item_name(item: str) -> str:
    """A Material or Good by the rulebook's name (``Glazed Ceramic``, ``Pottery``)."""
    return ITEM_NAME[item]


def minor(c: str) -> str:
    """``Garden on Wood (yellow|green)``: the type, the base Material, the two ceramic halves."""
    card = MINORS[c]
    return f"{card['type'].capitalize()} on {item_name(card['base'])} ({card['left']}|{card['right']})"


def major(t: str) -> str:
    """``Palace (gives 3 Dinars)``."""
    tile = MAJORS[t]
    return f"{tile['type'].capitalize()} (gives {describe_bonus(tile['bonus'])})"


def storehouse(t: str) -> str:
    """``Storehouse of 2 boxes (gives 2 PP)``."""
    tile = STOREHOUSES[t]
    return f"Storehouse of {plural(tile['boxes'], 'box')} (gives {describe_bonus(tile['bonus'])})".replace(
        "boxs", "boxes")


def poem_blue(p: str) -> str:
    """What a Minor Poem does carved in blue (a lasting effect)."""
    return str(DATA["minor_poems"]["blue_effects"][POEMS[p]["blue"]])


def poem(p: str) -> str:
    """``Poem (blue: +2 Dinars in every Income step; red: 4 Dinars)``."""
    return f"Poem (blue: {poem_blue(p)}; red: {describe_bonus(POEMS[p]['red'])})"


def major_poem(p: str) -> str:
    """``Major Poem (2 PP per Palace)``."""
    card = MAJOR_POEMS[p]
    return f"Major Poem ({card['pp']} PP {DATA['major_poems']['criteria'][card['crit']]})"


def starting(t: str) -> str:
    """``Starting tile 8 (2 PP)``: its number (the highest starts) and its bonus."""
    tile = STARTING[t]
    return f"Starting tile {tile['num']} ({describe_bonus(tile['bonus'])})"


def city_tile(t: str) -> str:
    """``blue City tile wanting Clothes``."""
    tile = CITY_TILES[t]
    return f"{tile['colour']} City tile wanting {item_name(tile['demand'])}"


def trade(t: str) -> str:
    """``Trade card: 3 PP per consolidated City in the Maghreb``."""
    card = TRADE[t]
    what = "City with your Ship" if card["what"] == "presence" else "consolidated City"
    where = f"in {REGION_NAME[card['region']]}" if "region" in card else f"({card['colour']})"
    return f"Trade card: {card['pp']} PP per {what} {where}"


def wish(t: str) -> str:
    """``Wish: 2 PP per Palace, 1 PP per Garden``."""
    items = ", ".join(f"{pp} PP per {WISH_ITEM.get(what, what)}" for what, pp in WISHES[t]["items"])
    return f"Wish: {items}"


def event(e: str) -> str:
    """``Event (positive): Quarry Actions give 4 Materials instead of 3.``"""
    tile = EVENTS[e]
    return f"Event ({tile['polarity']}): {tile['text']}"


def balance(b: str) -> str:
    """``Architectural Balance (yellow|any)``."""
    return f"Architectural Balance ({BALANCES[b]['left']}|any)"


def yusuf_card(c: str) -> str:
    """``Master Builder card: square 3, Major Construction, 1 PP``."""
    card = YUSUF_CARDS[c]
    worker = {"builder": "Master Builder", "merchant": "Merchant", "poet": "Poet"}[card["worker"]]
    parts = [f"square {card['square']}", *(YUSUF_ACTION[a] for a in card["actions"])]
    if card["pp"]:
        parts.append(f"{card['pp']} PP")
    if card["parias"]:
        parts.append(plural(card["parias"], "Paria"))
    return f"{worker} card: {', '.join(parts)}"


def name(thing: str) -> str:
    """The name of any card or tile by its id (Minor and Major Poems and Sultan's Wishes share
    letters: a Major Poem's id wins only where no Wish has it; use :func:`major_poem` or
    :func:`wish` where the kind is known)."""
    for table, namer in _NAMERS:
        if thing in table:
            return namer(thing)
    if thing in CITIES:
        return str(CITIES[thing]["name"])
    raise KeyError(thing)


def tagged(thing: str, namer: Any = None) -> str:
    """The name with the id as a small tag: ``Poem (blue: ...; red: 4 Dinars) [p13]``."""
    return f"{(namer or name)(thing)} [{thing}]"


_NAMERS: list[tuple[dict[str, Any], Any]] = [
    (MINORS, minor), (MAJORS, major), (STOREHOUSES, storehouse), (POEMS, poem), (WISHES, wish),
    (MAJOR_POEMS, major_poem), (STARTING, starting), (CITY_TILES, city_tile), (TRADE, trade), (EVENTS, event),
    (BALANCES, balance), (YUSUF_CARDS, yusuf_card)]


def names_of(thing: str) -> list[str]:
    """Every name ``thing`` may stand for (an id shared by a Wish and a Major Poem has both);
    a Minor Poem is also named by either of its sides (a label offers one side, ``in blue``)."""
    out = [namer(thing) for table, namer in _NAMERS if thing in table]
    if thing in POEMS:
        out += [poem_blue(thing), describe_bonus(POEMS[thing]["red"])]
    if thing in MAJOR_POEMS:
        card = MAJOR_POEMS[thing]
        out.append(f"{card['pp']} PP {DATA['major_poems']['criteria'][card['crit']]}")
    return out
