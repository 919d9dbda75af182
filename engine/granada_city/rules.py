"""Who acts, what they may do, and carrying out one decision: the contract's active/actions/apply.

A turn is a series of small steps. The active player chooses one of the three actions (take
money, buy a tile, rebuild); taking several money cards, paying card by card and rebuilding
in several parts are follow-up steps kept in ``state["pending"]``. An exact payment gives
another action; otherwise the tiles bought are placed one by one (city, supply, or Dirk in
the 2-player game), the display and the yard are refilled, due scorings are held, and the
next player's turn starts. The code that lists a legal step (:func:`_choices`) is the only
judge of legality: ``apply`` accepts exactly what it lists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.api import RuleError, clone, describe, find_action, strip_label
from engine.granada_city import city as C
from engine.granada_city.core import (
    FLIP_PRICE,
    MENU,
    S_BUILDING,
    S_BUY,
    S_END,
    S_MONEY,
    S_OBJECT,
    S_PLACE,
    S_REBUILD,
    S_SEQUENCE,
    Action,
    State,
    currency_of,
    log,
    name,
    totals,
    value_of,
)
from engine.granada_city.data import CATALOG, card_text, face, moats_of, other, tile_text, type_name
from engine.granada_city.scoring import DIRK, built, held, score
from engine.granada_city.setup import DISPLAY, draw_money, draw_tile
from engine.text import plural

SCORING_NAMES = {"A": "first", "B": "second", "C": "third and final"}


# ---------------------------------------------------------------- who acts


def active(state: State) -> list[str]:
    if state["stage"] == "over":
        return []
    if state["stage"] == "award":
        return [state["pending"]["role"]]
    return [state["turn"]["role"]]


def section_now(state: State) -> str:
    """The rulebook section that governs the decision the game waits on."""
    pending = state["pending"]
    if state["stage"] == "award":
        return S_END
    if state["stage"] == "place":
        return S_PLACE
    if pending is not None:
        return {"take": S_MONEY, "buy": S_BUY, "rebuild": S_REBUILD}[pending["kind"]]
    return S_SEQUENCE


# ---------------------------------------------------------------- helpers


def price(entry: list[str]) -> int:
    f = face(entry[0], entry[1])
    assert f is not None
    return f.price


def _can_flip(hand: list[str]) -> bool:
    return any(v >= FLIP_PRICE for v in totals(hand).values())


def one_per_value(cards: list[str]) -> list[str]:
    """The first card of each currency and value, in the order given: two ``8 yellow`` cards on
    display are one choice (whichever is taken, the game goes on alike), not two entries that
    read the same (issue 38). ``apply`` still accepts any copy, so older logs replay."""
    seen: set[tuple[str, int]] = set()
    out = []
    for c in cards:
        if CATALOG.card(c) not in seen:
            seen.add(CATALOG.card(c))
            out.append(c)
    return out


def _every(cards: list[str]) -> list[str]:
    return cards


def _flip_currencies(hand: list[str]) -> str:
    """The currencies ``hand`` can flip a tile with, and how much of each it holds:
    ``"blue (you hold 5) or yellow (you hold 4)"``."""
    have = [(cur, v) for cur, v in totals(hand).items() if v >= FLIP_PRICE]
    return " or ".join(f"{cur} (you hold {v})" for cur, v in have)


def _pay_label(card: str, paid: list[str], target: int, exact_bonus: bool) -> str:
    total = sum(value_of(c) for c in paid) + value_of(card)
    text = f"Pay {card_text(card)} (total {total} of {target}"
    if total < target:
        return text + ")"
    if total == target:
        return text + (": exact, another action)" if exact_bonus else ": exact)")
    return text + (": no change, your turn ends)" if exact_bonus else ": no change)")


def _positions(cityd: C.City, tid: str) -> list[dict[str, Any]]:
    out = []
    for i, cell in enumerate(C.positions(cityd, tid)):
        letter = C.position_label(i)
        out.append({"type": "position", "x": cell[0], "y": cell[1], "label": f"{letter}: {C.where(cell)}"})
    return out


def position_list(state: State, role: str) -> list[dict[str, Any]]:
    """The labelled positions the role may build on now (for its picture), or []."""
    tid = _tile_to_place(state, role)
    if tid is None:
        return []
    return [{"label": a["label"].split(":")[0], "x": a["x"], "y": a["y"]}
            for a in _positions(state["cities"][role], tid)]


def _tile_to_place(state: State, role: str) -> str | None:
    pending = state["pending"]
    if pending is None or role not in active(state):
        return None
    if pending["kind"] == "award":
        return str(pending["tile"][0])
    if pending["kind"] == "place" and pending["stage"] == "position":
        return str(state["turn"]["bought"][pending["index"]][0])
    if pending["kind"] == "rebuild" and pending["how"] == "extend" and pending["stage"] == "position":
        return str(state["supplies"][role][pending["index"]][0])
    return None


def _exchangeable(state: State, role: str, cell: C.Cell) -> list[int]:
    cityd = state["cities"][role]
    return [i for i, (tid, side) in enumerate(state["supplies"][role])
            if C.exchange_problem(cityd, cell, tid, side) is None]


def _removable(state: State, role: str, first: bool = False) -> list[C.Cell]:
    """Cells whose tile may go back to the supply (``first``: stop at the first one)."""
    cityd = state["cities"][role]
    out = []
    for k in sorted(cityd, key=lambda k: C.cell_of(k)[::-1]):
        if C.removal_problem(cityd, C.cell_of(k)) is None:
            out.append(C.cell_of(k))
            if first:
                break
    return out


def _extendable(state: State, role: str, first: bool = False) -> list[int]:
    """Supply tiles that fit somewhere in the city (``first``: stop at the first one)."""
    cityd = state["cities"][role]
    seen: dict[frozenset[str], bool] = {}
    out = []
    for i, (tid, _side) in enumerate(state["supplies"][role]):
        m = moats_of(tid)
        if m not in seen:
            seen[m] = bool(C.positions(cityd, tid))
        if seen[m]:
            out.append(i)
            if first:
                break
    return out


def _cells(state: State, role: str) -> list[C.Cell]:
    return sorted((C.cell_of(k) for k in state["cities"][role] if k != "0,0"), key=lambda c: (c[1], c[0]))


def _cell_action(state: State, role: str, cell: C.Cell) -> Action:
    tid, side = state["cities"][role][C.key(cell)]
    return {"type": "cell", "x": cell[0], "y": cell[1], "label": f"{tile_text(tid, side)} at {C.where(cell)}"}


def _supply_action(state: State, role: str, i: int) -> Action:
    tid, side = state["supplies"][role][i]
    return {"type": "supply_tile", "index": i, "label": f"{tile_text(tid, side)} from your supply"}


# ---------------------------------------------------------------- legal steps


def _choices(state: State, role: str, want: str | None = None,
             copies: bool = False) -> tuple[list[Action], list[Action]]:
    """(choices, fixed steps such as back): every legal step, unpaged.

    ``want`` (an action type) lets ``apply`` skip the costly rebuilding checks of the action
    menu when the step to check is another kind; the listing itself always has them all.
    ``copies``: every money card, not one per currency and value (:func:`one_per_value`), for
    ``apply`` to accept a stored step that took or paid another copy of a listed card.
    """
    cards = _every if copies else one_per_value
    pending = state["pending"]
    turn = state["turn"]
    back = [{"type": "back", "label": "Back"}]
    if state["stage"] == "award":
        tid, side = pending["tile"]
        return _positions(state["cities"][role], tid), [
            {"type": "supply", "side": side, "label": f"Put the {tile_text(tid, side)} in your supply"}]
    hand = state["hands"][role]
    if pending is not None and pending["kind"] == "take":
        room = sum(value_of(c) for c in pending["taken"])
        return ([{"type": "take", "card": c, "label": f"Also take {card_text(c)} (total {room + value_of(c)})"}
                 for c in cards(state["display"]) if room + value_of(c) <= 5],
                [{"type": "done", "label": "Take no more money"}])
    if pending is not None and pending["kind"] == "buy":
        entry = state["yard"][pending["space"] - 1]
        cur = CATALOG.yard_currency[pending["space"] - 1]
        target = price(entry)
        return ([{"type": "pay", "card": c, "label": _pay_label(c, pending["paid"], target, True)}
                 for c in cards([c for c in hand if currency_of(c) == cur and c not in pending["paid"]])],
                back)
    if pending is not None and pending["kind"] == "rebuild":
        return _rebuild_choices(state, role, pending), back
    if state["stage"] == "place":
        if pending is None:
            return [{"type": "tile", "index": i,
                     "label": f"Place the {tile_text(t[0], t[1])} bought at space {t[2]}"}
                    for i, t in enumerate(turn["bought"])], []
        return _place_choices(state, role, pending, cards)
    # the action menu
    out: list[Action] = []
    for c in cards(state["display"]):
        out.append({"type": "take", "card": c, "label": f"Take {card_text(c)}"})
    have = totals(hand)
    for i, entry in enumerate(state["yard"]):
        if entry is None:
            continue
        cur = CATALOG.yard_currency[i]
        if have[cur] >= price(entry):
            out.append({"type": "buy", "space": i + 1,
                        "label": f"Buy the {tile_text(entry[0], entry[1])} at space {i + 1} "
                                 f"(pay {cur}; you hold {have[cur]})"})
    fixed: list[Action] = []
    if want not in (None, "rebuild", "pass", "end"):
        return out, fixed
    if _extendable(state, role, first=True):
        out.append({"type": "rebuild", "how": "extend", "label": "Rebuild: extend your city from your supply"})
    if _removable(state, role, first=True):
        out.append({"type": "rebuild", "how": "remove", "label": "Rebuild: move a tile of your city to your supply"})
    if state["supplies"][role] and any(_exchangeable(state, role, c) for c in _cells(state, role)):
        out.append({"type": "rebuild", "how": "exchange",
                    "label": "Rebuild: exchange a tile of your city for one of your supply"})
    if not out:
        # the extra action of an exact payment is an action like the first one ("again deciding
        # between the three possible actions"): it ends the turn only when none is possible
        if turn["actions"]:
            fixed.append({"type": "end", "label": "End your turn: no further action is possible"})
        else:
            fixed.append({"type": "pass", "pass": True, "label": "Pass: no action is possible"})
    return out, fixed


def _rebuild_choices(state: State, role: str, pending: dict[str, Any]) -> list[Action]:
    how, stage = pending["how"], pending["stage"]
    if how == "extend":
        if stage == "supply":
            return [_supply_action(state, role, i) for i in _extendable(state, role)]
        return _positions(state["cities"][role], state["supplies"][role][pending["index"]][0])
    if how == "remove":
        return [_cell_action(state, role, c) for c in _removable(state, role)]
    if stage == "cell":
        return [_cell_action(state, role, c) for c in _cells(state, role) if _exchangeable(state, role, c)]
    cell = (pending["x"], pending["y"])
    return [_supply_action(state, role, i) for i in _exchangeable(state, role, cell)]


def _place_choices(state: State, role: str, pending: dict[str, Any],
                   cards: Callable[[list[str]], list[str]]) -> tuple[list[Action], list[Action]]:
    turn = state["turn"]
    tid, side, _space = turn["bought"][pending["index"]]
    hand = state["hands"][role]
    back = [{"type": "back", "label": "Back"}] if len(turn["bought"]) > 1 else []
    stage = pending["stage"]
    if stage == "where":
        out: list[Action] = []
        flip = other(side)
        can_flip = _can_flip(hand)
        if C.positions(state["cities"][role], tid):
            out.append({"type": "build", "flip": False, "label": f"Build the {tile_text(tid, side)} in your city"})
            if can_flip:
                out.append({"type": "build", "flip": True,
                            "label": f"Pay {FLIP_PRICE}+ in {_flip_currencies(hand)} to flip it to the "
                                     f"{tile_text(tid, flip)} and build that"})
        for s in ("even", "odd"):
            out.append({"type": "supply", "side": s, "label": f"Put it in your supply as the {tile_text(tid, s)}"})
        if state["dirk"] is not None:
            out.append({"type": "dirk", "flip": False, "label": f"Donate the {tile_text(tid, side)} to Dirk"})
            if can_flip:
                out.append({"type": "dirk", "flip": True,
                            "label": f"Pay {FLIP_PRICE}+ in {_flip_currencies(hand)} to flip it and donate the "
                                     f"{tile_text(tid, flip)} to Dirk"})
        return out, back
    if stage == "flip":
        paid = pending["paid"]
        cur = currency_of(paid[0]) if paid else None
        return ([{"type": "pay", "card": c, "label": _pay_label(c, paid, FLIP_PRICE, False)}
                 for c in cards([c for c in hand if c not in paid and (cur is None or currency_of(c) == cur)
                                         and (cur is not None or totals(hand)[currency_of(c)] >= FLIP_PRICE)])],
                [{"type": "back", "label": "Back"}])
    return _positions(state["cities"][role], tid), ([] if pending.get("flipped") else [{"type": "back",
                                                                                        "label": "Back"}])


def _page(choices: list[Action], fixed: list[Action], page: int) -> list[Action]:
    """The page of a long list a stored ``page`` step was chosen from: what ``actions``
    offered before navigation left the games, kept to replay those logs (``NAV_TYPES``)."""
    if len(choices) + len(fixed) <= MENU:
        return choices + fixed
    per = MENU - len(fixed) - 2
    pages = (len(choices) + per - 1) // per
    page = min(page, pages - 1)
    shown = choices[page * per:(page + 1) * per]
    nav: list[Action] = []
    if page > 0:
        nav.append({"type": "page", "page": page - 1, "label": f"Previous choices (page {page} of {pages})"})
    if page < pages - 1:
        nav.append({"type": "page", "page": page + 1, "label": f"More choices (page {page + 2} of {pages})"})
    return shown + nav + fixed


def actions(state: State, role: str) -> list[Action]:
    """Every legal step of ``role`` at once (a front end pages a long list, engine/api.py)."""
    if role not in active(state):
        return []
    choices, fixed = _choices(state, role)
    return choices + fixed


# ---------------------------------------------------------------- apply


def apply(state: State, role: str, action: Action) -> State:
    if state["stage"] == "over":
        raise RuleError("The game is over", S_END)
    if role not in state["roles"]:
        raise RuleError(f"There is no player {role!r}; the players are {', '.join(state['roles'])}", S_OBJECT)
    waiting = active(state)
    if role not in waiting:
        raise RuleError(f"It is not {name(role)}'s turn; waiting for {name(waiting[0])}", S_SEQUENCE)
    want = str(action.get("type")) if isinstance(action, dict) else None
    choices, fixed = _choices(state, role, want, copies=True)
    shown = _page(choices, fixed, state["page"])
    legal = choices + fixed + [a for a in shown if a["type"] == "page"]
    found = find_action(legal, action) if isinstance(action, dict) else None
    if found is None:
        raise _refuse(state, role, action, sum(_choices(state, role), []))
    new = clone(state)
    _dispatch(new, role, strip_label(found))
    return new


def _refuse(state: State, role: str, action: Any, shown: list[Action]) -> RuleError:
    allowed = [describe(a) for a in shown]
    what = describe(action) if isinstance(action, dict) else repr(action)
    if isinstance(action, dict) and action.get("type") == "position" and _tile_to_place(state, role):
        try:
            cell = (int(action["x"]), int(action["y"]))
        except (KeyError, TypeError, ValueError):
            cell = None
        tid = _tile_to_place(state, role)
        if cell is not None and tid is not None:
            why = C.add_problem(state["cities"][role], tid, cell)
            if why:
                return RuleError(f"Cannot build at {C.where(cell)}: {why}", S_BUILDING, allowed)
    if isinstance(action, dict) and action.get("type") == "buy" and state["pending"] is None \
            and state["stage"] == "play":
        return RuleError(f"{what}: you must pay at least the tile's price in the currency of its space "
                         "(an empty space cannot be bought)", S_BUY, allowed)
    return RuleError(f"{what} is not a legal step now", section_now(state), allowed)


def _dispatch(state: State, role: str, action: Action) -> None:
    kind = action["type"]
    pending = state["pending"]
    if kind == "page":
        state["page"] = action["page"]
        return
    state["page"] = 0
    if state["stage"] == "award":
        _award_step(state, role, action)
        return
    if pending is not None and pending["kind"] == "take":
        if kind == "done":
            state["pending"] = None
            _after_action(state, exact=False)
        else:
            _take(state, role, action["card"])
        return
    if pending is not None and pending["kind"] == "buy":
        if kind == "back":
            state["pending"] = None
        else:
            _pay_for_tile(state, role, action["card"])
        return
    if pending is not None and pending["kind"] == "rebuild":
        _rebuild_step(state, role, action)
        return
    if state["stage"] == "place":
        _place_step(state, role, action)
        return
    if kind == "take":
        state["pending"] = {"kind": "take", "taken": []}
        _take(state, role, action["card"])
    elif kind == "buy":
        state["pending"] = {"kind": "buy", "space": action["space"], "paid": []}
    elif kind == "rebuild":
        first = "supply" if action["how"] == "extend" else "cell"
        state["pending"] = {"kind": "rebuild", "how": action["how"], "stage": first}
    elif kind == "end":
        log(state, f"{name(role)} can take no further action.")
        state["turn"]["free"] = False
        _continue(state)
    elif kind == "pass":
        log(state, f"{name(role)} can do nothing and passes.")
        state["turn"]["free"] = False
        _continue(state)
    else:
        raise AssertionError(kind)


def _take(state: State, role: str, card: str) -> None:
    pending = state["pending"]
    state["display"].remove(card)
    state["hands"][role].append(card)
    pending["taken"].append(card)
    log(state, f"{name(role)} takes {card_text(card)} from the display.")
    room = sum(value_of(c) for c in pending["taken"])
    if room > 5 or not any(room + value_of(c) <= 5 for c in state["display"]):
        state["pending"] = None
        _after_action(state, exact=False)


def _pay_for_tile(state: State, role: str, card: str) -> None:
    pending = state["pending"]
    pending["paid"].append(card)
    space = pending["space"]
    entry = state["yard"][space - 1]
    target = price(entry)
    paid = sum(value_of(c) for c in pending["paid"])
    if paid < target:
        return
    for c in pending["paid"]:
        state["hands"][role].remove(c)
        state["discard"].append(c)
    state["yard"][space - 1] = None
    state["turn"]["bought"].append([entry[0], entry[1], space])
    state["pending"] = None
    exact = paid == target
    log(state, f"{name(role)} buys the {tile_text(entry[0], entry[1])} at space {space}, paying "
               f"{' + '.join(card_text(c) for c in pending['paid'])} = {paid}"
               + (": exact, another action." if exact else " (no change): the turn ends."))
    _after_action(state, exact=exact)


def _after_action(state: State, exact: bool) -> None:
    turn = state["turn"]
    turn["actions"] += 1
    turn["free"] = exact
    _continue(state)


def _continue(state: State) -> None:
    turn = state["turn"]
    if turn["free"]:
        state["stage"] = "play"
        return
    if turn["bought"]:
        state["stage"] = "place"
        if len(turn["bought"]) == 1 and state["pending"] is None:
            state["pending"] = {"kind": "place", "index": 0, "stage": "where"}
        return
    end_turn(state)


def _rebuild_step(state: State, role: str, action: Action) -> None:
    pending = state["pending"]
    kind = action["type"]
    how = pending["how"]
    if kind == "back":
        if pending["stage"] in ("position",) or (how == "exchange" and pending["stage"] == "supply"):
            pending["stage"] = "supply" if how == "extend" else "cell"
        else:
            state["pending"] = None
        return
    cityd = state["cities"][role]
    supply = state["supplies"][role]
    if kind == "supply_tile" and how == "extend":
        pending["stage"], pending["index"] = "position", action["index"]
        return
    if kind == "position":
        tid, side = supply.pop(pending["index"])
        cityd[C.key((action["x"], action["y"]))] = [tid, side]
        log(state, f"{name(role)} rebuilds: the {tile_text(tid, side)} from the supply is built at "
                   f"{C.where((action['x'], action['y']))}.")
    elif kind == "cell" and how == "remove":
        tid, side = cityd.pop(C.key((action["x"], action["y"])))
        supply.append([tid, side])
        log(state, f"{name(role)} rebuilds: the {tile_text(tid, side)} at {C.where((action['x'], action['y']))} "
                   "goes to the supply.")
    elif kind == "cell":
        pending["stage"], pending["x"], pending["y"] = "supply", action["x"], action["y"]
        return
    else:
        cell = (pending["x"], pending["y"])
        new = supply.pop(action["index"])
        old = cityd[C.key(cell)]
        cityd[C.key(cell)] = new
        supply.append(old)
        log(state, f"{name(role)} rebuilds: the {tile_text(*old)} at {C.where(cell)} is exchanged for the "
                   f"{tile_text(*new)} from the supply.")
    assert C.problem(cityd) is None
    state["pending"] = None
    _after_action(state, exact=False)


def _place_step(state: State, role: str, action: Action) -> None:
    pending = state["pending"]
    kind = action["type"]
    turn = state["turn"]
    if pending is None:
        state["pending"] = {"kind": "place", "index": action["index"], "stage": "where"}
        return
    tid, side, _space = turn["bought"][pending["index"]]
    if kind == "back":
        if pending["stage"] == "where":
            state["pending"] = None
        else:
            state["pending"] = {"kind": "place", "index": pending["index"], "stage": "where"}
        return
    if pending["stage"] == "where":
        if kind == "supply":
            state["supplies"][role].append([tid, action["side"]])
            log(state, f"{name(role)} puts the {tile_text(tid, action['side'])} in the supply.")
            _placed(state)
        elif action.get("flip"):
            pending["stage"], pending["dest"], pending["paid"] = "flip", ("dirk" if kind == "dirk" else "city"), []
        elif kind == "dirk":
            state["dirk"].append([tid, side])
            log(state, f"{name(role)} donates the {tile_text(tid, side)} to Dirk.")
            _placed(state)
        else:
            pending["stage"], pending["side"] = "position", side
        return
    if pending["stage"] == "flip":
        pending["paid"].append(action["card"])
        paid = sum(value_of(c) for c in pending["paid"])
        if paid < FLIP_PRICE:
            return
        for c in pending["paid"]:
            state["hands"][role].remove(c)
            state["discard"].append(c)
        flip = other(side)
        log(state, f"{name(role)} pays {' + '.join(card_text(c) for c in pending['paid'])} = {paid} to flip the "
                   f"{tile_text(tid, side)} over to the {tile_text(tid, flip)}.")
        turn["bought"][pending["index"]][1] = flip
        if pending["dest"] == "dirk":
            state["dirk"].append([tid, flip])
            log(state, f"{name(role)} donates the {tile_text(tid, flip)} to Dirk.")
            _placed(state)
        else:
            state["pending"] = {"kind": "place", "index": pending["index"], "stage": "position", "side": flip,
                                "flipped": True}
        return
    cell = (action["x"], action["y"])
    state["cities"][role][C.key(cell)] = [tid, side]
    assert C.problem(state["cities"][role]) is None
    log(state, f"{name(role)} builds the {tile_text(tid, side)} at {C.where(cell)}.")
    _placed(state)


def _placed(state: State) -> None:
    turn = state["turn"]
    turn["bought"].pop(state["pending"]["index"])
    state["pending"] = None
    if turn["bought"]:
        _continue(state)
    else:
        end_turn(state)


# ---------------------------------------------------------------- end of turn, scoring, end


def start_turn(state: State, role: str) -> None:
    state["turn_number"] += 1
    state["turn"] = {"role": role, "number": state["turn_number"], "free": True, "actions": 0, "bought": []}
    state["stage"] = "play"
    state["pending"] = None
    log(state, f"Turn {state['turn_number']}: {name(role)}.")


def end_turn(state: State) -> None:
    state["pending"] = None
    while len(state["display"]) < DISPLAY:
        card = draw_money(state)
        if card is None:
            break
        if card in CATALOG.scoring_cards:
            state["due"].append(card)
            log(state, f"Scoring card {card} is revealed: it is replaced by a money card and scored before "
                       "the next turn.")
            continue
        state["display"].append(card)
    empty = [i for i, t in enumerate(state["yard"]) if t is None]
    complete = len(state["bag"]) >= len(empty)
    drawn = []
    for i in empty:
        if not state["bag"]:
            break
        state["yard"][i] = draw_tile(state, state["marker"])
        drawn.append(f"{i + 1}: {tile_text(*state['yard'][i])}")
    if drawn:
        log(state, f"The construction yard is refilled ({state['marker']} side up): {', '.join(drawn)}.")
        state["marker"] = other(state["marker"])
    log(state, "Money on display: " + (", ".join(card_text(c) for c in state["display"]) or "none") + ".")
    for card in state["due"]:
        hold_scoring(state, card)
    state["due"] = []
    if not complete:
        log(state, "The construction yard cannot be refilled completely: the game ends.")
        state["awards"] = [i + 1 for i, t in enumerate(state["yard"]) if t is not None]
        next_award(state)
        return
    roles = state["roles"]
    start_turn(state, roles[(roles.index(state["turn"]["role"]) + 1) % len(roles)])


def competitors(state: State) -> dict[str, list[tuple[str, int]]]:
    out = {r: built(state["cities"][r]) for r in state["roles"]}
    if state["dirk"] is not None:
        out[DIRK] = held(state["dirk"])
    return out


def seated(state: State, table: dict[str, int]) -> list[tuple[str, int]]:
    """``table``'s entries in seat order (Dirk after the players), not in the dict's order: a
    state read back from JSON with sorted keys must step and log the same."""
    order = {w: i for i, w in enumerate(state["roles"])}
    return sorted(table.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))


def hold_scoring(state: State, card: str) -> None:
    report = score(card, competitors(state), state["cities"], state["options"]["simplified"])
    for who, pts in report["points"].items():
        state["scores"][who] += pts
    state["scorings"].append(report)
    parts = []
    for kind, entry in report["types"].items():
        winners = [f"{name(r['who'])} {r['points']}" for r in entry["ranking"] if r["points"]]
        if winners:
            parts.append(f"{type_name(kind)} ({entry['total']}): {', '.join(winners)}")
    moats = [f"{name(w)} {n}" for w, n in seated(state, report["moats"]) if n]
    log(state, f"Scoring {card} (the {SCORING_NAMES[card]}): " + ("; ".join(parts) or "no buildings")
        + ". Longest moats: " + (", ".join(moats) or "none") + ". Scores: "
        + ", ".join(f"{name(w)} {s}" for w, s in seated(state, state["scores"])) + ".")
    if state["dirk"] is not None and card in ("A", "B"):
        n = 6 if card == "A" else len(state["bag"]) // 3
        n = min(n, len(state["bag"]))
        new = [draw_tile(state, state["marker"]) for _ in range(n)]
        state["dirk"].extend(new)
        if new:
            log(state, f"Dirk receives {plural(len(new), 'more tile')} ({state['marker']} side up): "
                       + ", ".join(tile_text(*t) for t in new) + ".")


def award_receiver(state: State, space: int) -> str | None:
    """Who receives a leftover yard tile: the one holding the most of its space's currency."""
    cur = CATALOG.yard_currency[space - 1]
    held_money = {r: totals(state["hands"][r])[cur] for r in state["roles"]}
    top = max(held_money.values())
    best = [r for r, v in held_money.items() if v == top]
    return best[0] if len(best) == 1 and top > 0 else None


