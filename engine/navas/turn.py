"""Action phase: a turn is one card's action points spent order by order.

An order is picked in small steps so that every menu stays short (Discord shows 25 choices):
first a zone of yours (or a card-wide order: switch, special card, end turn), then what that
zone does (move to, shoot at, attack, charge, rally), then, where there is a choice, which
units take part. ``back`` returns to the previous step without cost.
"""

from __future__ import annotations

from typing import Any

from engine.api import find_action
from engine.navas import combat, movement, special
from engine.navas.core import (
    CATALOG,
    OTHER,
    S_ACTION,
    S_EXHAUSTION,
    S_RALLY,
    S_SWITCH,
    State,
    alike_key,
    card_text,
    card_value,
    cost,
    describe_group,
    distinct_groups,
    log,
    occupancy,
    unit,
    unit_text,
)
from engine.text import plural

Action = dict[str, Any]


# ---------------------------------------------------------------- starting and ending turns


def begin(state: State, role: str, number: int) -> None:
    state["turn"] = {"role": role, "number": number, "card": None, "ap": 0, "combats": 0, "archers": 0,
                     "acted": False}
    log(state, f"Turn {number} of round {state['round']}: {role.capitalize()} ({S_ACTION}).")


def play_card(state: State, role: str, cid: str) -> None:
    turn = state["turn"]
    state["hands"][role].remove(cid)
    known = state["known"][OTHER[role]]
    if cid in known:
        known.remove(cid)
    turn["card"] = cid
    turn["ap"] = card_value(cid, role)
    state["reveals"] += 1
    log(state, f"{role.capitalize()} plays {card_text(cid)} as active card: {plural(turn['ap'], 'action point')}.")


def play_actions(state: State, role: str) -> list[Action]:
    return [{"type": "play", "card": c,
             "label": f"Play {card_text(c)} for {plural(card_value(c, role), 'action point')}"}
            for c in state["hands"][role]]


def end(state: State) -> None:
    """The turn ends: the active card goes to the discard pile, every unit stands up again."""
    turn = state["turn"]
    state["discard"].append(turn["card"])
    for record in state["units"].values():
        record["exhausted"] = False
    lost = f", {plural(turn['ap'], 'action point')} lost" if turn["ap"] else ""
    log(state, f"{turn['role'].capitalize()} ends the turn{lost}; {card_text(turn['card'])} is discarded.")
    state["turn"] = None


# ---------------------------------------------------------------- the turn menu


def rally_refusal(state: State, role: str, zone: str, order: Action, occ: dict[str, list[str]]) -> tuple[str, str] | None:
    """Why a Rally order in ``zone`` is illegal now (a sentence and its rule), or None when it is
    legal: the one place that decides, for the menu and for a refused order alike."""
    extra = set(order) - {"type", "unit", "label"}
    if extra:
        return f"a Rally order names only the unit to rally, not {', '.join(sorted(extra))}", S_RALLY
    uid = order.get("unit")
    if not isinstance(uid, str) or uid not in CATALOG.units:
        return f"{uid!r} is not a unit (m01 to m27, c01 to c27)", S_RALLY
    if uid not in occ.get(zone, []):
        return f"{unit_text(uid)} is not in {zone}", S_RALLY
    why = _rally_points(state, role) or _rally_unit(state, uid)
    if why is None:
        first = next(u for u in _rally_units(state, zone, occ) if alike_key(state, u) == alike_key(state, uid))
        if first != uid:
            return (f"{unit_text(uid)} and {unit_text(first)} are alike: rallying either is one order, "
                    f"listed as {unit_text(first)}"), S_RALLY
    return why


def _rally_points(state: State, role: str) -> tuple[str, str] | None:
    """The action points a rally costs (the same for every unit)."""
    if state["turn"]["ap"] < cost(role, "rally"):
        return f"a rally costs {plural(cost(role, 'rally'), 'action point')} and {state['turn']['ap']} remain", S_RALLY
    return None


