"""Battle-time cards (8.2.1, 8.3.3, 8.4, 10.1-10.5): which card may deploy which block, which
special attack it launches, and the bookkeeping of cards played in a battle.

The matching rules are scattered over the rulebook; they are gathered here so that field
combat (battle.py), castle sieges (siege.py) and the siege-start check (battle_impacts.py)
agree on them:

* a single-shield or Double Shield card deploys blocks of its faction (8.2.1);
* "any-faction" blocks (Military Orders 10.9, Nasrid Palace Guard 10.10, Mujahideens 10.11,
  Banu Sarray grey blocks 10.12.2 and the army leaders 8.2.1) take a card of any faction; a
  Double Shield card so used deploys that block alone (8.3.4);
* Commander deploys any friendly block (10.1), Cavalry Charge any horse block, Crossbowmen
  any crossbow block (10.4), Bombardment any artillery block in a castle siege (10.2);
* a special attack needs a trumpet card, Commander, Cavalry Charge, Crossbowmen or
  Bombardment, and a context that allows it (8.3.3, 8.7.6, 10.3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.api import State
from engine.granada import components as comp
from engine.granada import state as st

#: Blocks whose faction shield any faction card matches (8.2.1) and that form a bonus group
#: of their own (8.3.2: "the cumulative effect of another Military Orders block").
ANY_FACTION_SPECIALS = ("military_order", "palace_guard", "mujahideen", "mercenaries", "crusaders")
#: Card kinds that may put a block into a battle.
DEPLOYING_KINDS = ("faction", "double", "commander", "cavalry_charge", "crossbowmen", "bombardment")
#: Card kinds a Morale Challenge cannot touch (8.4.1 exceptions).
MORALE_PROOF_KINDS = ("commander", "bombardment", "watchtower", "cavalry_charge", "crossbowmen")


def _cards() -> dict[str, comp.Card]:
    return st.data().cards   # comp.load()'s: a C-level cached call, not two Python ones


def _blocks() -> dict[str, comp.Block]:
    return st.data().blocks   # comp.load()'s: a C-level cached call, not two Python ones


def is_army_leader(b: comp.Block) -> bool:
    """Boabdil, El Zagal, Ferdinand, Isabella: two-dot banner, no shield (3.2, 8.3.1)."""
    return b.leader == 2


def any_faction(b: comp.Block) -> bool:
    """A block that any faction card matches (8.2.1, 10.8-10.12.2)."""
    if b.special in ANY_FACTION_SPECIALS or b.leader == 2:      # (is_army_leader, inline)
        return True
    return b.colour == "grey" and b.faction == "banu_sarray"


def morale_immune(b: comp.Block) -> bool:
    """Leaders, Military Orders, Palace Guard, Mujahideens, Boabdil Mixed Army (8.4.1),
    Mercenaries and Crusaders (11.1, 11.2)."""
    return b.leader > 0 or b.special in ANY_FACTION_SPECIALS or b.colour == "grey"


def is_boabdil(b: comp.Block) -> bool:
    """Boabdil (black or grey) cannot be eliminated, only captured (3.2, 10.12.1)."""
    return b.special == "boabdil" or (b.colour == "grey" and b.leader == 2)


def bonus_group(b: comp.Block) -> str | None:
    """The shield an impact bonus counts (8.3.2). Army leaders have no shield."""
    if b.shields <= 0:
        return None
    if b.special in ANY_FACTION_SPECIALS:
        return b.special
    return b.faction


@dataclass(frozen=True, slots=True)
class Context:
    """What a battle allows at the moment of a deployment (8.3.3, 8.7.6, 10.3)."""

    siege: bool                  # castle siege (8.7) rather than field combat
    attacker: bool               # the deploying side is the attacker
    watchtower: bool = False     # a Watchtower card was played in this field combat (10.3)
    attacker_artillery: bool = False   # attacker already made an artillery special attack
    defender_artillery: int = 0        # artillery special attacks the defender made so far


def special_allowed(kind: str, ctx: Context) -> bool:
    """May a special attack of ``kind`` be launched now (8.3.3.1, 8.3.3.2, 8.7.6, 10.3)?"""
    if kind == "cavalry":
        # never in a siege; never by the attacker once a Watchtower card is down
        return not ctx.siege and not (ctx.attacker and ctx.watchtower)
    if kind == "crossbow":
        return not ctx.siege or ctx.attacker
    if kind == "artillery":
        if ctx.siege:
            return True
        if not ctx.watchtower:
            return False  # no walls to breach in an open field (8.3.3.2)
        if ctx.attacker:
            return True
        return ctx.attacker_artillery and ctx.defender_artillery < 1
    return False


def _symbols(b: comp.Block) -> list[str]:
    out = []
    if b.horse:
        out.append("cavalry")
    if b.crossbow:
        out.append("crossbow")
    if b.gun:
        out.append("artillery")
    return out


def deploy_special(card: comp.Card, b: comp.Block, ctx: Context, friendly_factions: bool = True
                   ) -> str | None:
    """None if ``card`` cannot deploy block ``b`` now; otherwise the special attack it
    launches: "cavalry", "crossbow", "artillery" or "" (shields only).

    In a castle siege the defender deploys nothing but artillery special attacks (8.7.5).
    """
    kind = card.kind
    launched: list[str] = []
    if kind == "faction" or kind == "double":
        # any_faction, inline (asked for every block and card of a deployment menu, and a
        # call is a thousand instructions, issue 33)
        if not (b.faction in card.factions or b.special in ANY_FACTION_SPECIALS or b.leader == 2
                or (b.colour == "grey" and b.faction == "banu_sarray")):
            return None
        if kind == "faction" and card.trumpet:
            launched = [s for s in _symbols(b) if special_allowed(s, ctx)]
    elif kind == "commander":
        launched = [s for s in _symbols(b) if special_allowed(s, ctx)]
    elif kind == "cavalry_charge":
        if not b.horse:
            return None
        launched = ["cavalry"] if special_allowed("cavalry", ctx) else []
    elif kind == "crossbowmen":
        if not b.crossbow:
            return None
        launched = ["crossbow"] if special_allowed("crossbow", ctx) else []
    elif kind == "bombardment":
        # 10.2: an artillery special attack "during a castle siege only"
        if not (b.gun and ctx.siege):
            return None
        launched = ["artillery"]
    else:
        return None
    special = launched[0] if launched else ""
    if ctx.siege and not ctx.attacker and special != "artillery":
        return None
    return special


def can_refute(card: comp.Card, b: comp.Block) -> bool:
    """A card showing a shield of the challenged block's faction (8.4.1)."""
    return card.kind in ("faction", "double") and b.faction is not None and b.faction in card.factions


