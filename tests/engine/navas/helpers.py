"""Building exact 1212 positions for rule tests, through the engine's own state format."""

from __future__ import annotations

from typing import Any

from engine.navas import actions, apply, setup
from engine.navas.data import CATALOG
from engine.navas.victory import evaluate

ALL_CARDS = list(CATALOG.card_order)


def board(state: dict[str, Any], layout: dict[str, list[str]], powers: dict[str, int] | None = None) -> None:
    """Put exactly the listed units on the board (everything else eliminated)."""
    powers = powers or {}
    for rec in state["units"].values():
        rec.update({"zone": None, "power": 0, "exhausted": False})
    for zone, uids in layout.items():
        assert len(uids) <= 3, zone
        for uid in uids:
            state["units"][uid] = {"zone": zone, "power": powers.get(uid, 2), "exhausted": False}


def deployed_except(changes: dict[str, list[str]]) -> dict[str, list[str]]:
    """The deployment layout with some zones replaced (a unit listed elsewhere leaves its zone)."""
    layout: dict[str, list[str]] = {}
    for u in CATALOG.units.values():
        layout.setdefault(u.deploy, []).append(u.id)
    moved = {uid for uids in changes.values() for uid in uids}
    for zone in layout:
        layout[zone] = [u for u in layout[zone] if u not in moved]
    layout.update(changes)
    return {z: u for z, u in layout.items() if u}


def turn_state(role: str, card: str, layout: dict[str, list[str]], *, deck: list[str] = (),  # type: ignore[assignment]
               powers: dict[str, int] | None = None, advanced: bool = False, number: int = 1,
               seed: int = 1) -> dict[str, Any]:
    """A state in the action phase: ``role`` has just played ``card``; ``deck`` lies on top of
    the game deck in that order; the other cards sit in the initiative area and the hands so
    that all 9 cards are somewhere exactly once."""
    state = setup(seed, {"advanced": advanced})
    board(state, layout, powers)
    rest = [c for c in ALL_CARDS if c != card and c not in deck]
    other = "muslim" if role == "christian" else "christian"
    mine, theirs = {1: (1, 2), 2: (1, 1), 3: (0, 1), 4: (0, 0)}[number]
    state["initiative"] = {"christian": rest[0], "muslim": rest[1], "revealed": True, "shield": None}
    state["hands"] = {role: rest[2:2 + mine], other: rest[2 + mine:2 + mine + theirs]}
    after = rest[2 + mine + theirs:]
    state["discard"] = after[:number - 1]
    state["deck"] = list(deck) + after[number - 1:]
    used = [card, *state["deck"], *state["discard"], *state["hands"]["christian"], *state["hands"]["muslim"],
            state["initiative"]["christian"], state["initiative"]["muslim"]]
    assert sorted(used) == sorted(ALL_CARDS)
    state["deck_known"] = False
    state["known"] = {"christian": [], "muslim": []}
    state["phase"] = "action"
    state["first"] = role if number % 2 else other
    state["turn"] = {"role": role, "number": number, "card": card, "ap": CATALOG.cards[card].value(role),
                     "combats": 0, "archers": 0, "acted": False}
    state["pending"] = None
    state["combat"] = None
    state["log"] = []
    if advanced:
        state["phase"] = "action"
        for side in ("christian", "muslim"):
            state["specials"][side] = {"hand": [], "discarded": [], "reserve": list(CATALOG.special_order[side]),
                                       "used": []}
    assert evaluate(state) is None, "a test position must not already be won"
    return state


def give_specials(state: dict[str, Any], role: str, cards: list[str]) -> None:
    mine = state["specials"][role]
    for c in cards:
        mine["reserve"].remove(c)
        mine["hand"].append(c)


def find(state: dict[str, Any], role: str, **match: Any) -> dict[str, Any]:
    legal = actions(state, role)
    hits = [a for a in legal if all(a.get(k) == v for k, v in match.items())]
    assert len(hits) == 1, f"{match} matches {len(hits)} of {[a.get('label') for a in legal]}"
    return hits[0]


def has(state: dict[str, Any], role: str, **match: Any) -> bool:
    return any(all(a.get(k) == v for k, v in match.items()) for a in actions(state, role))


def do(state: dict[str, Any], role: str, **match: Any) -> dict[str, Any]:
    return apply(state, role, find(state, role, **match))


def shoot_with(state: dict[str, Any], role: str, archer: str) -> dict[str, Any]:
    """After an Archers order: ``archer`` shoots. Alike archers (same name and face, both fresh)
    are one choice (issue 38), so when every archer of the zone is alike no choice is asked and
    the first of them has shot; the step checks that an archer alike to ``archer`` did."""
    from engine.navas.core import alike_key

    pending = state["pending"]
    if pending is not None and pending["kind"] == "units":
        return do(state, role, type="units", units=[archer])
    assert any(alike_key(state, u)[:5] == alike_key(state, archer)[:5] and state["units"][u]["exhausted"]
               for u in CATALOG.unit_order if state["units"][u]["zone"] == state["units"][archer]["zone"]), archer
    return state


def zone_units(state: dict[str, Any], zone: str) -> list[str]:
    return [u for u in CATALOG.unit_order if state["units"][u]["zone"] == zone]


def power(state: dict[str, Any], uid: str) -> int:
    return int(state["units"][uid]["power"])


def logs(state: dict[str, Any]) -> str:
    return "\n".join(e["text"] for e in state["log"])
