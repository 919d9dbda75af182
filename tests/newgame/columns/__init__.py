"""Three Columns: a small game written as a newcomer would add a fifth game to Alcazaba, kept
in the tests to show that a game needs nothing outside its own rules, pictures and tests
(docs/architecture.md, "How to add a game"). Here it stands where ``engine/columns/`` would.

The rules (the sections the rule tests cite):

1. **Setup.** Ten cards, valued 1 to 10, are shuffled. North and South each draw three; they
   are their hidden hands. The other four are the face-down deck. North plays first.
2. **A turn.**
   2.1 The player plays one card of his hand face up on his own side of one of the three
       columns (left, middle, right).
   2.2 A side of a column holds at most two cards.
   2.3 Then he draws the top card of the deck, if any is left. Then the other player plays.
3. **The end.** The game ends when both hands are empty. Each column goes to the player
   whose side of it adds up to more (a tie: to nobody). Whoever takes more columns wins; equal
   columns go to the higher total of all cards played; still equal, nobody wins.

Hidden: the hands (each player sees his own) and the deck's order. Public: the columns, the
number of cards in each hand and in the deck.
"""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.api import Action, RuleError, State, View, clone, require_legal, visible_log

id = "columns"
title = "Three Columns"
RULES_VERSION = 1
CHANGELOG: dict[int, str] = {1: "First rules."}
ROLES = ["north", "south"]
COLUMNS = ["left", "middle", "right"]
CARDS = [f"c{n}" for n in range(1, 11)]
HAND_SIZE = 3
SIDE_LIMIT = 2


def value(card: str) -> int:
    """A card's value: ``c7`` is the 7."""
    return int(card[1:])


def other(role: str) -> str:
    return ROLES[1 - ROLES.index(role)]


def roles(options: dict[str, Any]) -> list[str]:
    return list(ROLES)


def setup(seed: int, options: dict[str, Any]) -> State:
    """Rule 1: shuffle, deal three cards to each (privately), North first."""
    state: State = {
        "rng": rng.seed_state(seed),
        "log": [{"text": "Three Columns begins: North plays first."}],
        "reveals": 0,
        "deck": list(CARDS),
        "hands": {role: [] for role in ROLES},
        "columns": {column: {role: [] for role in ROLES} for column in COLUMNS},
        "turn": "north",
        "result": None,
    }
    rng.shuffle(state, state["deck"])
    for role in ROLES:
        for _ in range(HAND_SIZE):
            state["hands"][role].append(state["deck"].pop())
        names = ", ".join(str(value(c)) for c in sorted(state["hands"][role], key=value))
        state["log"].append({"text": f"You draw {names}.", "to": [role]})
    return state


def active(state: State) -> list[str]:
    return [] if state["result"] is not None else [state["turn"]]


def actions(state: State, role: str) -> list[Action]:
    """Rules 2.1 and 2.2: each card of the hand onto each column whose side has room."""
    if role not in active(state):
        return []
    return [{"type": "play", "card": card, "column": column, "label": f"play your {value(card)} on the {column} column"}
            for card in sorted(state["hands"][role], key=value) for column in COLUMNS
            if len(state["columns"][column][role]) < SIDE_LIMIT]


def apply(state: State, role: str, action: Action) -> State:
    if state["result"] is not None:
        raise RuleError("the game is over", "3")
    if role != state["turn"]:
        raise RuleError(f"it is {state['turn']}'s turn", "2")
    chosen = require_legal(actions(state, role), action, "2.2", role)
    new = clone(state)
    card, column = chosen["card"], chosen["column"]
    new["hands"][role].remove(card)
    new["columns"][column][role].append(card)
    new["log"].append({"text": f"{role} plays the {value(card)} on the {column} column."})
    if new["deck"]:  # rule 2.3
        drawn = new["deck"].pop()
        new["hands"][role].append(drawn)
        new["reveals"] += 1  # the player now knows a card nobody knew: no taking back
        new["log"].append({"text": f"{role} draws a card."})
        new["log"].append({"text": f"You draw the {value(drawn)}.", "to": [role]})
    if not any(new["hands"].values()):
        new["result"] = _score(new)
        new["log"].append({"text": f"The game is over: {new['result']['reason']}."})
    else:
        new["turn"] = other(role) if new["hands"][other(role)] else role
    return new


