"""The auto-pass preference and the switch that turns it on and off.

Reaction prompts (Morale Challenge 8.4, Commander denial and retreat 10.1, Watchtower 10.3,
Castle Surrender 10.5, the besieged side's artillery 8.7.5) appear whenever the rules allow
the reaction, whatever the reacting player holds, so that their appearance tells nothing
about his hand (DESIGN.md). A player may opt into auto-pass (state["prefs"][side]
["auto_pass"]), which skips those prompts, again whatever his hand.

The preference is set in two ways: the "..._always" answers of the battle frames (battle.py,
siege.py) turn it on while answering a prompt; and the dispatcher (engine.granada.apply)
adds to EVERY list of actions a role is offered exactly one switch, :func:`switch`:
"auto_pass_on" while the preference is off, "auto_pass_off" while it is on. Having a single
place (not each frame) means a player can change his mind whenever he is asked anything,
before a battle as well as in one, and menus.py keeps the switch visible on every page. The
switch is not a game action: it changes nothing but the player's own preference, which only
his own view shows (views.py "prefs"), writes no log line and is no undo barrier.
"""

from __future__ import annotations

from engine.api import Action, State

AUTO_ON = "auto_pass_on"
AUTO_OFF = "auto_pass_off"
SWITCHES = (AUTO_ON, AUTO_OFF)


def auto_pass(state: State, side: str) -> bool:
    return bool(state.get("prefs", {}).get(side, {}).get("auto_pass"))


def set_auto_pass(state: State, side: str, on: bool) -> None:
    state.setdefault("prefs", {}).setdefault(side, {})["auto_pass"] = on


def switch(state: State, role: str) -> Action:
    """The one switch offered to ``role`` now (it flips his current preference)."""
    if auto_pass(state, role):
        return {"type": AUTO_OFF,
                "label": "Turn auto-pass off: ask me again about reactions (8.4, 10.1-10.5)"}
    return {"type": AUTO_ON,
            "label": "Turn auto-pass on: never ask me about reactions (8.4, 10.1-10.5)"}


def is_switch(action: Action) -> bool:
    return action.get("type") in SWITCHES


def apply_switch(state: State, role: str, action: Action) -> None:
    set_auto_pass(state, role, action["type"] == AUTO_ON)
