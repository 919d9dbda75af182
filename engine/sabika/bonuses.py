"""Bonuses: the effects printed on tiles, cards and spaces, resolved left to right, with
the choices some of them offer (one branch of "A OR B", Dinars or Parias).
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.sabika.construction import advance_favour
from engine.sabika.names import ACTION_NAME, ITEM_NAME, describe_bonus, describe_effect
from engine.sabika.resources import raw_available
from engine.sabika.state import (
    R_ACTIONS,
    Decision,
    gain_parias,
    gain_pp,
    log,
    opt,
    push,
    push_bonus,
    push_store,
)
from engine.sabika.turn import main_possible, start_main
from engine.text import plural


def _o_effect(s: State, dec: dict[str, Any]) -> list[Action]:
    return [opt("ok", "Continue")]


def _o_or(s: State, dec: dict[str, Any]) -> list[Action]:
    return [opt("choose", describe_bonus(part), index=i) for i, part in enumerate(dec["effect"]["of"])
            if branch_possible(s, dec["role"], part)]


def effect_possible(s: State, role: str, e: dict[str, Any]) -> bool:
    """Whether a bonus effect can do anything now (an Export with no Goods, a Raw Material
    with none left on the rondel cannot)."""
    k = e["k"]
    if k == "action":
        return main_possible(s, role, e["a"], None)
    if k in ("raw", "good"):
        return raw_available(s)
    if k == "process":
        return bool(s["players"][role]["processing"])
    if k == "or":
        return any(branch_possible(s, role, part) for part in e["of"])
    return True


def branch_possible(s: State, role: str, part: list[dict[str, Any]]) -> bool:
    """A branch of a bonus "A OR B" is offered only when it can be carried out (part of it at least)."""
    return any(effect_possible(s, role, e) for e in part)


def _o_dp(s: State, dec: dict[str, Any]) -> list[Action]:
    n = dec["effect"]["n"]
    return [opt("split", f"{plural(n - k, 'Dinar')} and {plural(k, 'Paria')}", parias=k) for k in range(n + 1)]


def resolve_effect(s: State, dec: dict[str, Any], a: Action) -> None:
    role, e = dec["role"], dec["effect"]
    p = s["players"][role]
    k = e["k"]
    why = dec.get("why", "")
    if k == "dinars":
        p["dinars"] += e["n"]
        log(s, f"{role} earns {plural(e['n'], 'Dinar')} ({why}).")
    elif k == "parias":
        gain_parias(s, role, e["n"])
        log(s, f"{role} earns {plural(e['n'], 'Paria')} ({why}).")
    elif k == "pp":
        gain_pp(s, role, e["n"], why)
    elif k == "mat":
        log(s, f"{role} earns {e['n']} {ITEM_NAME[e['m']]} ({why}).")
        for _ in range(e["n"]):
            push_store(s, role, e["m"])
    elif k == "matchoice":
        for _ in range(e["n"]):
            push(s, {"kind": "pickmat", "role": role, "of": list(e["of"])})
    elif k in ("raw", "good"):
        for _ in range(e["n"]):
            if raw_available(s):
                push(s, {"kind": "raw", "role": role, "good": k == "good"})
        if not raw_available(s):
            log(s, f"No Raw Material is left on the rondel for {role} ({why}).")
    elif k == "process":
        if p["processing"]:
            push(s, {"kind": "process", "role": role, "left": e["n"], "optional": False})
    elif k == "market":
        push(s, {"kind": "market", "role": role, "left": e["n"]})
    elif k == "action":
        act = e["a"]
        if main_possible(s, role, act, None):
            start_main(s, role, act, None, bonus=True)
        else:
            log(s, f"{role} cannot carry out the bonus {ACTION_NAME[act]} Action now.")
    elif k == "or":
        if effect_possible(s, role, e):
            push(s, {"kind": "or", "role": role, "effect": e, "why": why})
        else:
            log(s, f"{role} can carry out no part of the bonus {describe_effect(e)} now ({why}): it is lost.")
    elif k == "dp":
        push(s, {"kind": "dp", "role": role, "effect": e})
    elif k == "favour":
        advance_favour(s, role)


def _r_or(s: State, dec: dict[str, Any], a: Action) -> None:
    push_bonus(s, dec["role"], dec["effect"]["of"][a["index"]], dec.get("why", ""))


def _r_dp(s: State, dec: dict[str, Any], a: Action) -> None:
    n, k = dec["effect"]["n"], a["parias"]
    p = s["players"][dec["role"]]
    p["dinars"] += n - k
    if k:
        gain_parias(s, dec["role"], k)
    log(s, f"{dec['role']} earns {plural(n - k, 'Dinar')} and {plural(k, 'Paria')}.")


DECISIONS: dict[str, Decision] = {
    "effect": Decision(_o_effect, resolve_effect, R_ACTIONS),
    "or": Decision(_o_or, _r_or, R_ACTIONS),
    "dp": Decision(_o_dp, _r_dp, "minor-construction-action"),
}
