"""What one player (or a spectator) may know: every city, supply and the yard, the display,
his own money, and counts of the rest.

Never in a view: another player's money cards (only how many he holds), the order of the
money deck or where the scoring cards lie in it, the bag's next draws, another player's
payment or rebuilding still being composed (only that he is choosing).
"""

from __future__ import annotations

from typing import Any

from engine.api import clone, visible_log
from engine.granada_city import city as C
from engine.granada_city import rules
from engine.granada_city.core import FLIP_PRICE, State, name, sort_cards, totals
from engine.granada_city.data import CATALOG, card_text, face, is_start, moats_of, other, type_name

TITLE = "Granada (Dirk Henn)"


def tile_view(tid: str, side: str) -> dict[str, Any]:
    """A tile as the picture and the built-in player read it; both faces are public (the colour
    mark shows the reverse type, and its price is the next odd or previous even value)."""
    if is_start(tid):
        return {"id": tid, "side": "start", "start": True, "colour": tid.split("-", 1)[1], "moats": []}
    f = face(tid, side)
    back = face(tid, other(side))
    assert f is not None and back is not None
    return {"id": tid, "side": side, "start": False, "type": f.type, "name": type_name(f.type), "price": f.price,
            "moats": [e for e in C.STEP if e in moats_of(tid)], "reverse_type": back.type,
            "reverse_price": back.price}


def card_view(cid: str) -> dict[str, Any]:
    """A money card as views show it: its ``name`` in the game's words ("1 blue"), which is
    what a player reads; the ``id`` only tells the copies apart."""
    cur, value = CATALOG.card(cid)
    return {"id": cid, "name": card_text(cid), "currency": cur, "value": value}


def _city(cityd: C.City) -> list[dict[str, Any]]:
    out = []
    for k in sorted(cityd, key=lambda k: C.cell_of(k)[::-1]):
        x, y = C.cell_of(k)
        out.append({"x": x, "y": y} | tile_view(*cityd[k]))
    return out


def phase(state: State) -> str:
    if state["stage"] == "over":
        return "over"
    if state["stage"] == "award":
        return "end of the game"
    return f"turn {state['turn']['number']}"


_ACTION_WORDS = {"take": "take money", "buy": "buy a tile from the construction yard", "rebuild": "rebuild your city"}


