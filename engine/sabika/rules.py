"""Sabika's rules as one game: the decisions of every chapter gathered, and the game flow.

The rules are split the way the rulebook is: :mod:`.state` (the state and the helpers every
chapter shares), :mod:`.setup` (Game setup, Player setup), :mod:`.turn` (Phase I, a turn on
the rondels), :mod:`.resources` (Resources, Storehouses), :mod:`.outer` (the Storehouse and
Market actions), :mod:`.construction` (the Construction action), :mod:`.middle` (exporting
Goods), :mod:`.inner` (carving Poems), :mod:`.bonuses`, :mod:`.parias`, :mod:`.round_end`
(Phase 2 and the end of the game), :mod:`.scoring` and :mod:`.yusuf` (solo mode).

Each chapter lists its kinds of decision (``DECISIONS``); a stored game names a decision by
its ``kind`` only, never by a module, so the code behind a kind may move between files. Here
:func:`options` lists the legal answers to the decision on top of the stack, :func:`apply`
carries one out, and :func:`_advance` resolves the automatic decisions and runs the game flow
(the next turn, the end-of-round steps) until a player must decide.
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, RuleError, State, clone, require_legal
from engine.sabika.bonuses import DECISIONS as BONUSES
from engine.sabika.bonuses import resolve_effect
from engine.sabika.construction import DECISIONS as CONSTRUCTION
from engine.sabika.inner import DECISIONS as INNER
from engine.sabika.inner import poem_done
from engine.sabika.middle import DECISIONS as MIDDLE
from engine.sabika.middle import arrive
from engine.sabika.outer import DECISIONS as OUTER
from engine.sabika.parias import DECISIONS as PARIAS
from engine.sabika.resources import DECISIONS as RESOURCES
from engine.sabika.round_end import STEPS
from engine.sabika.setup import DECISIONS as SETUP
from engine.sabika.state import R_ACTIONS, R_PLAYER_SETUP, R_SETUP, YUSUF, Decision, log, order, push
from engine.sabika.turn import DECISIONS as TURN
from engine.sabika.yusuf import DECISIONS as SOLO
from engine.sabika.yusuf import yusuf_step, yusuf_turn


def _gathered(*chapters: dict[str, Decision]) -> dict[str, Decision]:
    found: dict[str, Decision] = {}
    for chapter in chapters:
        for kind, decision in chapter.items():
            if kind in found:
                raise ValueError(f"sabika: the decision kind {kind!r} is listed by two chapters")
            found[kind] = decision
    return found


DECISIONS = _gathered(SETUP, TURN, BONUSES, RESOURCES, OUTER, CONSTRUCTION, MIDDLE, INNER, PARIAS, SOLO)
"""Every kind of decision, from the chapter that lists it."""
RULE_OF: dict[str, str] = {kind: d.rule for kind, d in DECISIONS.items()}

# decisions that are never a choice: resolved as soon as they reach the top of the stack
_AUTOMATIC = {"effect", "yusuf"}
# decisions with a single answer the flow takes on the player's behalf
_SINGLE = ("store", "pickmat", "pay", "raw", "favour", "expand_where")


def options(s: State, dec: dict[str, Any]) -> list[Action]:
    return list(DECISIONS[dec["kind"]].options(s, dec))


def active(s: State) -> list[str]:
    if s["phase"] == "over":
        return []
    if s["phase"] == "setup":
        return [r for r in s["roles"] if s["players"][r]["start_tile"] is None]
    return [s["stack"][-1]["role"]] if s["stack"] else []


def actions(s: State, role: str) -> list[Action]:
    if role not in s["roles"]:
        return []
    if s["phase"] == "setup":
        if s["players"][role]["start_tile"] is None:
            return DECISIONS["start_tile"].options(s, {"role": role})
        return []
    if not s["stack"] or s["stack"][-1]["role"] != role:
        return []
    return options(s, s["stack"][-1])


def apply(state: State, role: str, action: Action) -> State:
    return _apply(state, role, action, checked=True)


def apply_listed(state: State, role: str, action: Action) -> State:
    """:func:`apply` of an action that :func:`actions` listed for ``role`` in this very
    ``state``, without checking it against the legal ones again: the search and the built-in
    player try every listed step of a position, and listing them again for each was a third
    of the rules' time. The result is the one :func:`apply` gives (tests/engine/ai)."""
    return _apply(state, role, clone(action), checked=False)


