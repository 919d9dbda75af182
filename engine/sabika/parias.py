"""Parias: the tribute paid at the end of each round (Narrator) and the Starting Player
chosen by the leader on the Paria track.
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.sabika.state import R_NARRATOR, R_START, YUSUF, Decision, log, opt, push, seat
from engine.text import plural, role_name


def tribute_means(p: dict[str, Any]) -> bool:
    """Whether a player can still pay a Paria of the tribute: at 0 PP "lose 1 PP" pays nothing
    (see RULINGS.md), so the tribute falls on the other means while there are any."""
    return p["parias"] > 0 or p["dinars"] >= 2 or p["seals"] > 0 or p["pp"] > 0


def _o_tribute(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    out = []
    if p["parias"] > 0:
        out.append(opt("paria", "Move your Paria token back 1 space", means="track"))
    if p["dinars"] >= 2:
        out.append(opt("paria", "Pay 2 Dinars for 1 Paria", means="dinars"))
    if p["seals"] > 0:
        out.append(opt("paria", "Discard 1 Seal for 1 Paria", means="seal"))
    if p["pp"] > 0:
        out.append(opt("paria", "Lose 1 PP for 1 Paria", means="pp"))
    return out


def _o_start_player(s: State, dec: dict[str, Any]) -> list[Action]:
    return [opt("start", f"{'Yusuf' if r == YUSUF else role_name(r)} starts the next round", player=r) for r in s["seats"]]


def _r_tribute(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    means = a["means"]
    if means == "track":
        p["parias"] -= 1
        s["stamp"] += 1
        p["stamp"] = s["stamp"]
    elif means == "dinars":
        p["dinars"] -= 2
    elif means == "seal":
        p["seals"] -= 1
    else:
        p["pp"] = max(0, p["pp"] - 1)
    paid = dict(dec.get("paid", {}))
    paid[means] = paid.get(means, 0) + 1
    if dec["left"] > 1 and tribute_means(p):
        push(s, {**dec, "left": dec["left"] - 1, "paid": paid})
    else:
        log_tribute(s, role, dec["total"], paid, dec["left"] - 1)


def log_tribute(s: State, role: str, total: int, paid: dict[str, int], unpaid: int) -> None:
    names = {"track": "Paria track", "dinars": "Dinars", "seal": "Seals", "pp": "PP"}
    # In the fixed order of the means, not the dict's: a state read back from JSON with sorted
    # keys must log the same.
    parts = [f"{paid[m]} by {names[m]}" for m in names if m in paid]
    if unpaid:
        parts.append(f"{unpaid} unpaid (no Paria, Dinars, Seal or PP left to pay with)")
    log(s, f"{role} pays the tribute of {plural(total, 'Paria')}: " + ", ".join(parts) + ".")


def _r_start_player(s: State, dec: dict[str, Any], a: Action) -> None:
    s["start"] = a["player"]
    log(s, f"{dec['role']}, leading on the Paria track, makes {a['player']} the Starting Player.")


def paria_leader(s: State) -> str:
    return str(max(s["seats"], key=lambda r: (seat(s, r)["parias"], seat(s, r)["stamp"])))


DECISIONS: dict[str, Decision] = {
    "tribute": Decision(_o_tribute, _r_tribute, R_NARRATOR),
    "start_player": Decision(_o_start_player, _r_start_player, R_START),
}
