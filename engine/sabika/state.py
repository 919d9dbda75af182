"""Sabika's state and the small helpers every chapter of the rules shares: the seats and
their order, the log, the rondels' squares, a player's holdings, gains of PP and Parias, and
the stack of decisions.

Every decision is a small step. ``state["stack"]`` holds the decisions under way (the top is
the last item); each has a ``kind`` and the ``role`` that takes it, and each kind is a
:class:`Decision` listed by the module of the rulebook chapter it belongs to. A resolver may
push more decisions (a bonus pushes one decision per effect, in order).

Rule references (``RuleError.rule``) are the rulebook's headings, as slugs listed in
``data/headings.json``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from engine import rng
from engine.api import Action, RuleError, State
from engine.sabika.data import DATA, EVENTS, GOODS, POEMS, STOREHOUSES
from engine.sabika.names import ITEM_NAME
from engine.text import sentence

COLOURS: list[str] = DATA["players"]["colours"]
YUSUF = "yusuf"
WORKERS = ("builder1", "builder2", "merchant", "poet")

# rule slugs (see data/headings.json)
R_SETUP = "game-setup"
R_PLAYER_SETUP = "player-setup"
R_ACTIONS = "phase-i-actions"
R_RESOURCES = "resources"
R_STOREHOUSES = "storehouses"
R_STOREHOUSE_ACTION = "storehouse-action"
R_MARKET = "market-action"
R_CONSTRUCTION = "construction-action"
R_MAJOR = "major-construction-action"
R_MINOR = "minor-construction-action"
R_EXPORT = "export-action"
R_CONSOLIDATE = "consolidate-action"
R_PRODUCE = "produce-action"
R_POEMS = "inner-rondel-carving-poems"
R_REACTIVATE = "reactivate-action"
R_ARTISANAL = "artisanal-labour-action"
R_SECONDARY = "secondary-actions"
R_PARIAS = "parias"
R_NARRATOR = "narrator"
R_START = "starting-player"


def ring(n: int, rondel: str) -> list[int]:
    """The squares of a rondel in play, clockwise: the 4-player square is covered otherwise."""
    return [i for i, sq in enumerate(DATA["rondels"][rondel]) if n == 4 or not sq.get("four")]


def secondaries(n: int, kind: str) -> list[int]:
    return [i for i, s in enumerate(DATA["secondary"][kind]) if n == 4 or not s.get("four")]


def event_is(s: State, role: str, effect: str) -> bool:
    """Whether the active Event has ``effect`` for ``role`` (Yusuf ignores Events)."""
    return role != YUSUF and s.get("event") is not None and EVENTS[s["event"]]["effect"] == effect


def draw_raw(s: State) -> str | None:
    if sum(s["bag"].values()) == 0:
        for g in GOODS:  # an empty bag is refilled with the discarded tokens
            s["bag"][g] += s["discard_goods"][g]
            s["discard_goods"][g] = 0
    pool = [g for g in GOODS for _ in range(s["bag"][g])]
    if not pool:
        return None
    g = rng.choice(s, pool)
    s["bag"][g] -= 1
    return g


def log(s: State, text: str) -> None:
    # a line that begins with a role begins with its name capitalised: "Blue takes clay"
    s["log"].append({"text": sentence(text)})


def order(s: State) -> list[str]:
    """The seats in turn order from the Starting Player (Yusuf has a seat in solo, never a role)."""
    seats: list[str] = s["seats"]
    i = seats.index(s["start"])
    return seats[i:] + seats[:i]


def seat(s: State, r: str) -> dict[str, Any]:
    """A player's or Yusuf's tokens (PP, Parias, Seals, Favour, Workers)."""
    found: dict[str, Any] = s[YUSUF] if r == YUSUF else s["players"][r]
    return found


def era(s: State) -> int:
    return int(DATA["rounds"]["era"][min(s["round"], 5) - 1])


def capacity(p: dict[str, Any], i: int) -> int:
    boxes = DATA["storehouses"]["starting_boxes"] + sum(STOREHOUSES[t]["boxes"] for t in p["stores"][i]["tiles"])
    if i == 0 and "storage" in blue_effects(p):
        boxes += 1
    return int(boxes)


def blue_effects(p: dict[str, Any]) -> list[str]:
    return [POEMS[c]["blue"] for c in p["blue"]]


def holdings(p: dict[str, Any]) -> dict[str, int]:
    count: dict[str, int] = {}
    for st in p["stores"]:
        for item in st["items"]:
            count[item] = count.get(item, 0) + 1
    return count


def has(p: dict[str, Any], item: str) -> bool:
    return any(item in st["items"] for st in p["stores"])


def take_item(s: State, p: dict[str, Any], item: str) -> None:
    """Remove one item from the first storehouse holding it (which storehouse gives it up is not a rule)."""
    for st in p["stores"]:
        if item in st["items"]:
            st["items"].remove(item)
            if item in GOODS:
                s["discard_goods"][item] += 1
            return
    raise RuleError(f"you have no {ITEM_NAME[item]}", R_STOREHOUSES)


def funds(p: dict[str, Any]) -> int:
    return int(p["dinars"] + p["seals"])


def gain_pp(s: State, role: str, n: int, why: str) -> None:
    p = seat(s, role)
    p["pp"] = max(0, p["pp"] + n)
    if n:
        log(s, f"{role} {'earns' if n > 0 else 'loses'} {abs(n)} PP ({why}).")


def gain_parias(s: State, role: str, n: int) -> None:
    p = seat(s, role)
    p["parias"] += n
    s["stamp"] = s.get("stamp", 0) + 1
    p["stamp"] = s["stamp"]  # a token landing on others goes on top of the pile


def push(s: State, decision: dict[str, Any]) -> None:
    s["stack"].append(decision)


def push_bonus(s: State, role: str, bonus: list[dict[str, Any]], why: str) -> None:
    """The effects of a bonus, resolved in the order printed (left to right)."""
    for effect in reversed(bonus):
        push(s, {"kind": "effect", "role": role, "effect": effect, "why": why})


def push_pay(s: State, role: str, amount: int, why: str) -> None:
    """A payment of Dinars; a player holding Seals decides how many of them pay (1 Dinar each)."""
    if amount <= 0:
        return
    push(s, {"kind": "pay", "role": role, "amount": amount, "why": why})


def push_store(s: State, role: str, item: str) -> None:
    push(s, {"kind": "store", "role": role, "item": item})


def opt(type_: str, label: str, **kw: Any) -> Action:
    """A menu entry: the action's fields, then its label (what the player reads)."""
    a: Action = {"type": type_, **kw}
    a["label"] = label
    return a


def active_effect(s: State) -> str | None:
    return str(EVENTS[s["event"]]["effect"]) if s.get("event") else None


class Decision(NamedTuple):
    """A kind of decision (``state["stack"]`` items name it by ``kind``): its legal answers, how
    an answer is carried out, and the rule slug a wrong answer cites. Each chapter's module lists
    its own in ``DECISIONS``; :mod:`.rules` gathers them. Stored games hold only the kinds."""

    options: Callable[[State, dict[str, Any]], list[Action]]
    resolve: Callable[[State, dict[str, Any], Action], None]
    rule: str