def _apply(state: State, role: str, action: Action, checked: bool) -> State:
    if role not in state["roles"]:
        raise RuleError(f"unknown player {role!r}; the players are {', '.join(state['roles'])}", R_SETUP)
    if state["phase"] == "over":
        raise RuleError("the game is over", "end-of-game")
    s = _copy(state)
    if s["phase"] == "setup":
        if s["players"][role]["start_tile"] is not None:
            raise RuleError(f"{role} has already chosen a Starting tile", R_PLAYER_SETUP)
        tile = DECISIONS["start_tile"]
        found = require_legal(tile.options(s, {"role": role}), action, R_PLAYER_SETUP, "Starting tile") \
            if checked else action
        tile.resolve(s, {"role": role}, found)
        _advance(s)
        return s
    if not s["stack"] or s["stack"][-1]["role"] != role:
        who = s["stack"][-1]["role"] if s["stack"] else "nobody"
        raise RuleError(f"it is not {role}'s decision now ({who} decides)", R_ACTIONS)
    dec = s["stack"][-1]
    found = require_legal(options(s, dec), action, RULE_OF[dec["kind"]], _prompt_of(dec)) if checked else action
    s["stack"].pop()
    DECISIONS[dec["kind"]].resolve(s, dec, found)
    _advance(s)
    return s


def _copy(state: State) -> State:
    """The private copy apply changes: a deep copy, except that the log's entries are shared
    (an entry is never changed once written, :func:`.state.log`), so that a step's cost does
    not grow with the game's length: most of a late state was its log, and the search copies
    a state at every step it looks ahead (as Navas does, issue 15). The key order is kept."""
    if "log" not in state:
        return clone(state)
    body: State = clone({**state, "log": None})  # the log keeps its place among the keys
    body["log"] = list(state["log"])
    return body


def _prompt_of(dec: dict[str, Any]) -> str:
    return str(dec["kind"]).replace("_", " ")


def _advance(s: State) -> None:
    """Resolve automatic decisions and run the game flow until a player must decide."""
    while s["phase"] != "over":
        if s["stack"]:
            dec = s["stack"][-1]
            if dec["kind"] in _AUTOMATIC:
                s["stack"].pop()
                if dec["kind"] == "yusuf":
                    yusuf_step(s, dec)
                elif dec["effect"]["k"] == "poem_done":
                    poem_done(s, dec)
                elif dec["effect"]["k"] == "arrive":
                    arrive(s, dec)
                else:
                    resolve_effect(s, dec, {"type": "ok"})
                continue
            opts = options(s, dec)
            if not opts:
                s["stack"].pop()  # nothing can be done (e.g. no Raw Material left): the effect is lost
                continue
            if len(opts) == 1 and dec["kind"] in _SINGLE:
                s["stack"].pop()
                DECISIONS[dec["kind"]].resolve(s, dec, opts[0])
                continue
            return
        if s["phase"] == "setup":
            return
        if s["phase"] == "actions":
            nxt = _next_player(s)
            if nxt is not None:
                s["turn"] = nxt
                if nxt == YUSUF:
                    yusuf_turn(s)
                else:
                    push(s, {"kind": "turn", "role": nxt})
                continue
            s["phase"] = "end"
            s["steps"] = ["final_income", "narrator", "tribute", "final"] if s["round"] == 5 else \
                ["income", "narrator", "tribute", "event", "reactivate", "maintenance", "start_player", "era",
                 "new_round"]
            log(s, f"End of round {s['round']}.")
            continue
        if s["phase"] == "end":
            if not s["steps"]:
                return  # only a state built by hand runs out of steps: the real list ends the round
            step = s["steps"].pop(0)
            STEPS[step](s)
            continue


def _next_player(s: State) -> str | None:
    roles = order(s)
    if s["turn"] is None:
        candidates = roles
    else:
        i = roles.index(s["turn"])
        candidates = roles[i + 1:] + roles[:i + 1]
    for r in candidates:
        if r == YUSUF:
            if s[YUSUF]["pile"]:
                return r
        elif any(w["up"] for w in s["players"][r]["workers"].values()):
            return r
    return None