def _either(phrases: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " or " + phrases[-1]


def _action_prompt(legal: list[dict[str, Any]]) -> str:
    """The three actions the menu offers now, named in the heading: a heading that offered
    rebuilding above a menu without it, or "end your turn" where the extra action of an exact
    payment must be taken, misled (issue 38)."""
    kinds = {a["type"] for a in legal}
    return _either([words for kind, words in _ACTION_WORDS.items() if kind in kinds])


def _where_prompt(legal: list[dict[str, Any]]) -> str:
    """Where the bought tile may go, as the menu offers it."""
    kinds = {(a["type"], bool(a.get("flip"))) for a in legal}
    build = "build the tile in your city" if ("build", False) in kinds else ""
    if ("build", True) in kinds or ("dirk", True) in kinds:
        build += f" (flipping it costs {FLIP_PRICE} or more of one currency)" if build else ""
    phrases = [p for p in (build, "put it in your supply") if p]
    if ("dirk", False) in kinds:
        phrases.append("donate it to Dirk")
    text = _either(phrases)
    return text[0].upper() + text[1:] + "."


def prompt(state: State, role: str | None, legal: list[dict[str, Any]] | None = None) -> str:
    """What the role is asked now; its menu ``legal`` (the view's actions, worked out again if
    not given) names what the heading offers."""
    if legal is None:
        legal = rules.actions(state, role) if role is not None else []
    if state["stage"] == "over":
        return f"The game is over: {state['result']['reason']}."
    waiting = rules.active(state)
    pending = state["pending"]
    if role is None or role not in waiting:
        who = name(waiting[0])
        if state["stage"] == "award":
            return f"Waiting for {who} to build or store the tile received at the end of the game."
        if state["stage"] == "place":
            return f"Waiting for {who} to place the tiles bought this turn."
        return f"Waiting for {who} to play turn {state['turn']['number']}."
    turn = state["turn"]
    if state["stage"] == "award":
        return "You receive this leftover yard tile: build it now (never flipped) on a lettered position, or put it in your supply."
    if pending is None:
        if state["stage"] == "place":
            return "End of your turn: choose which bought tile to place next."
        if not any(a["type"] in _ACTION_WORDS for a in legal):
            if turn["actions"]:
                return "No further action is possible: end your turn."
            return "No action is possible: pass."
        if turn["actions"]:
            return f"Exact payment: take another action: {_action_prompt(legal)}."
        return f"Your turn: {_action_prompt(legal)}."
    kind = pending["kind"]
    if kind == "take":
        return "You may take more money cards while their total stays at most 5."
    if kind == "buy":
        entry = state["yard"][pending["space"] - 1]
        cur = CATALOG.yard_currency[pending["space"] - 1]
        paid = sum(CATALOG.card(c)[1] for c in pending["paid"])
        return (f"Pay for the tile at space {pending['space']} (price {rules.price(entry)}, {cur}), one card at a "
                f"time: {paid} paid so far. There is no change; an exact payment gives another action.")
    if kind == "rebuild":
        stage = pending["stage"]
        if stage == "position":
            return "Choose a lettered position for the tile from your supply."
        if stage == "supply":
            return "Choose the supply tile."
        return "Choose the tile of your city."
    stage = pending["stage"]
    if stage == "where":
        return _where_prompt(legal)
    if stage == "flip":
        paid = sum(CATALOG.card(c)[1] for c in pending["paid"])
        return f"Pay at least 3 of one currency to flip the tile ({paid} paid so far; no change)."
    return "Choose one of the lettered positions of your city."


def _pending(state: State, role: str | None) -> dict[str, Any] | None:
    pending = state["pending"]
    if pending is None:
        return None
    if pending["kind"] == "award":
        return {"kind": "award", "role": pending["role"], "space": pending["space"], "tile": tile_view(*pending["tile"])}
    if role not in rules.active(state):
        return None
    return dict(pending)


def view(state: State, role: str | None) -> dict[str, Any]:
    """The view, a copy that shares nothing with the state or another view (the
    contract: the service hands it out as it is, and a front end may edit it)."""
    return clone(_view(state, role))


def _view(state: State, role: str | None) -> dict[str, Any]:
    legal = rules.actions(state, role) if role is not None else []
    turn = state["turn"]
    roles = state["roles"]
    hand = sort_cards(state["hands"][role]) if role is not None else []
    return {
        "game": "granada_city",
        "title": TITLE,
        "role": role,
        "roles": list(roles),
        "options": dict(state["options"]),
        "phase": phase(state),
        "reaction": False,
        "focus": None,
        "stage": state["stage"],
        "active": rules.active(state),
        "turn": None if turn is None else {
            "role": turn["role"], "number": turn["number"], "actions": turn["actions"], "free": turn["free"],
            "bought": [tile_view(t[0], t[1]) | {"space": t[2]} for t in turn["bought"]]},
        "yard": [{"space": i + 1, "currency": CATALOG.yard_currency[i],
                  "tile": None if t is None else tile_view(*t)} for i, t in enumerate(state["yard"])],
        "marker": state["marker"],
        "display": [card_view(c) for c in state["display"]],
        "deck": {"size": len(state["deck"]),
                 "scoring_cards_left": [c for c in CATALOG.scoring_cards
                                        if not any(s["card"] == c for s in state["scorings"])
                                        and c not in state["due"]]},
        "discard": [card_view(c) for c in state["discard"]],
        "bag": {"size": len(state["bag"])},
        "cities": {r: _city(state["cities"][r]) for r in roles},
        "supplies": {r: [tile_view(*t) for t in state["supplies"][r]] for r in roles},
        "dirk": None if state["dirk"] is None else [tile_view(*t) for t in state["dirk"]],
        "moats": {r: C.longest_moat(state["cities"][r]) for r in roles},
        "scores": dict(state["scores"]),
        "hand": [card_view(c) for c in hand],
        "money": totals(hand) if role is not None else {},
        "hand_counts": {r: len(state["hands"][r]) for r in roles},
        "pending": _pending(state, role),
        "positions": rules.position_list(state, role) if role is not None else [],
        "scorings": list(state["scorings"]),
        "last_scoring": state["scorings"][-1] if state["scorings"] else None,
        "result": state["result"],
        "prompt": prompt(state, role, legal),
        "actions": legal,
        "log": visible_log(state["log"], role),
    }