def _score(state: State) -> dict[str, Any]:
    """Rule 3: columns first, then the total of the cards played."""
    taken = {role: 0 for role in ROLES}
    owners: dict[str, str | None] = {}
    for column in COLUMNS:
        sums = {role: sum(value(c) for c in state["columns"][column][role]) for role in ROLES}
        owner = max(ROLES, key=lambda r: sums[r]) if sums["north"] != sums["south"] else None
        owners[column] = owner
        if owner is not None:
            taken[owner] += 1
    totals = {role: sum(value(c) for column in COLUMNS for c in state["columns"][column][role]) for role in ROLES}
    winner: str | None = None
    reason = "columns and totals are equal"
    if taken["north"] != taken["south"]:
        first = max(ROLES, key=lambda r: taken[r])
        winner, reason = first, f"{first} takes {taken[first]} columns to {taken[other(first)]}"
    elif totals["north"] != totals["south"]:
        first = max(ROLES, key=lambda r: totals[r])
        winner, reason = first, f"columns shared {taken['north']} each; {first} played more ({totals[first]})"
    return {"winner": winner, "winners": [winner] if winner else [], "reason": reason, "score": taken,
            "columns": owners}


def view(state: State, role: str | None) -> View:
    """What ``role`` sees: its own hand (by id, named in ``cards``), every column, the sizes of
    the hands and of the deck; a spectator sees no hand."""
    hand = sorted(state["hands"][role], key=value) if role is not None else []
    turn = state["turn"]
    if state["result"] is not None:
        prompt = f"The game is over: {state['result']['reason']}."
    elif role == turn:
        prompt = "Your turn: play a card on one of your columns."
    else:
        prompt = f"Waiting for {turn}."
    shown: View = {
        "prompt": prompt,
        "actions": actions(state, role) if role is not None else [],
        "log": visible_log(state["log"], role),
        "phase": f"{len(state['deck'])}-{sum(len(h) for h in state['hands'].values())}",
        "reaction": False,
        "places": list(COLUMNS),
        "result": state["result"],
        "columns": {column: {r: [value(c) for c in cards] for r, cards in sides.items()}
                    for column, sides in state["columns"].items()},
        "hand_sizes": {r: len(h) for r, h in state["hands"].items()},
        "deck_size": len(state["deck"]),
        "turn": turn,
    }
    if role is not None:
        shown["hand"] = hand
        shown["cards"] = {card: {"name": f"the {value(card)}", "value": value(card)} for card in hand}
        shown["held"] = [f"the {value(card)}" for card in hand]
    return clone(shown)


def result(state: State) -> dict[str, Any] | None:
    res: dict[str, Any] | None = state["result"]
    return res


def redeal(state: State, role: str, seed: int) -> State:
    """A state ``role`` cannot tell from ``state``: the other hand and the deck dealt afresh
    from the cards ``role`` has not seen."""
    new = clone(state)
    gen = rng.Generator(seed)
    hidden = other(role)
    pool = new["deck"] + new["hands"][hidden]
    gen.shuffle(pool)
    count = len(new["hands"][hidden])
    new["hands"][hidden] = pool[:count]
    new["deck"] = pool[count:]
    return new


def concealed_ids(state: State, role: str | None) -> set[str] | None:
    """The cards ``role`` may not identify: the deck and the hands not his."""
    hidden = set(state["deck"])
    for seat, hand in state["hands"].items():
        if seat != role:
            hidden |= set(hand)
    return hidden