def next_award(state: State) -> None:
    while state["awards"]:
        space = state["awards"].pop(0)
        entry = state["yard"][space - 1]
        receiver = award_receiver(state, space)
        if receiver is None:
            state["yard"][space - 1] = None
            log(state, f"Nobody holds the most {CATALOG.yard_currency[space - 1]} money: the "
                       f"{tile_text(*entry)} at space {space} is given to no one.")
            continue
        state["yard"][space - 1] = None
        log(state, f"{name(receiver)} holds the most {CATALOG.yard_currency[space - 1]} money and receives the "
                   f"{tile_text(*entry)} from space {space}.")
        state["stage"] = "award"
        state["pending"] = {"kind": "award", "role": receiver, "space": space, "tile": list(entry)}
        return
    state["pending"] = None
    hold_scoring(state, "C")
    finish(state)


def _award_step(state: State, role: str, action: Action) -> None:
    tid, side = state["pending"]["tile"]
    if action["type"] == "position":
        cell = (action["x"], action["y"])
        state["cities"][role][C.key(cell)] = [tid, side]
        log(state, f"{name(role)} builds the {tile_text(tid, side)} at {C.where(cell)}.")
    else:
        state["supplies"][role].append([tid, side])
        log(state, f"{name(role)} puts the {tile_text(tid, side)} in the supply.")
    next_award(state)


def finish(state: State) -> None:
    scores = {r: state["scores"][r] for r in state["roles"]}
    top = max(scores.values())
    winners = [r for r in state["roles"] if scores[r] == top]
    if len(winners) == 1:
        reason = f"{name(winners[0])} has the most victory points ({top})"
    else:
        reason = f"{' and '.join(name(w) for w in winners)} share the win with {top} victory points"
    score_all = dict(seated(state, state["scores"]))
    state["result"] = {"winner": winners[0] if len(winners) == 1 else None, "winners": winners,
                       "reason": reason, "score": score_all}
    state["stage"] = "over"
    state["pending"] = None
    log(state, f"Game over: {reason}. Final scores: " + ", ".join(f"{name(w)} {s}" for w, s in score_all.items())
        + ".")

