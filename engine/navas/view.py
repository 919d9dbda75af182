"""What one side (or a spectator) may know: the board, public cards, own hand, counts of the rest.

Never in a view: the opponent's hand or face-down initiative card, the order of a shuffled
deck, the opponent's special cards (only their number and those already played), the
opponent's order being composed (only that he is choosing).
"""

from __future__ import annotations

from typing import Any

from engine.api import clone, visible_log
from engine.navas import rules, special
from engine.navas.core import CATALOG, OTHER, ROLES, State, occupancy, occupied_count, unit
from engine.navas.data import card_text, in_muslim_area
from engine.text import plural

TITLE = "1212 Las Navas de Tolosa"
PHASE_NAMES = {"initiative": "initiative", "action": "action", "maintenance": "maintenance"}

_STATIC: dict[str, Any] = {
    "board": {
        "columns": list(CATALOG.columns),
        "rows": list(CATALOG.rows),
        "muslim_rows": list(CATALOG.muslim_rows),
        "christian_rows": list(CATALOG.christian_rows),
        "camp": CATALOG.camp,
        "column_kingdoms": dict(CATALOG.column_kingdoms),
        "kingdoms": {k: dict(v) for k, v in CATALOG.kingdoms.items()},
        "reconstructed": CATALOG.reconstructed,
    },
    # Each card with its name in the game's words (as log lines write it): a hand lists ids.
    "cards": {c.id: {"muslim": c.muslim, "christian": c.christian, "arms": c.arms, "name": card_text(c.id)}
              for c in CATALOG.cards.values()},
}


def _initiative(state: State, role: str | None) -> dict[str, Any]:
    ini = state["initiative"]
    shown: dict[str, Any] = {"revealed": ini["revealed"], "shield": ini["shield"], "first": state["first"]}
    for side in ROLES:
        cid = ini[side]
        if cid is None:
            shown[side] = None
        elif ini["revealed"] or side == role:
            shown[side] = cid
        else:
            shown[side] = "face-down"
    return shown


def _pending(state: State, role: str | None) -> dict[str, Any] | None:
    pending = state["pending"]
    if pending is None:
        return None
    if pending["kind"] in ("zone", "units") and pending["role"] != role:
        return None  # an order still being composed (and revocable) is the composer's business
    return {k: v for k, v in pending.items() if k != "order"} | (
        {"order": dict(pending["order"])} if "order" in pending else {})


def _combat(state: State) -> dict[str, Any] | None:
    c = state["combat"]
    if c is None:
        return None
    return {"kind": c["kind"], "attacker": c["attacker"], "from": c["from"], "to": c["to"],
            "units": list(c["units"]), "cards": list(c["cards"]), "karr": c["karr"]}


def public_phase(state: State) -> str:
    """A short public name of the picture the board shows: the round and phase, in the action
    phase the turn and how many of its combat actions have been fought. It changes exactly when
    a new spectator picture is worth posting (a new round, phase, turn, or a battle fought), not
    on a move, an opened menu, or a decision inside a battle still under way."""
    phase = state["phase"]
    if phase == "over":
        return "Game over"
    if phase == "special":
        return "Before round 1 · special cards"
    text = f"Round {state['round']} · {PHASE_NAMES.get(phase, phase)}"
    t = state["turn"]
    if phase == "action" and t is not None:
        text += f" · turn {t['number']} ({t['role'].capitalize()})"
        fought = t["combats"] - (1 if state["combat"] is not None else 0)
        if fought:
            text += f" · combat {fought}"
    return text


def focus(state: State) -> str | None:
    """The zone of the battle under way, or of the last one fought this turn."""
    c = state["combat"]
    if c is not None:
        return str(c["to"])
    t = state["turn"]
    if t is not None and t["combats"]:
        return t.get("target")
    return None


def reaction(state: State, role: str | None) -> bool:
    """Whether ``role`` is asked only whether to play a reaction card (a special-card window,
    which opens on public facts whether or not the card is held): an auto-pass preference may
    answer it with the action marked ``"pass": true``. Karr wa-l-farr, the Muslim's advance and
    damage are real decisions, never answered for a player."""
    pending = state["pending"]
    return (role is not None and pending is not None and pending["kind"] == "window"
            and pending["role"] == role)


