"""Victory (2.1 instant victory, 2.2 victory points at the end of 1491-1492 turn I).

Christians win at once when the Alhambra castle (Granada) falls to Christian blocks: castle
control of Granada becomes Christian, which only white blocks can bring (grey blocks never
place Christian control pieces, 10.12.2). "Falls" ("tombe") needs the defenders beaten: a
siege won, a field combat that leaves no Muslim there, or white blocks entering a Granada
that is empty while the Nasrid Palace Guard box is empty too. While that box holds blocks,
Christians reaching Granada attack it and the guard appears to fight (10.10,
state.guard_defends; RULINGS.md 30). Muslims win at once when both Ferdinand and Isabella
are in the eliminated pile.

Points (2.2): Christians 2 per castle, 0.5 per watchtower, 1 per Resource Location they
control; Muslims 3 per castle, 1 per watchtower, 1.5 per Resource Location they control
that is connected to Granada by roads through locations the Christians do not control.
Muslims win ties.
"""

from __future__ import annotations

from typing import Any

from engine.api import State
from engine.granada import state as st

POINTS = {"christian": {"castle": 2.0, "watchtower": 0.5, "resource": 1.0},
          "muslim": {"castle": 3.0, "watchtower": 1.0, "resource": 1.5}}


def connected_to_granada(state: State) -> set[str]:
    """Locations reachable from Granada by roads avoiding Christian-controlled locations."""
    if state["control"].get("granada") == "christian":
        return set()
    adj = st.data().adjacency
    seen = {"granada"}
    todo = ["granada"]
    while todo:
        loc = todo.pop()
        for n, _ in adj.get(loc, ()):
            if n not in seen and state["control"].get(n) != "christian":
                seen.add(n)
                todo.append(n)
    return seen


def score(state: State) -> dict[str, float]:
    d = st.data()
    linked = connected_to_granada(state)
    out = {"christian": 0.0, "muslim": 0.0}
    for loc, L in d.locations.items():
        if L.castle:
            owner = state["castle"].get(loc)
            if owner in out:
                out[owner] += POINTS[owner]["castle"]
        owner = state["control"].get(loc)
        if owner not in out:
            continue
        if L.watchtower:
            out[owner] += POINTS[owner]["watchtower"]
        if L.resource and (owner == "christian" or loc in linked):
            out[owner] += POINTS[owner]["resource"]
    return out


# The last breakdowns by the control pieces they were computed from: every view carries one
# (issue 13) and control changes at few steps, while the three views of one state (both
# players and a spectator) and most steps in a row ask for the same. The key is the exact
# content of both control dicts; callers get fresh dicts.
_BREAKDOWNS: dict[tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...]],
                  dict[str, dict[str, Any]]] = {}
_BREAKDOWNS_SIZE = 16


def breakdown(state: State) -> dict[str, dict[str, Any]]:
    """Counts behind the score, for views."""
    key = (tuple(state["control"].items()), tuple(state["castle"].items()))
    out = _BREAKDOWNS.get(key)
    if out is None:
        out = _breakdown(state)
        if len(_BREAKDOWNS) >= _BREAKDOWNS_SIZE:
            _BREAKDOWNS.clear()         # (one call: another thread may be filling it too)
        _BREAKDOWNS[key] = out
    return {s: dict(counts) for s, counts in out.items()}


def _breakdown(state: State) -> dict[str, dict[str, Any]]:
    d = st.data()
    linked = connected_to_granada(state)
    out: dict[str, dict[str, Any]] = {s: {"castles": 0, "watchtowers": 0, "resources": 0,
                                          "unlinked_resources": 0} for s in st.SIDES}
    for loc, L in d.locations.items():
        if L.castle and state["castle"].get(loc) in out:
            out[state["castle"][loc]]["castles"] += 1
        owner = state["control"].get(loc)
        if owner not in out:
            continue
        if L.watchtower:
            out[owner]["watchtowers"] += 1
        if L.resource:
            if owner == "muslim" and loc not in linked:
                out[owner]["unlinked_resources"] += 1
            else:
                out[owner]["resources"] += 1
    for s in st.SIDES:
        p = POINTS[s]
        out[s]["points"] = (out[s]["castles"] * p["castle"] + out[s]["watchtowers"] * p["watchtower"]
                            + out[s]["resources"] * p["resource"])
    return out


def declare(state: State, winner: str | None, reason: str) -> None:
    if state.get("result") is not None:
        return
    state["result"] = {"winner": winner, "reason": reason, "score": score(state)}
    state["stack"] = []
    st.log(state, f"Game over: {winner.capitalize() if winner else 'nobody'} wins — {reason}.")


_ROYALS: tuple[str, ...] = ()


def _royals() -> tuple[str, ...]:
    """Ferdinand's and Isabella's block ids (static data, looked up after every step)."""
    global _ROYALS
    _ROYALS = tuple(b for b, blk in st.data().blocks.items() if blk.special in ("ferdinand", "isabella"))
    return _ROYALS


def check_instant(state: State) -> None:
    """2.1, checked after every step."""
    # dict.get: apply's step state holds "result" from its start (engine.granada._step),
    # and its own get is a Python call (a thousand instructions; this runs after every step)
    if dict.get(state, "result") is not None:
        return
    # st.peek, inline: the step's own castle pieces and records if it reached them, else
    # its input's (neither dict is ever empty)
    src = state if state.__class__ is dict else state._src   # type: ignore[attr-defined]
    if (dict.get(state, "castle") or src["castle"]).get("granada") == "christian":
        declare(state, "christian", "the Alhambra castle in Granada has fallen (2.1)")
        return
    royals = _ROYALS or _royals()
    if not royals:
        return
    blocks = dict.get(state, "blocks") or src["blocks"]
    # dict.__getitem__: a read, which need not copy apply's copy-on-access records
    for b in royals:
        if dict.__getitem__(blocks, b)["loc"] != "eliminated":
            return
    declare(state, "muslim", "Ferdinand and Isabella have both been eliminated (2.1)")


def final_score(state: State) -> None:
    """2.2: the end of 1491-1492 turn I is reached; the higher total wins, Muslims win ties."""
    pts = score(state)
    winner = "christian" if pts["christian"] > pts["muslim"] else "muslim"
    declare(state, winner, f"victory points {pts['christian']:g} (Christians) to "
                           f"{pts['muslim']:g} (Muslims) (2.2)")
