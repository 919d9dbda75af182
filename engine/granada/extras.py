"""Optional rules played at the Reinforcement Step (options.py): hiring Mercenaries (11.1,
11.1.1) and the Papal Bull (11.2).

After both players have discarded half of their hands (6.4) and before the draws, one frame
``{"module": "extras", "kind": "reinforce", "sides": [...], "step", ...}`` asks each side in
turn (Christian first) whose options allow something now. Whether a side is asked depends
only on public facts (the Mercenaries still in his box and a place to put them, the Papal
Bull's conditions), never on his hand, so the question tells the opponent nothing:

* ``choose`` — ``hire`` a Mercenaries block at one of its two entry locations (then ``pay``
  with a Special Attack card, any faction, 11.1), play the ``papal_bull`` (then ``place`` the
  two Crusaders one at a time), or ``done``;
* ``pay`` — the trumpet card discarded for the hired block (or ``cancel``);
* ``place`` — a Crusaders block to a castle the Christian controls that is not besieged.

Hired and placed blocks enter face down like any block on the map (the opponent saw them
leave their box: they count as identified, ``state["known"]``); they may not move this turn.
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.granada import options as opt
from engine.granada import state as st

RULE = "11.1"
#: 11.1: where each side's Mercenaries enter the map.
MERCENARY_ENTRY = {"christian": ("cartagena", "gibraltar"), "muslim": ("malaga", "oran")}
#: 11.2: the Papal Bull may be played from 1487-1488 (year index 4) ...
BULL_FIRST_YEAR = 4
#: ... while the Christians control this many castles or fewer.
BULL_MAX_CASTLES = 6


def _name(loc: str) -> str:
    return st.data().locations[loc].name


def mercenaries_in_box(state: State, side: str) -> list[str]:
    return sorted(b for b, rec in state["blocks"].items() if rec["loc"] == f"mercenaries:{side}")


def mercenary_entries(state: State, side: str) -> list[str]:
    """11.1: Cartagena or Gibraltar (Málaga or Oran), never an enemy-controlled location."""
    return [x for x in MERCENARY_ENTRY[side] if state["control"].get(x) != st.other(side)]


def crusaders() -> list[str]:
    return sorted(b for b, blk in st.data().blocks.items() if blk.special == "crusaders")


def bull_castles(state: State) -> list[str]:
    """Castles under Christian control that are not besieged (no Muslim unit there)."""
    idx = st.by_location(state)
    return sorted(loc for loc, L in st.data().locations.items()
                  if L.castle and state["castle"].get(loc) == "christian"
                  and not st.units_at(state, loc, "muslim", idx))


def christian_castles(state: State) -> int:
    return sum(1 for owner in state["castle"].values() if owner == "christian")


def bull_playable(state: State) -> bool:
    """11.2: the card is beside the board, 1487-1488 or later, 6 castles or fewer, a castle to
    place the Crusaders in (the view shows this condition: views.py "optional")."""
    return bool(state.get("papal_bull") and state["year"] >= BULL_FIRST_YEAR
                and christian_castles(state) <= BULL_MAX_CASTLES and bull_castles(state))


def _asked(state: State, side: str) -> bool:
    if side in opt.mercenary_sides(state) and mercenaries_in_box(state, side) \
            and mercenary_entries(state, side):
        return True
    return side == "christian" and bull_playable(state)


def needed(state: State) -> list[str]:
    """The sides to ask at this Reinforcement Step, in order."""
    return [s for s in st.SIDES if _asked(state, s)]


def start(state: State, sides: list[str]) -> None:
    st.push_frame(state, {"module": "extras", "kind": "reinforce", "sides": list(sides),
                          "step": "choose", "block": None, "loc": None})


def _trumpets(state: State, side: str) -> list[str]:
    cards = st.data().cards
    return sorted(c for c in set(state["hands"][side]) if cards[c].trumpet)


def _enter(state: State, bid: str, loc: str, why: str) -> None:
    state["blocks"][bid].update(loc=loc, revealed=False, inside=False, carried_by=None,
                                moved=True, fresh=True)
    opp = st.other(st.owner(bid))
    if bid not in state["known"][opp]:
        state["known"][opp].append(bid)
        state["known"][opp].sort()
    st.log(state, f"{st.block_name(bid)} enter{'s' if not st.block_name(bid).endswith('s') else ''} "
                  f"the map at {_name(loc)} ({why}).")
    st.settle_location(state, loc)


# ---------------------------------------------------------------- frame protocol

def active(state: State, frame: dict[str, Any]) -> list[str]:
    return frame["sides"][:1]


def actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    step = frame["step"]
    if step == "pay":
        acts: list[Action] = [{"type": "pay", "card": c, "label": f"Discard {st.card_choice(c)} (11.1)"}
                              for c in _trumpets(state, role)]
        acts.append({"type": "cancel", "label": "Do not hire this block"})
        return acts
    if step == "place":
        return [{"type": "place", "loc": x, "label": f"Place the Crusaders at {_name(x)} (11.2)"}
                for x in bull_castles(state)]
    acts = []
    if role in opt.mercenary_sides(state) and _trumpets(state, role):
        for b in mercenaries_in_box(state, role):
            for x in mercenary_entries(state, role):
                acts.append({"type": "hire", "block": b, "loc": x,
                             "label": f"Hire {st.block_name(b)} at {_name(x)} for a Special Attack card (11.1)"})
    if role == "christian" and bull_playable(state):
        acts.append({"type": "papal_bull", "card": state["papal_bull"],
                     "label": f"Play the {st.card_choice(state['papal_bull'])}: two Crusaders join (11.2)"})
    acts.append({"type": "done", "label": "Nothing more at this Reinforcement Step"})
    return acts


def apply(state: State, role: str, action: Action, frame: dict[str, Any]) -> None:
    kind = action["type"]
    if kind == "hire":
        frame.update(step="pay", block=action["block"], loc=action["loc"])
    elif kind == "cancel":
        frame.update(step="choose", block=None, loc=None)
    elif kind == "pay":
        st.discard_cards(state, role, [action["card"]], "(Mercenaries, 11.1)")
        _enter(state, frame["block"], frame["loc"], "Mercenaries, 11.1")
        frame.update(step="choose", block=None, loc=None)
    elif kind == "papal_bull":
        state["removed_cards"].append(state["papal_bull"])
        st.log(state, f"Christian plays the {st.card_name(state['papal_bull'])}; it is removed from "
                      "play (11.2).")
        state["papal_bull"] = None
        state["reveals"] += 1
        frame["step"] = "place"
    elif kind == "place":
        waiting = [b for b in crusaders() if state["blocks"][b]["loc"] == "aside"]
        _enter(state, waiting[0], action["loc"], "Crusaders, 11.2")
        if len(waiting) == 1:
            frame["step"] = "choose"
    elif kind == "done":
        frame["sides"].pop(0)
        frame["step"] = "choose"


def advance(state: State, frame: dict[str, Any]) -> bool:
    """Skip a side with nothing left to do; finish when every side is done."""
    while frame["sides"] and frame["step"] == "choose" and not _asked(state, frame["sides"][0]):
        frame["sides"].pop(0)
    if not frame["sides"]:
        st.finish_frame(state, {"kind": "reinforce_extras"})
        return True
    if frame["step"] == "place" and not bull_castles(state):
        frame["step"] = "choose"
        return True
    return False


def prompt(state: State, role: str, frame: dict[str, Any]) -> str:
    if frame["step"] == "pay":
        return "Discard a Special Attack card (with a trumpet) to hire this Mercenaries block (11.1)."
    if frame["step"] == "place":
        return "Place a Crusaders block in a castle you control that is not besieged (11.2)."
    # what the menu lists, and only that: a hire above a lone "Nothing more" misled (issue 38)
    kinds = {a["type"] for a in actions(state, role, frame)}
    offers = [w for k, w in (("hire", "hire Mercenaries (11.1)"), ("papal_bull", "play the Papal Bull (11.2)"))
              if k in kinds]
    if not offers:
        return "Reinforcement Step: no Mercenaries to hire and no Papal Bull to play; go on."
    return f"Reinforcement Step: {' or '.join(offers)}, or go on."


def choose_weight(action: Action) -> float:
    return {"done": 1.0, "cancel": 0.2}.get(action["type"], 2.0)
