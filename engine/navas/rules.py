"""Who acts, what they may do, and carrying out one decision: the contract's active/actions/apply."""

from __future__ import annotations

from typing import Any

from engine.api import RuleError, clone, describe, find_action, strip_label
from engine.navas import combat, damage, flow, movement, special, turn, victory
from engine.navas.core import (
    ROLES,
    S_ACTION,
    S_ADVANCED,
    S_AVAILABLE,
    S_DAMAGE,
    S_INITIATIVE,
    S_KARR,
    S_MOVEMENT,
    S_MUSLIM_CHARGE,
    S_OBJECTIVE,
    S_VICTORY,
    State,
    log,
    occupancy,
    special_section,
)
from engine.text import plural

Action = dict[str, Any]


def active(state: State) -> list[str]:
    if state["phase"] == "over":
        return []
    pending = state["pending"]
    if pending is not None:
        return [pending["role"]]
    phase = state["phase"]
    if phase == "special":
        return [r for r in ROLES if not state["specials"][r]["discarded"]]
    if phase == "initiative":
        return [r for r in ROLES if state["initiative"][r] is None]
    if phase == "action" and state["turn"] is not None:
        return [state["turn"]["role"]]
    return []


def actions(state: State, role: str) -> list[Action]:
    return actions_and_orders(state, role)[0]


def actions_and_orders(state: State, role: str) -> tuple[list[Action], dict[str, list[Action]] | None]:
    """:func:`actions`, and when they are the turn menu, the orders of each zone it counts
    (:func:`engine.navas.turn.orders_by_zone`; None for any other decision): the built-in
    player rates those orders, and working them out once serves both."""
    if role not in active(state):
        return [], None
    pending = state["pending"]
    if pending is not None:
        kind = pending["kind"]
        if kind == "zone":
            return turn.zone_actions(state, role, pending["zone"]), None
        if kind == "units":
            return turn.units_actions(state, role, pending), None
        if kind == "damage":
            return [{"type": "damage", "flip": d["flip"], "eliminate": d["eliminate"],
                     "label": damage.label(d, menu=True, state=state, zone=pending["zone"])}
                    for d in damage.distributions(state, pending["zone"], pending["amount"])], None
        if kind == "karr":
            return [{"type": "karr", "declare": True, "label": "Declare karr wa-l-farr (counter-attack after the charge)"},
                    {"type": "karr", "declare": False, "label": "No karr wa-l-farr"}], None
        if kind == "window":
            return special.window_actions(state, role, pending["card"]), None
        if kind == "advance":
            return [{"type": "advance", "go": True,
                     "label": f"Advance every unit {pending['from']}→{pending['to']} (free move)"},
                    {"type": "advance", "go": False, "label": f"Stay in {pending['from']}"}], None
        if kind == "husayni":
            return special.husayni_actions(state), None
        raise AssertionError(f"unknown pending decision {kind}")
    phase = state["phase"]
    if phase == "special":
        return special.discard_actions(state, role), None
    if phase == "initiative":
        return flow.initiative_actions(state, role), None
    if state["turn"]["card"] is None:
        return turn.play_actions(state, role), None
    occ = occupancy(state)
    by_zone = turn.orders_by_zone(state, role, occ)
    return turn.menu(state, role, by_zone, occ), by_zone


def section_now(state: State) -> str:
    """The rulebook section that governs the decision the game waits on."""
    pending = state["pending"]
    if pending is not None:
        kind = pending["kind"]
        if kind == "zone":
            return S_AVAILABLE
        if kind == "units":
            order = pending["order"]
            if order["type"] == "move":
                return S_MOVEMENT
            return combat.section(combat.ORDER_KIND[order["type"]], pending["role"])
        return {"damage": S_DAMAGE, "karr": S_KARR, "advance": S_MUSLIM_CHARGE,
                "window": special_section(pending.get("card", "al-husayni")),
                "husayni": special_section("al-husayni")}[kind]
    return {"special": S_ADVANCED, "initiative": S_INITIATIVE, "action": S_ACTION}.get(state["phase"], S_VICTORY)


def _refuse(state: State, role: str, action: Action, legal: list[Action]) -> RuleError:
    allowed = [describe(a) for a in legal]
    pending = state["pending"]
    if pending is not None and pending["kind"] == "zone" and isinstance(action, dict):
        occ = occupancy(state)
        zone = pending["zone"]
        kind = action.get("type")
        reason: tuple[str, str] | None = None
        if kind == "move":
            reason = movement.why_not(state, role, zone, action, occ, state["turn"]["ap"])
            verb = "move"
        elif kind in combat.ORDER_KIND:
            reason = combat.why_not(state, role, zone, action, occ)
            verb = "attack"
        elif kind == "rally":
            reason = turn.rally_refusal(state, role, zone, action, occ)
            verb = "rally"
        if reason is not None:
            text, rule = reason
            return RuleError(f"Cannot {verb}: {text}", rule, allowed)
    what = describe(action) if isinstance(action, dict) else repr(action)
    return RuleError(f"{what} is not a legal order now", section_now(state), allowed)


