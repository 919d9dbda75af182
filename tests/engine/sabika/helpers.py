"""Helpers for Sabika tests: a started game, holdings set by hand, steps found by their fields."""

from __future__ import annotations

from typing import Any

from engine.api import State
from engine.sabika.rules import actions, apply
from engine.sabika.setup import new_state
from engine.sabika.state import capacity


def started(n: int = 2, seed: int = 1) -> State:
    """A game right after setup: Starting tiles chosen (the first offered), their bonuses settled."""
    s = new_state(seed, n)
    for r in s["roles"]:
        s = apply(s, r, actions(s, r)[0])
    while s["stack"] and s["stack"][-1]["kind"] != "turn":
        r = s["stack"][-1]["role"]
        s = apply(s, r, actions(s, r)[0])
    return s


def blank(n: int = 2, seed: int = 1, dinars: int = 10) -> State:
    """A started game where every player has empty storehouses, ``dinars`` Dinars, 5 PP and 0 Parias;
    the Sultan's Workers are taken off the board so that costs are only the ones a test sets up."""
    s = started(n, seed)
    for p in s["players"].values():
        p.update(dinars=dinars, parias=0, pp=5, seals=0, processing=[])
        for st in p["stores"]:
            st["items"] = []
            st["tiles"] = []
    s["sultan"] = {"outer": [], "middle": [], "inner": []}
    s["log"] = []
    return s


def turn_of(s: State, role: str) -> State:
    """Make it ``role``'s turn (the stack holds only its turn decision)."""
    s["stack"] = [{"kind": "turn", "role": role}]
    s["turn"] = role
    return s


def give(s: State, role: str, *items: str, store: int = 0) -> None:
    p = s["players"][role]
    p["stores"][store]["items"].extend(items)
    while len(p["stores"][store]["items"]) > capacity(p, store):
        p["stores"][store]["tiles"].append("s24")  # a 3-box tile, only to make room for the test's items


def find(s: State, role: str, type_: str, **fields: Any) -> dict[str, Any]:
    for a in actions(s, role):
        if a["type"] == type_ and all(a.get(k) == v for k, v in fields.items()):
            return a
    raise AssertionError(f"no legal {type_} {fields} for {role}; legal: {[a['label'] for a in actions(s, role)]}")


def step(s: State, role: str, type_: str, **fields: Any) -> State:
    return apply(s, role, find(s, role, type_, **fields))


def kinds(s: State) -> str | None:
    return s["stack"][-1]["kind"] if s["stack"] else None


def legal_types(s: State, role: str) -> list[str]:
    return [a["type"] for a in actions(s, role)]


def work(s: State, role: str, worker: str, square: int, *, main: bool = True) -> State:
    """Activate ``worker``, move it to ``square`` and (optionally) choose the square's main action."""
    s = step(s, role, "worker", worker=worker)
    s = step(s, role, "move", square=square)
    while kinds(s) == "pay":
        s = step(s, role, "seals", n=0)
    if main:
        s = step(s, role, "main")
    return s


def put_first(s: State, role: str) -> State:
    """Answer 'store' decisions with the first storehouse that has room."""
    while kinds(s) == "store" and s["stack"][-1]["role"] == role:
        s = apply(s, role, actions(s, role)[0])
    return s
