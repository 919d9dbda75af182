"""Advanced variant: the 12 special cards (6 per side), each usable once.

Each side draws 3 of its 6, discards 1 face down and keeps 2 hidden. A card can be played
only while a unit of the type it shows is on the board (the Jund Infantry and Jihad Volunteers
cards are triggered by the very attack that eliminates such units, so the units must have
been in the attacked zone when it was declared).

Hidden information: the Muslim's reaction cards are played during the Christian's turn. A
reaction window opens whenever the public situation allows the card (the card not yet shown,
the Muslim still holding some unplayed special card), whether or not the Muslim holds it, so
that the window itself says nothing about his hand. He may pass, or pass and skip every later
window of the game.
"""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.navas import movement
from engine.navas.core import (
    CATALOG,
    OTHER,
    S_ADVANCED,
    State,
    card_text,
    kind_alive,
    log,
    occupancy,
    special_section,
    unit,
    units_in,
)
from engine.navas.data import COLUMN_NEIGHBOURS, ZONES
from engine.text import plural

REACTIONS = ("black-guard", "kurdish", "jund", "jihad", "al-husayni")


def advanced(state: State) -> bool:
    return bool(state["options"].get("advanced"))


def name(card_id: str) -> str:
    return CATALOG.specials[card_id].name


def holds(state: State, role: str, card_id: str) -> bool:
    return advanced(state) and card_id in state["specials"][role]["hand"]


def related_alive(state: State, card_id: str) -> bool:
    card = CATALOG.specials[card_id]
    return kind_alive(state, card.side, card.unit_kind)


def usable(state: State, role: str, card_id: str) -> bool:
    return holds(state, role, card_id) and related_alive(state, card_id)


def window_open(state: State, card_id: str) -> bool:
    """Whether a Muslim reaction window opens for ``card_id``: decided on public facts only."""
    if not advanced(state) or state["autopass"]["muslim"]:
        return False
    mine = state["specials"]["muslim"]
    return bool(mine["hand"]) and card_id not in mine["used"]


def use(state: State, role: str, card_id: str) -> None:
    mine = state["specials"][role]
    mine["hand"].remove(card_id)
    mine["used"].append(card_id)
    state["reveals"] += 1
    log(state, f"{role.capitalize()} plays the special card {name(card_id)} ({special_section(card_id)}).")


# ---------------------------------------------------------------- setup


def deal(state: State) -> None:
    for role in ("christian", "muslim"):
        cards = list(CATALOG.special_order[role])
        rng.shuffle(state, cards)
        state["specials"][role] = {"hand": cards[:3], "discarded": [], "reserve": cards[3:], "used": []}
        log(state, "Your special cards: " + ", ".join(name(c) for c in cards[:3]) + "; discard one face down.",
            to=[role])


def discard_actions(state: State, role: str) -> list[dict[str, Any]]:
    mine = state["specials"][role]
    if mine["discarded"]:
        return []
    return [{"type": "discard_special", "card": c, "label": f"Discard {name(c)} face down (keep the other two)"}
            for c in mine["hand"]]


def discard(state: State, role: str, card_id: str) -> None:
    mine = state["specials"][role]
    mine["hand"].remove(card_id)
    mine["discarded"].append(card_id)
    log(state, f"{role.capitalize()} discards a special card face down ({S_ADVANCED}).")
    log(state, f"You discard {name(card_id)}; you keep " + ", ".join(name(c) for c in mine["hand"]) + ".",
        to=[role])


# ---------------------------------------------------------------- own-turn cards


ATTACK_CARDS = ("sancho", "lopez")


def attack_card_ids(role: str) -> list[str]:
    """The special cards announced with an attack: Sancho VII and Lopez de Haro (Christian)."""
    return [c for c in ATTACK_CARDS if CATALOG.specials[c].side == role]


