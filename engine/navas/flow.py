"""The round: initiative phase, four alternating turns, maintenance; and the driver that runs
everything automatic between two decisions (battles, damage without choice, turn ends,
maintenance shuffles) so that every stored state waits on a player or is over.
"""

from __future__ import annotations

from engine import rng
from engine.navas import combat, special, turn, victory
from engine.navas.core import (
    CATALOG,
    OTHER,
    ROLES,
    S_DEPLOYMENT,
    S_INITIATIVE,
    S_MAINTENANCE,
    State,
    card_text,
    card_value,
    log,
)
from engine.text import plural

HAND_SIZE = 3
MAINTENANCE_DRAW = 2
TURNS_PER_ROUND = 4


def new_state(seed: int, options: dict) -> State:
    """Deployment: every unit in its printed zone on its 2-Power face; deck shuffled; 3 cards each."""
    state: State = {
        "game": "navas",
        "options": {"advanced": bool(options.get("advanced", False))},
        "seed": seed,
        "rng": rng.seed_state(seed),
        "reveals": 0,
        "log": [],
        "round": 1,
        "phase": "initiative",
        "units": {u.id: {"zone": u.deploy, "power": 2, "exhausted": False} for u in CATALOG.units.values()},
        "deck": list(CATALOG.card_order),
        "deck_known": False,
        "discard": [],
        "hands": {"christian": [], "muslim": []},
        "known": {"christian": [], "muslim": []},
        "initiative": {"christian": None, "muslim": None, "revealed": False, "shield": None},
        "first": None,
        "turn": None,
        "pending": None,
        "combat": None,
        "specials": {role: {"hand": [], "discarded": [], "reserve": [], "used": []} for role in ROLES},
        "autopass": {"christian": False, "muslim": False},
        "last_battle": None,
        "result": None,
    }
    log(state, f"The armies deploy, every unit on its 2-Power face ({S_DEPLOYMENT}).")
    rng.shuffle(state, state["deck"])
    for role in ROLES:
        draw_cards(state, role, HAND_SIZE)
    if state["options"]["advanced"]:
        special.deal(state)
        state["phase"] = "special"
    else:
        start_round(state)
    return state


def draw_cards(state: State, role: str, count: int) -> None:
    drawn = state["deck"][:count]
    del state["deck"][:count]
    state["hands"][role].extend(drawn)
    log(state, f"{role.capitalize()} draws {plural(count, 'card')}.")
    log(state, "You draw " + ", ".join(card_text(c) for c in drawn) + ".", to=[role])


def start_round(state: State) -> None:
    state["phase"] = "initiative"
    state["initiative"] = {"christian": None, "muslim": None, "revealed": False, "shield": None}
    state["first"] = None
    log(state, f"Round {state['round']}: each side places an initiative card face down ({S_INITIATIVE}).")


# ---------------------------------------------------------------- initiative


def initiative_actions(state: State, role: str) -> list[dict]:
    if state["initiative"][role] is not None:
        return []
    return [{"type": "initiative", "card": c,
             "label": f"Place {card_text(c)} face down for initiative (your value {card_value(c, role)})"}
            for c in state["hands"][role]]


def place_initiative(state: State, role: str, cid: str) -> None:
    state["hands"][role].remove(cid)
    state["initiative"][role] = cid
    log(state, f"{role.capitalize()} places an initiative card face down.")
    log(state, f"Your initiative card: {card_text(cid)}.", to=[role])
    if all(state["initiative"][r] is not None for r in ROLES):
        reveal_initiative(state)


def initiative_winner(christian_card: str, muslim_card: str) -> str:
    """Higher value in one's own colour wins; a tie goes to the Christians."""
    if card_value(muslim_card, "muslim") > card_value(christian_card, "christian"):
        return "muslim"
    return "christian"


def reveal_initiative(state: State) -> None:
    ini = state["initiative"]
    ini["revealed"] = True
    state["reveals"] += 1
    for role in ROLES:
        known = state["known"][OTHER[role]]
        if ini[role] in known:
            known.remove(ini[role])
    first = initiative_winner(ini["christian"], ini["muslim"])
    c_val, m_val = card_value(ini["christian"], "christian"), card_value(ini["muslim"], "muslim")
    tie = " (a tie goes to the Christians)" if c_val == m_val else ""
    log(state, (f"Initiative revealed: Christian {card_text(ini['christian'])} = {c_val}, Muslim "
                f"{card_text(ini['muslim'])} = {m_val}; {first.capitalize()} plays first{tie}."))
    state["first"] = first
    state["phase"] = "action"
    turn.begin(state, first, 1)


# ---------------------------------------------------------------- turns and maintenance


def next_turn(state: State, number: int) -> None:
    if number > TURNS_PER_ROUND:
        state["phase"] = "maintenance"
        state["maintenance"] = {"husayni_asked": False}
        state["known"] = {"christian": [], "muslim": []}
        log(state, f"Round {state['round']} ends ({S_MAINTENANCE}).")
        return
    first = state["first"]
    role = first if number % 2 == 1 else OTHER[first]
    turn.begin(state, role, number)


def maintenance(state: State) -> None:
    """Initiative cards back to their holders' hands, deck and discard shuffled, 2 cards each."""
    info = state["maintenance"]
    if (not info["husayni_asked"] and special.window_open(state, "al-husayni")
            and special.related_alive(state, "al-husayni")):
        info["husayni_asked"] = True
        state["pending"] = {"kind": "window", "role": "muslim", "card": "al-husayni"}
        return
    ini = state["initiative"]
    for role in ROLES:
        cid = ini[role]
        if cid is not None:
            state["hands"][role].append(cid)
            state["known"][OTHER[role]].append(cid)
            log(state, f"{role.capitalize()} takes back the initiative card {card_text(cid)}.")
    state["deck"] = state["deck"] + state["discard"]
    state["discard"] = []
    rng.shuffle(state, state["deck"])
    state["deck_known"] = False
    log(state, "The game deck and the discard pile are shuffled together into a new game deck.")
    for role in ROLES:
        draw_cards(state, role, MAINTENANCE_DRAW)
    state["reveals"] += 1
    state["last_battle"] = None  # its card is back in the shuffle; the log keeps the story
    state.pop("maintenance", None)
    state["round"] += 1
    start_round(state)


# ---------------------------------------------------------------- the driver


def run(state: State) -> None:
    """Advance through everything that needs no decision."""
    while True:
        if state["phase"] == "over" or state["pending"] is not None:
            return
        c = state["combat"]
        if c is not None:
            if c["damage"]:
                combat.settle_damage(state)
                continue
            if c["settle"]:
                if combat.settle_victory(state):
                    return
                continue
            combat.step(state)
            continue
        if state["phase"] == "action":
            t = state["turn"]
            if t is None:
                return
            if t["card"] is None:
                hand = state["hands"][t["role"]]
                if len(hand) == 1:
                    turn.play_card(state, t["role"], hand[0])
                    continue
                return
            if t["ap"] <= 0 and not state["options"]["advanced"]:
                number = t["number"]
                turn.end(state)
                next_turn(state, number + 1)
                continue
            return
        if state["phase"] == "maintenance":
            maintenance(state)
            continue
        return


def end_turn(state: State) -> None:
    number = state["turn"]["number"]
    turn.end(state)
    next_turn(state, number + 1)


def after_move(state: State) -> None:
    victory.check(state)
