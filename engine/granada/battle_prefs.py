"""The auto-pass switch of the battle frames (battle.py, siege.py, seabattle.py).

Reaction prompts (Morale Challenge 8.4, Commander denial and retreat 10.1, Watchtower 10.3,
Castle Surrender 10.5, the besieged side's artillery 8.7.5) appear whenever the rules allow
the reaction, whatever the reacting player holds, so that their appearance tells nothing
about his hand (DESIGN.md). A player may opt into auto-pass (state["prefs"][side]
["auto_pass"], set by the "..._always" answers), which skips those prompts, again whatever
his hand. ``auto_pass_off`` is offered to him whenever he acts in a battle with auto-pass
on, so that the questions can be asked again. Lists longer than a select menu are paged by
the dispatcher (menus.py).
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State

AUTO_OFF = "auto_pass_off"


def auto_pass(state: State, side: str) -> bool:
    return bool(state.get("prefs", {}).get(side, {}).get("auto_pass"))


def set_auto_pass(state: State, side: str, on: bool) -> None:
    state.setdefault("prefs", {}).setdefault(side, {})["auto_pass"] = on


def offer(state: State, role: str, acts: list[Action]) -> list[Action]:
    """``acts`` plus the switch turning auto-pass off when it is on."""
    if not auto_pass(state, role):
        return acts
    return acts + [{"type": AUTO_OFF,
                    "label": "Turn auto-pass off: ask me again about reactions (8.4, 10.1-10.5)"}]


def intercept(state: State, frame: dict[str, Any], role: str, action: Action) -> bool:
    """Handle the switch; True when ``action`` was it (nothing else changes)."""
    if action["type"] == AUTO_OFF:
        set_auto_pass(state, role, False)
        return True
    return False
