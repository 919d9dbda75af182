"""A tiny game on the engine contract with what the deadline and auto-pass tests need: a
legal ``pass`` on every turn and a reaction window (``view["reaction"]``) after each lap.
A test double of the ENGINE, like tests/bot/toygame.py; the bot under test is real.

North and south take turns; on his turn a runner ``run``s a lap (the other may then ``cheer``
or ``pass``: a reaction prompt) or ``rest``s, his pass (marked ``"pass": true`` as every pass
is, engine/api.py ``is_pass``, though its type is not "pass", like Granada's "fight" or
"hold_fire"). The first to ``laps`` laps wins.
"""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.api import Action, RuleError, State, View, clone, require_legal, visible_log

id = "relay"
title = "Relay"
OPTIONS: dict[str, dict[str, Any]] = {"laps": {"default": 3, "choices": [1, 2, 3, 5]}}
ROLES = ["north", "south"]


def roles(options: dict[str, Any]) -> list[str]:
    return list(ROLES)


def other(role: str) -> str:
    return "south" if role == "north" else "north"


def setup(seed: int, options: dict[str, Any]) -> State:
    return {"rng": rng.seed_state(seed), "log": [{"text": "The relay starts."}], "reveals": 0,
            "laps": {"north": 0, "south": 0}, "target": int(options.get("laps", 3)), "turn": "north",
            "window": None, "cheers": 0, "result": None}


def active(state: State) -> list[str]:
    if state["result"] is not None:
        return []
    return [state["window"]] if state["window"] else [state["turn"]]


def actions(state: State, role: str) -> list[Action]:
    if role not in active(state):
        return []
    if state["window"]:
        return [{"type": "cheer", "label": "cheer"}, {"type": "pass", "label": "pass", "pass": True}]
    return [{"type": "run", "label": "run a lap"}, {"type": "rest", "label": "pass", "pass": True}]


def apply(state: State, role: str, action: Action) -> State:
    if role not in active(state):
        raise RuleError(f"it is not {role}'s turn", "1")
    chosen = require_legal(actions(state, role), action, "2", role)
    new = clone(state)
    if new["window"]:
        if chosen["type"] == "cheer":
            new["cheers"] += 1
            new["log"].append({"text": f"{role} cheers."})
        else:
            new["log"].append({"text": f"{role} lets it pass."})
        new["window"] = None
        new["turn"] = role
        return new
    if chosen["type"] == "run":
        new["laps"][role] += 1
        new["log"].append({"text": f"{role} runs lap {new['laps'][role]}."})
        if new["laps"][role] >= new["target"]:
            new["result"] = {"winner": role, "reason": f"{role} ran {new['target']} laps", "score": dict(new["laps"])}
            return new
        new["window"] = other(role)
    else:
        new["log"].append({"text": f"{role} passes."})
        new["turn"] = other(role)
    return new


def view(state: State, role: str | None) -> View:
    """The view, a copy that shares nothing with the state or another view (the
    contract: the service hands it out as it is, and a front end may edit it)."""
    return clone(_view(state, role))


def _view(state: State, role: str | None) -> View:
    acting = role in active(state)
    prompt = ("Cheer or let it pass?" if state["window"] == role else "Run a lap or pass?") if acting \
        else f"Waiting for {', '.join(active(state)) or 'nobody'}."
    return {"prompt": prompt, "actions": actions(state, role) if role else [], "log": visible_log(state["log"], role),
            "laps": dict(state["laps"]), "reaction": bool(state["window"] and state["window"] == role),
            "phase": f"lap {sum(state['laps'].values())}", "focus": None}


def result(state: State) -> dict[str, Any] | None:
    out: dict[str, Any] | None = state["result"]
    return out


def redeal(state: State, role: str, seed: int) -> State:
    return clone(state)