def attack_card_refusal(state: State, role: str, zone: str, target: str, kind: str, card_id: Any,
                        fresh: list[str]) -> tuple[str, str] | None:
    """Why ``card_id`` cannot be announced with this standard attack or charge (None if it can):
    Sancho VII gives +2 to a Navarrese standard attack on the central column, Lopez de Haro +2
    to an attack or charge he joins."""
    if not isinstance(card_id, str) or card_id not in CATALOG.specials:
        return f"{card_id!r} is not a special card", S_ADVANCED
    rule = special_section(card_id)
    if not advanced(state):
        return "special cards are played only in the advanced variant", S_ADVANCED
    if card_id not in ATTACK_CARDS or CATALOG.specials[card_id].side != role:
        return f"the {name(card_id)} card is not announced with an attack", rule
    if kind == "archers":
        return f"the {name(card_id)} card adds to a standard attack or a charge, not to archers", rule
    mine = state["specials"][role]
    if card_id in mine["used"]:
        return f"the {name(card_id)} card has already been played", rule
    if card_id not in mine["hand"]:
        return f"you do not hold the {name(card_id)} card", rule
    if not related_alive(state, card_id):
        return f"the {name(card_id)} card needs its unit on the board, and none is left", rule
    if card_id == "sancho":
        navarre = next(c for c, k in CATALOG.column_kingdoms.items() if k == "navarre")
        castile = next(c for c, k in CATALOG.column_kingdoms.items() if k == "castile")
        if kind != "standard":
            return "the Sancho VII card adds to a standard attack, not to a cavalry charge", rule
        if zone[0] != navarre or target[0] != castile:
            return (f"the Sancho VII card needs a standard attack from the Navarrese column ({navarre}) "
                    f"into the central column ({castile})"), rule
    if card_id == "lopez" and not any(unit(u).kind == "lopez" for u in fresh):
        return (f"the López de Haro card needs the López de Haro unit to join, and there is no "
                f"unexhausted López de Haro in {zone}"), rule
    return None


def peter_moves(state: State, occ: dict[str, list[str]]) -> list[tuple[str, str]]:
    """Peter II: a free move of an Aragonese zone holding a cavalry unit into an empty zone."""
    found = []
    aragon_col = next(c for c, k in CATALOG.column_kingdoms.items() if k == "aragon")
    for zone in ZONES:
        here = occ.get(zone, [])
        if zone[0] != aragon_col or not here or unit(here[0]).side != "christian":
            continue
        if not any("cavalry" in unit(u).icons for u in here):
            continue
        for dest in COLUMN_NEIGHBOURS[zone]:
            if not occ.get(dest):
                found.append((zone, dest))
    return found


def turn_actions(state: State, role: str, occ: dict[str, list[str]]) -> list[dict[str, Any]]:
    if not advanced(state):
        return []
    turn = state["turn"]
    found: list[dict[str, Any]] = []
    bonus = CATALOG.special_modifiers["special_card_action_points"]
    for card_id in ("alfonso", "al-nasir"):
        if CATALOG.specials[card_id].side == role and usable(state, role, card_id):
            found.append({"type": "special", "card": card_id, "label": f"Play {name(card_id)}: +{plural(bonus, 'action point')}"})
    if role != "christian":
        return found
    if usable(state, role, "militia") and not turn["acted"]:
        found.append({"type": "special", "card": "militia",
                      "label": "Play Council Militia: rally every unit in zones with a Council Militia unit"})
    if usable(state, role, "jimenez") and state["hands"]["muslim"]:
        found.append({"type": "special", "card": "jimenez",
                      "label": "Play Jiménez de Rada: look at a random card of the Muslim's hand"})
    if usable(state, role, "peter"):
        for origin, dest in peter_moves(state, occ):
            found.append({"type": "special", "card": "peter", "from": origin, "to": dest,
                          "label": f"Play Peter II: free move {origin}→{dest}"})
    return found


def play_turn_card(state: State, role: str, action: dict[str, Any]) -> None:
    card_id = action["card"]
    turn = state["turn"]
    use(state, role, card_id)
    if card_id in ("alfonso", "al-nasir"):
        bonus = CATALOG.special_modifiers["special_card_action_points"]
        turn["ap"] += bonus
        log(state, f"{role.capitalize()} gains {plural(bonus, 'action point')} ({turn['ap']} now).")
    elif card_id == "militia":
        occ = occupancy(state)
        rallied = []
        for ids in occ.values():
            if any(unit(u).kind == "militia" for u in ids):
                for uid in ids:
                    if state["units"][uid]["power"] == 1:
                        state["units"][uid]["power"] = 2
                        rallied.append(uid)
        log(state, f"Council Militia rallies {plural(len(rallied), 'unit')}, free and without exhaustion.")
    elif card_id == "jimenez":
        hand = state["hands"]["muslim"]
        seen = hand[rng.randbelow(state, len(hand))]
        state["reveals"] += 1
        if seen not in state["known"]["christian"]:
            state["known"]["christian"].append(seen)
        log(state, "Jiménez de Rada looks at a random card of the Muslim's hand.")
        log(state, f"Jiménez de Rada: the Muslim holds {card_text(seen)}.", to=["christian"])
        log(state, f"The Christian has seen your card {card_text(seen)}.", to=["muslim"])
    elif card_id == "peter":
        origin, dest = action["from"], action["to"]
        movers = movement.mobile(units_in(state, origin))
        movement.execute(state, role, origin, dest, movers, 0, "free, Peter II card")
    if card_id == "peter":
        turn["acted"] = True  # a move is an order; extra points or a peek are not