def challengeable(card_id: str | None, block_ids: list[str]) -> bool:
    """Could a Morale Challenge touch this deployment at all (8.4.1 exceptions)?"""
    if card_id is None:
        return False
    card = _cards()[card_id]
    if card.kind in MORALE_PROOF_KINDS or card.kind not in ("faction", "double"):
        return False
    blocks = _blocks()
    for b in block_ids:  # noqa: SIM110 (any() over a generator left before its end raises to close it)
        if not morale_immune(blocks[b]):
            return True
    return False


# ---------------------------------------------------------------- bookkeeping

def hand_of_kind(state: State, side: str, kind: str) -> list[str]:
    cards = _cards()
    return [c for c in state["hands"][side] if cards[c].kind == kind]


def sortie_value(card: comp.Card) -> int:
    """Impacts a Sortie card takes off an assault (11.5): the number its face shows ("Sortie
    -2", "Sortie -3")."""
    return abs(int(card.name.rsplit(" ", 1)[1]))


def play_to_battle(state: State, side: str, card_id: str, why: str) -> None:
    """A card played face up into the temporary battle discard pile (8.2.1, 8.8)."""
    state["hands"][side].remove(card_id)
    known = state["hand_known"][side]
    if card_id in known:
        known.remove(card_id)
    state["battle_discard"][side].append(card_id)
    state["reveals"] += 1
    st.log(state, f"{side.capitalize()} plays {st.card_name(card_id)}{' ' + why if why else ''}.")


def replenish(state: State, extra: dict[str, int], why: str) -> None:
    """8.8: the battle discard piles go to the discard piles, each player draws as many cards
    back, plus ``extra`` cards for losses."""
    for side in st.SIDES:
        played = state["battle_discard"][side]
        n = len(played)
        state["discards"][side].extend(played)
        played.clear()
        more = max(0, extra.get(side, 0))
        if n + more:
            if more:
                st.log(state, f"{side.capitalize()} replenishes {n} card{'s' if n != 1 else ''} and "
                              f"draws {more} more for losses ({why}).")
            st.draw_cards(state, side, n + more)


def card_label(card_id: str) -> str:
    return st.card_name(card_id)


def describe_card(card_id: str) -> dict[str, Any]:
    """A card's public face for views and logs."""
    c = _cards()[card_id]
    return {"id": card_id, "name": c.name, "kind": c.kind, "factions": list(c.factions),
            "trumpet": c.trumpet}