def prompt(state: State, role: str | None, legal: list[dict[str, Any]]) -> str:
    if state["phase"] == "over":
        res = state["result"]
        return f"The battle is over: {res['winner'].capitalize()} victory, {res['reason']}."
    waiting = rules.active(state)
    pending = state["pending"]
    if role is None or role not in waiting:
        who = " and ".join(r.capitalize() for r in waiting)
        if state["phase"] == "initiative":
            return f"Waiting for {who} to place an initiative card face down."
        if state["phase"] == "special":
            return f"Waiting for {who} to discard a special card face down."
        if pending is not None and pending["kind"] == "damage":
            return f"Waiting for {who} to distribute {pending['amount']} damage in {pending['zone']}."
        if pending is not None and pending["kind"] in ("karr", "window", "advance", "husayni"):
            return f"Waiting for {who} to react."
        t = state["turn"]
        if t is not None:
            return f"Waiting for {who} to play turn {t['number']} ({plural(t['ap'], 'action point')} left)."
        return f"Waiting for {who}."
    if pending is not None:
        kind = pending["kind"]
        if kind == "zone":
            return f"Orders for {pending['zone']}: choose one ({plural(state['turn']['ap'], 'action point')} left)."
        if kind == "units":
            return "Choose which units take part."
        if kind == "damage":
            return f"Your zone {pending['zone']} takes {pending['amount']} damage: choose how to distribute it."
        if kind == "karr":
            c = state["combat"]
            return f"The Christians charge {c['from']}→{c['to']}: declare karr wa-l-farr?"
        if kind == "window":
            return special.window_prompt(pending["card"], any(a["type"] == "special" for a in legal))
        if kind == "advance":
            return f"The charge emptied {pending['to']}: advance every unit from {pending['from']} into it?"
        if kind == "husayni":
            return "Al-Husayni: choose a card of the discard pile or the game deck for your hand."
    if state["phase"] == "special":
        return "Discard one of your three special cards face down; you keep the other two."
    if state["phase"] == "initiative":
        return "Place one of your cards face down as your initiative card (higher value in your colour plays first)."
    t = state["turn"]
    if t["card"] is None:
        return f"Turn {t['number']}: choose the card whose action points you will spend."
    kinds = {a["type"] for a in legal}
    # the choices the menu lists, and only those (a heading offering a zone above a lone "End
    # the turn" misled, issue 38)
    offers = [words for words, keep in (("choose a zone", {"zone"}), ("another order", {"switch", "special"}))
              if kinds & keep] + ["end the turn"]
    offered = offers[0] if len(offers) == 1 else ", ".join(offers[:-1]) + " or " + offers[-1]
    return (f"Turn {t['number']}: {plural(t['ap'], 'action point')} left, {plural(2 - t['combats'], 'combat action')} "
            f"available; {offered}.")


def view(state: State, role: str | None) -> dict[str, Any]:
    """The view, a copy that shares nothing with the state or another view (the
    contract: the service hands it out as it is, and a front end may edit it)."""
    return clone(_view(state, role))


def _view(state: State, role: str | None) -> dict[str, Any]:
    occ = occupancy(state)
    units = state["units"]
    legal = rules.actions(state, role) if role is not None else []
    zones = {}
    for zone in CATALOG.zones:
        here = occ.get(zone, [])
        zones[zone] = {"side": unit(here[0]).side if here else None, "units": list(here),
                       "area": "muslim" if in_muslim_area(zone) else "christian",
                       "column_kingdom": CATALOG.column_kingdoms[zone[0]]}
    unit_view = {}
    for u in CATALOG.units.values():
        rec = units[u.id]
        unit_view[u.id] = {"name": u.name, "kind": u.kind, "side": u.side, "icons": list(u.icons), "star": u.star,
                           "immobile": u.immobile, "deploy": u.deploy, "zone": rec["zone"], "power": rec["power"],
                           "exhausted": rec["exhausted"], "eliminated": rec["zone"] is None}
    t = state["turn"]
    out: dict[str, Any] = {
        "game": "navas",
        "title": TITLE,
        "role": role,
        "options": dict(state["options"]),
        "round": state["round"],
        "phase": public_phase(state),
        "stage": state["phase"],
        "reaction": reaction(state, role),
        "focus": focus(state),
        "active": rules.active(state),
        "board": _STATIC["board"],
        "places": sorted(zones),
        "zones": zones,
        "units": unit_view,
        "cards": _STATIC["cards"],
        "hand": list(state["hands"][role]) if role is not None else [],
        "hand_counts": {r: len(state["hands"][r]) for r in ROLES},
        "known_opponent_cards": list(state["known"][role]) if role is not None else [],
        "opponent_knows": list(state["known"][OTHER[role]]) if role is not None else [],
        "initiative": _initiative(state, role),
        "turn": ({"role": t["role"], "number": t["number"], "card": t["card"], "ap": t["ap"],
                  "combats": t["combats"], "archers": t["archers"]} if t is not None else None),
        "deck": {"size": len(state["deck"]), "order_known": state["deck_known"],
                 "cards": list(state["deck"]) if state["deck_known"] else None},
        "discard": list(state["discard"]),
        "specials": (special.known_for(state, role) if role is not None else
                     ({r: {"hand": len(state["specials"][r]["hand"]), "used": list(state["specials"][r]["used"])}
                       for r in ROLES} if special.advanced(state) else {})),
        "autopass": dict(state["autopass"]),
        "pending": _pending(state, role),
        "combat": _combat(state),
        "last_battle": state["last_battle"],
        "occupied": occupied_count(state),
        "result": state["result"],
        "prompt": prompt(state, role, legal),
        "actions": legal,
        "log": visible_log(state["log"], role),
    }
    if role is not None:
        out["held"] = _held(out["hand"], out["cards"], out["specials"])
    return out


def _held(hand: list[str], cards: dict[str, Any], specials: dict[str, Any]) -> list[str]:
    """What a side holds, in words (the contract's ``held``): its combat cards with their
    numbers, and its special cards by name (advanced variant), so that a front end that
    shows text needs no catalogue of 1212's cards."""
    def card(c: str) -> str:
        entry = cards.get(c)
        return f"{c} (" + ", ".join(f"{k} {v}" for k, v in entry.items()) + ")" if isinstance(entry, dict) else c

    lines = ["hand: " + (", ".join(card(c) for c in hand) or "empty")]
    if isinstance(specials.get("hand"), list):
        catalog = specials.get("catalog") or {}
        names = [str((catalog.get(c) or {}).get("name", c)) for c in specials["hand"]]
        lines.append("special cards: " + (", ".join(names) or "none"))
    return lines