def apply(state: State, role: str, action: Action) -> State:
    if state["phase"] == "over":
        raise RuleError("The game is over", S_VICTORY)
    if role not in ROLES:
        raise RuleError(f"Unknown side {role!r}: the sides are christian and muslim", S_OBJECTIVE)
    waiting = active(state)
    if role not in waiting:
        raise RuleError(f"It is not the {role.capitalize()}'s decision now; waiting for "
                        f"{' and '.join(r.capitalize() for r in waiting)}", section_now(state))
    found = _find(state, role, action)
    if found is None:
        raise _refuse(state, role, action, actions(state, role))
    new = _copy(state)
    _dispatch(new, role, strip_label(found))
    flow.run(new)
    return new


def _find(state: State, role: str, action: Any) -> Action | None:
    """The legal action of ``role`` (active) equal to ``action``, or None. At the turn menu it
    is looked up without the orders of the zones the action does not name (turn.menu_find)."""
    if not isinstance(action, dict):
        return None
    if state["pending"] is None and state["phase"] == "action" and state["turn"]["card"] is not None:
        return turn.menu_find(state, role, action)
    return find_action(actions(state, role), action)


def _copy(state: State) -> State:
    """The private copy apply changes: a deep copy, except that the log's entries are shared
    (an entry is never changed once written, core.log), so that a step's cost does not grow
    with the game's length (issue 15). The key order is kept, for byte-identical storage."""
    body: State = clone({k: v for k, v in state.items() if k != "log"})
    if "log" in state:
        body["log"] = list(state["log"])
    return {k: body[k] for k in state}


def _dispatch(state: State, role: str, action: Action) -> None:
    kind = action["type"]
    pending = state["pending"]
    if pending is not None:
        pk = pending["kind"]
        if pk == "zone":
            if kind == "back":
                state["pending"] = None
            else:
                turn.do_order(state, role, pending["zone"], action)
                victory.check(state)
            return
        if pk == "units":
            if kind == "back":
                state["pending"] = {"kind": "zone", "role": role, "zone": pending["zone"]}
            else:
                turn.do_units(state, role, pending, action["units"])
                victory.check(state)
            return
        c = state["combat"]
        if pk == "damage":
            damage.apply(state, pending["zone"], {"flip": action["flip"], "eliminate": action["eliminate"]})
            c["damage"].pop(0)
            state["pending"] = None
            return
        if pk == "karr":
            c["karr"] = bool(action["declare"])
            log(state, "The Muslim declares karr wa-l-farr." if c["karr"] else "The Muslim declines karr wa-l-farr.")
            state["pending"] = None
            return
        if pk == "window":
            card_id = pending["card"]
            state["pending"] = None
            if kind == "pass":
                if action.get("auto"):
                    state["autopass"][role] = True
                    log(state, f"{role.capitalize()} passes and will skip every later special-card window.")
                return
            special.use(state, role, card_id)
            if card_id in ("black-guard", "kurdish", "jihad"):
                combat.push_card_damage(state, card_id)
            elif card_id == "jund":
                c["stop_advance"] = True
            elif card_id == "al-husayni":
                state["pending"] = {"kind": "husayni", "role": role}
            return
        if pk == "advance":
            state["pending"] = None
            if action["go"]:
                moved = movement.move_all(state, pending["from"], pending["to"])
                log(state, f"The Muslim advances {plural(len(moved), 'unit')} {pending['from']}→{pending['to']} (free move).")
                c["settle"] = True
            else:
                log(state, f"The Muslim stays in {pending['from']}.")
            return
        if pk == "husayni":
            state["pending"] = None
            special.husayni_take(state, action["card"], action["from"])
            return
        raise AssertionError(pk)
    phase = state["phase"]
    if phase == "special":
        special.discard(state, role, action["card"])
        if all(state["specials"][r]["discarded"] for r in ROLES):
            flow.start_round(state)
        return
    if phase == "initiative":
        flow.place_initiative(state, role, action["card"])
        return
    if kind == "play":
        turn.play_card(state, role, action["card"])
    elif kind == "zone":
        state["pending"] = {"kind": "zone", "role": role, "zone": action["zone"]}
    elif kind == "switch":
        turn.do_switch(state, role, bool(action["shield"]))
    elif kind == "special":
        special.play_turn_card(state, role, action)
        victory.check(state)
    elif kind == "end_turn":
        flow.end_turn(state)
    else:
        raise AssertionError(kind)
