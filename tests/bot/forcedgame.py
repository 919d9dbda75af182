"""A tiny game with forced steps: a test double of the ENGINE for the service's forced steps
(issue 38), registered from the tests alone.

"Forced race": red and blue race to ``target`` points. A turn opens with ``start`` ("Start
your turn"), the only action then, which decides nothing: a forced step. Then a player
``add``s 1 or 2 to his pending points (undoable), may ``draw`` (a random draw: final), and
``bank``s; once 4 or more points are pending, banking is all that is left: a forced step
again. With the option ``ask``, ``start`` carries ``"ask": true``: the game asks for it even
though it is alone (``engine.api.ActionFields``). With the option ``joker`` (a role, or
"nobody"), that role holds a hidden joker, which it may play instead of banking when its
points are full: whether banking is forced then depends on a hand the other seat cannot see."""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.api import Action, RuleError, State, View, clone, require_legal, visible_log

id = "forced"
title = "Forced race"
OPTIONS: dict[str, dict[str, Any]] = {
    "target": {"default": 8, "type": "int", "help": "points to win"},
    "ask": {"default": False, "type": "bool", "help": "the opening step asks although it is alone"},
    "joker": {"default": "", "type": "str", "help": "the role holding the hidden joker ('nobody': none)"},
}
ROLES = ["red", "blue"]
FULL = 4  # pending points from which banking is the only action


def roles(options: dict[str, Any]) -> list[str]:
    return list(ROLES)


def setup(seed: int, options: dict[str, Any]) -> State:
    return {"rng": rng.seed_state(seed), "log": [{"text": "The race begins."}], "reveals": 0,
            "target": int(options.get("target", 8)), "ask": bool(options.get("ask", False)),
            "joker": str(options.get("joker", "")), "turn": "red", "started": False, "pending": 0, "score": {"red": 0, "blue": 0}, "result": None}


def active(state: State) -> list[str]:
    return [] if state["result"] is not None else [state["turn"]]


def actions(state: State, role: str) -> list[Action]:
    if role not in active(state):
        return []
    if not state["started"]:
        start: Action = {"type": "start", "label": "Start your turn"}
        if state["ask"]:
            start["ask"] = True
        return [start]
    bank: Action = {"type": "bank", "label": f"Bank {state['pending']} points"}
    if state["pending"] >= FULL:
        return [bank, {"type": "joker", "label": "Play the joker"}] if state["joker"] == role else [bank]
    return [{"type": "add", "n": 1, "label": "Add 1"}, {"type": "add", "n": 2, "label": "Add 2"},
            {"type": "draw", "label": "Draw a bonus point"}, bank]


def apply(state: State, role: str, action: Action) -> State:
    if role not in active(state):
        raise RuleError(f"it is not {role}'s turn", "1")
    chosen = require_legal(actions(state, role), action, "2", role)
    new = clone(state)
    if chosen["type"] == "start":
        new["started"] = True
        new["log"].append({"text": f"{role} starts a turn."})
    elif chosen["type"] == "add":
        new["pending"] += chosen["n"]
        new["log"].append({"text": f"{role} adds {chosen['n']}."})
    elif chosen["type"] == "joker":
        new["joker"] = "nobody"
        new["reveals"] += 1
        new["pending"] += 3
        new["log"].append({"text": f"{role} plays the joker."})
    elif chosen["type"] == "draw":
        new["pending"] += 1 + rng.randbelow(new, 2)
        new["log"].append({"text": f"{role} draws a bonus."})
    else:
        new["score"][role] += new["pending"]
        new["log"].append({"text": f"{role} banks {new['pending']}."})
        new["pending"] = 0
        new["started"] = False
        if new["score"][role] >= new["target"]:
            new["result"] = {"winner": role, "reason": f"{role} reached {new['target']}",
                             "score": dict(new["score"])}
        else:
            new["turn"] = "blue" if role == "red" else "red"
    return new


def view(state: State, role: str | None) -> View:
    prompt = "Your turn." if role in active(state) else f"Waiting for {state['turn']}."
    return clone({"prompt": prompt, "actions": actions(state, role) if role else [],
                  "log": visible_log(state["log"], role), "pending": state["pending"],
                  "score": dict(state["score"]), "joker": role is not None and state["joker"] == role})


def redeal(state: State, role: str, seed: int) -> State:
    """A world ``role`` cannot tell from ``state``: a joker it does not hold is given to the
    other seat (one of the worlds it cannot rule out). Without the option there is no joker."""
    new = clone(state)
    if new["joker"] and new["joker"] != role:
        new["joker"] = "blue" if role == "red" else "red"
    return new


def result(state: State) -> dict[str, Any] | None:
    found: dict[str, Any] | None = state["result"]
    return found
