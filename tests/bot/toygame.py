"""A tiny game on the engine contract: a test double of the ENGINE for the service tests.

"Toy race": two roles, red and blue, race to ``target`` points. On his turn a player takes
small steps that draw nothing and reveal nothing (``add`` 1 or 2 to his pending points,
undoable), may ``draw`` a hidden card (a random draw: a barrier), may ``show`` a card from
his hand (a reveal: a barrier; the card's value is added to the pending points) and ends
with ``bank`` (pending points are scored, the other player's turn). The hand is hidden from
the opponent and the spectators; private log lines carry ``"to"``.

It exercises exactly what the service relies on: multi-step turns, undo barriers from the
generator and from reveals, hidden information in log and view, a result, JSON states.
"""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.api import Action, RuleError, State, View, clone, require_legal, visible_log

id = "toy"
title = "Toy race"
OPTIONS: dict[str, dict[str, Any]] = {
    "target": {"default": 12, "choices": [5, 8, 12, 20], "help": "points to win"},
}
ROLES = ["red", "blue"]


def roles(options: dict[str, Any]) -> list[str]:
    return list(ROLES)


def setup(seed: int, options: dict[str, Any]) -> State:
    state: State = {
        "rng": rng.seed_state(seed),
        "log": [{"text": "The race begins."}],
        "reveals": 0,
        "target": int(options.get("target", 12)),
        "turn": "red",
        "pending": 0,
        "score": {"red": 0, "blue": 0},
        "deck": list(range(1, 10)) * 2,
        "hands": {"red": [], "blue": []},
        "result": None,
    }
    rng.shuffle(state, state["deck"])
    state["hands"] = {role: [state["deck"].pop()] for role in ROLES}
    state["log"] += [{"text": f"You draw a {hand[0]}.", "to": [role]} for role, hand in state["hands"].items()]
    return state


def active(state: State) -> list[str]:
    """The player whose turn it is, while the race is on."""
    return [state["turn"]] if state["result"] is None else []


def actions(state: State, role: str) -> list[Action]:
    if state["result"] is not None or role != state["turn"]:
        return []
    legal: list[Action] = [
        {"type": "add", "n": 1, "label": "add 1"},
        {"type": "add", "n": 2, "label": "add 2"},
    ]
    if state["deck"] and len(state["hands"][role]) < 3:
        legal.append({"type": "draw", "label": "draw a card"})
    for card in sorted(set(state["hands"][role])):
        legal.append({"type": "show", "card": card, "label": f"show your {card}"})
    legal.append({"type": "bank", "label": f"bank {state['pending']} points"})
    return legal


def apply(state: State, role: str, action: Action) -> State:
    if state["result"] is not None:
        raise RuleError("the race is over", "4")
    if role != state["turn"]:
        raise RuleError(f"it is {state['turn']}'s turn", "1")
    chosen = require_legal(actions(state, role), action, "2", f"{role}")
    new = clone(state)
    kind = chosen["type"]
    if kind == "add":
        new["pending"] += chosen["n"]
    elif kind == "draw":
        index = rng.randbelow(new, len(new["deck"]))
        card = new["deck"].pop(index)
        new["hands"][role].append(card)
        new["log"].append({"text": f"{role} draws a card."})
        new["log"].append({"text": f"You draw a {card}.", "to": [role]})
    elif kind == "show":
        new["hands"][role].remove(chosen["card"])
        new["pending"] += chosen["card"]
        new["reveals"] += 1
        new["log"].append({"text": f"{role} shows a {chosen['card']}."})
    elif kind == "bank":
        new["score"][role] += new["pending"]
        new["log"].append({"text": f"{role} banks {new['pending']} and has {new['score'][role]}."})
        new["pending"] = 0
        if new["score"][role] >= new["target"]:
            new["result"] = {"winner": role, "reason": f"{role} reached {new['target']}", "score": dict(new["score"])}
            new["log"].append({"text": f"{role} wins."})
        else:
            new["turn"] = "blue" if role == "red" else "red"
    return new


def view(state: State, role: str | None) -> View:
    """The view, a copy that shares nothing with the state or another view (the
    contract: the service hands it out as it is, and a front end may edit it)."""
    return clone(_view(state, role))


def _view(state: State, role: str | None) -> View:
    turn = state["turn"]
    if state["result"] is not None:
        prompt = f"The race is over: {state['result']['winner']} won."
    elif role == turn:
        prompt = f"Your turn: {state['pending']} points pending."
    else:
        prompt = f"Waiting for {turn}."
    return {
        "prompt": prompt,
        "actions": actions(state, role) if role else [],
        "log": visible_log(state["log"], role),
        "score": dict(state["score"]),
        "pending": state["pending"],
        "turn": turn,
        "hand": list(state["hands"][role]) if role else None,
        "hand_sizes": {r: len(h) for r, h in state["hands"].items()},
        "deck_size": len(state["deck"]),
    }


def result(state: State) -> dict[str, Any] | None:
    return state["result"] or None


def redeal(state: State, role: str, seed: int) -> State:
    """The cards ``role`` has not seen (the deck, the other hands) dealt afresh."""
    new = clone(state)
    others = [r for r in ROLES if r != role]
    unseen = new["deck"] + [card for r in others for card in new["hands"][r]]
    rng.Generator(seed).shuffle(unseen)
    for r in others:
        new["hands"][r] = [unseen.pop() for _ in new["hands"][r]]
    new["deck"] = unseen
    return new