def _rally_unit(state: State, uid: str) -> tuple[str, str] | None:
    """A unit on the board that may rally: unexhausted and on its 1-Power face."""
    record = state["units"][uid]
    if record["exhausted"]:
        return f"{unit_text(uid)} is exhausted: exhausted units can neither attack nor rally this turn", S_EXHAUSTION
    if record["power"] != 1:
        return f"{unit_text(uid)} is already on its 2-Power face", S_RALLY
    return None


def rally_orders(state: State, role: str, zone: str, occ: dict[str, list[str]]) -> list[Action]:
    """The Rally orders in ``zone`` that :func:`rally_refusal` lets through, labelled (the units
    of ``zone`` are asked one by one once the action points are there)."""
    if _rally_points(state, role) is not None:
        return []
    price = cost(role, "rally")
    return [{"type": "rally", "unit": uid, "label": f"Rally {unit_text(uid)} to its 2-Power face ({price} AP)"}
            for uid in _rally_units(state, zone, occ)]


def _rally_units(state: State, zone: str, occ: dict[str, list[str]]) -> list[str]:
    """The units of ``zone`` that may rally, one of each kind of alike units (same name and
    icons, both on their 1-Power face and fresh): which of them rallies changes nothing."""
    return [g[0] for g in distinct_groups(state, [[uid] for uid in occ.get(zone, [])
                                                  if _rally_unit(state, uid) is None])]


def zone_orders(state: State, role: str, zone: str, occ: dict[str, list[str]]) -> list[Action]:
    ap = state["turn"]["ap"]
    return (movement.orders(state, role, zone, occ, ap) + combat.orders(state, role, zone, occ)
            + rally_orders(state, role, zone, occ))


def switch_actions(state: State, role: str) -> list[Action]:
    ini = state["initiative"]
    ap = state["turn"]["ap"]
    if ini["shield"] is not None:
        return []
    found = []
    base = cost(role, "switch")
    if ap >= base:
        found.append({"type": "switch", "shield": False,
                      "label": f"Switch initiative cards: take {card_text(ini[OTHER[role]])} ({base} AP)"})
    extra = base + cost(role, "switch", "shield_extra")
    if ap >= extra:
        found.append({"type": "switch", "shield": True,
                      "label": f"Switch initiative cards and shield yours until the round ends ({extra} AP)"})
    return found


def orders_by_zone(state: State, role: str, occ: dict[str, list[str]]) -> dict[str, list[Action]]:
    """The orders of each zone ``role`` holds (:func:`zone_orders`): what the turn menu counts and
    the built-in player rates, worked out once for both."""
    return {zone: zone_orders(state, role, zone, occ) for zone, here in occ.items() if unit(here[0]).side == role}


def menu(state: State, role: str, by_zone: dict[str, list[Action]] | None = None,
         occ: dict[str, list[str]] | None = None) -> list[Action]:
    """The turn menu; ``by_zone`` (:func:`orders_by_zone`) and ``occ`` (the occupancy) are this
    very state's when the caller already has them."""
    if occ is None:
        occ = occupancy(state)
    if by_zone is None:
        by_zone = orders_by_zone(state, role, occ)
    found = [entry for entry in (_zone_entry(zone, occ, by_zone.get(zone, [])) for zone in CATALOG.zones) if entry]
    return found + _card_wide(state, role, occ)


def menu_find(state: State, role: str, action: Action) -> Action | None:
    """``find_action(menu(state, role), action)`` without working out every zone's orders: a
    zone's entry depends on that zone's orders only, and the card-wide entries on none."""
    occ = occupancy(state)
    if action.get("type") != "zone":
        return find_action(_card_wide(state, role, occ), action)
    zone = action.get("zone")
    here = occ.get(zone) if isinstance(zone, str) else None
    if not here or unit(here[0]).side != role:
        return None
    entry = _zone_entry(str(zone), occ, zone_orders(state, role, str(zone), occ))
    return find_action([entry], action) if entry else None


def _zone_entry(zone: str, occ: dict[str, list[str]], orders: list[Action]) -> Action | None:
    """A zone's line of the turn menu when it has any order (``orders``, :func:`zone_orders`)."""
    if not orders:
        return None
    here = occ[zone]
    return {"type": "zone", "zone": zone,
            "label": f"Orders for {zone} ({len(here)} unit{'s' if len(here) > 1 else ''}, {len(orders)} possible)"}