# ---------------------------------------------------------------- reaction windows


def window_actions(state: State, role: str, card_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if holds(state, role, card_id):
        found.append({"type": "special", "card": card_id, "label": f"Play {name(card_id)}"})
    found.append({"type": "pass", "pass": True, "label": "Pass"})
    found.append({"type": "pass", "auto": True, "label": "Pass, and skip every later special-card window"})
    return found


_WINDOWS = {
    "black-guard": ("The camp is attacked", "play the Black Guard card (2 damage to the attackers' zone)"),
    "kurdish": ("The Christians charge", "play the Kurdish cavalry card (2 damage to the charging zone) before the "
                                         "charge"),
    "jund": ("The charge cleared the zone", "play the Jund Infantry card to stop the Christian column"),
    "jihad": ("The last Jihad Volunteers fell", "play their card (2 damage to the attackers' zone)"),
    "al-husayni": ("Maintenance begins", "play Al-Husayni to take a card from the discard pile or deck"),
}


def window_prompt(card_id: str, held: bool = True) -> str:
    """The heading of a reaction window; the window opens whether or not the card is held (the
    opponent must not learn which), and to a player without it the heading says so instead of
    offering a card the menu does not list (issue 38)."""
    situation, offer = _WINDOWS[card_id]
    if held:
        return f"{situation}: you may {offer}."
    return f"{situation}; you do not hold the {name(card_id)} card: pass."


def husayni_actions(state: State) -> list[dict[str, Any]]:
    """Al-Husayni: any card of the discard pile or the game deck (listed sorted: the deck's order
    stays secret) replaces the Muslim's initiative card and goes to his hand."""
    found = [{"type": "take", "card": c, "from": "discard", "label": f"Take {card_text(c)} from the discard pile"}
             for c in state["discard"]]
    found += [{"type": "take", "card": c, "from": "deck", "label": f"Take {card_text(c)} from the game deck"}
              for c in sorted(state["deck"], key=CATALOG.card_order.index)]
    return found


def husayni_take(state: State, card_id: str, source: str) -> None:
    mine = state["initiative"]["muslim"]
    pile = state["discard"] if source == "discard" else state["deck"]
    pile[pile.index(card_id)] = mine
    state["initiative"]["muslim"] = None
    state["hands"]["muslim"].append(card_id)
    if source == "discard":
        state["known"]["christian"].append(card_id)
        log(state, f"Al-Husayni: the Muslim takes {card_text(card_id)} from the discard pile for his initiative card.")
    else:
        state["reveals"] += 1
        log(state, "Al-Husayni: the Muslim takes a card from the game deck for his initiative card.")
        log(state, f"You take {card_text(card_id)} from the game deck.", to=["muslim"])


def known_for(state: State, role: str) -> dict[str, Any]:
    """What ``role`` may see of the special cards: its own in full, the opponent's counts and
    the cards the opponent has already played."""
    if not advanced(state):
        return {}
    mine = state["specials"][role]
    theirs = state["specials"][OTHER[role]]
    return {"hand": list(mine["hand"]), "discarded": list(mine["discarded"]), "used": list(mine["used"]),
            "opponent_hand": len(theirs["hand"]), "opponent_discarded": len(theirs["discarded"]),
            "opponent_used": list(theirs["used"]),
            "catalog": {c: {"name": name(c), "text": CATALOG.specials[c].text}
                        for c in CATALOG.special_order[role] + CATALOG.special_order[OTHER[role]]}}