def _card_wide(state: State, role: str, occ: dict[str, list[str]]) -> list[Action]:
    """The turn menu's orders for the whole card: switch, special cards, end the turn."""
    return (switch_actions(state, role) + special.turn_actions(state, role, occ)
            + [{"type": "end_turn", "label": f"End the turn ({plural(state['turn']['ap'], 'action point')} left)"}])


def zone_actions(state: State, role: str, zone: str) -> list[Action]:
    occ = occupancy(state)
    return zone_orders(state, role, zone, occ) + [{"type": "back", "label": "Back to the turn menu"}]


def units_actions(state: State, role: str, pending: dict[str, Any]) -> list[Action]:
    order = pending["order"]
    zone = pending["zone"]
    if order["type"] == "move":
        groups = move_groups(state, zone, order["to"])
        among = sorted({u for g in groups for u in g})
        found = [{"type": "units", "units": g, "label": f"Move {describe_group(state, g, among)}"} for g in groups]
    else:
        kind = combat.ORDER_KIND[order["type"]]
        groups = combat.unit_options(state, role, zone, order)
        among = sorted({u for g in groups for u in g})
        found = [{"type": "units", "units": g, "label": combat.units_label(kind, g, state, among)} for g in groups]
    return found + [{"type": "back", "label": f"Back to the orders for {zone}"}]


def move_groups(state: State, zone: str, dest: str) -> list[list[str]]:
    occ = occupancy(state)
    movers = movement.mobile(occ.get(zone, []))
    there = occ.get(dest, [])
    if not there:
        return [movers]
    return distinct_groups(state, movement.unit_choices(movers, 3 - len(there)))


# ---------------------------------------------------------------- carrying out orders


def do_order(state: State, role: str, zone: str, order: Action) -> None:
    """An order picked in a zone's menu: carried out now, or a unit choice opened."""
    kind = order["type"]
    if kind == "rally":
        uid = order["unit"]
        record = state["units"][uid]
        record["power"] = 2
        record["exhausted"] = True
        state["turn"]["ap"] -= cost(role, "rally")
        state["turn"]["acted"] = True
        state["pending"] = None
        log(state, f"{role.capitalize()} rallies {unit_text(uid)} in {zone} ({cost(role, 'rally')} AP, {S_RALLY}).")
        return
    clean = {k: v for k, v in order.items() if k != "label"}
    if kind == "move":
        groups = move_groups(state, zone, order["to"])
        if len(groups) == 1:
            do_move(state, role, zone, order["to"], groups[0])
            return
    else:
        groups = combat.unit_options(state, role, zone, order)
        if len(groups) == 1:
            state["pending"] = None
            combat.declare(state, role, zone, clean, groups[0])
            return
    state["pending"] = {"kind": "units", "role": role, "zone": zone, "order": clean}


def do_move(state: State, role: str, zone: str, dest: str, group: list[str]) -> None:
    occ = occupancy(state)
    points = movement.move_cost(role, dest, not occ.get(dest))
    state["turn"]["acted"] = True
    state["pending"] = None
    movement.execute(state, role, zone, dest, group, points)


def do_units(state: State, role: str, pending: dict[str, Any], group: list[str]) -> None:
    order = pending["order"]
    if order["type"] == "move":
        do_move(state, role, pending["zone"], order["to"], group)
    else:
        state["pending"] = None
        combat.declare(state, role, pending["zone"], order, group)


def do_switch(state: State, role: str, shield: bool) -> None:
    ini = state["initiative"]
    ini["christian"], ini["muslim"] = ini["muslim"], ini["christian"]
    points = cost(role, "switch") + (cost(role, "switch", "shield_extra") if shield else 0)
    state["turn"]["ap"] -= points
    state["turn"]["acted"] = True
    if shield:
        ini["shield"] = role
    log(state, (f"{role.capitalize()} switches the initiative cards ({points} AP"
                f"{', shielded until the end of the round' if shield else ''}, {S_SWITCH}): "
                f"{role.capitalize()} now has {card_text(ini[role])}, {OTHER[role].capitalize()} "
                f"{card_text(ini[OTHER[role]])}."))
