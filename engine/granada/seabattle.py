"""Naval battles (9.1), evading them (9.2) and the card replenishment after them (9.3).

``start_naval_battle(state, zone, attacker, moving, card)`` is called by naval.py when the
player moving fleets (the attacker, who drew) turns up a Naval Battle card ``card`` (7.5.3).
The battle opposes the attacker's moving fleets still in the zone to every enemy fleet there;
the attacker's fleets that were already in the zone take no part (9.1, Adra example).

Frame ``{"module": "seabattle", "kind": "naval_battle", ...}`` steps:

* ``choose`` — both players choose a card with a naval icon at once; a choice stays secret
  (``frame["secret"]``, shown to its owner only) until both have chosen (9.1);
* ``sink`` — the loser picks which of his fleets are sunk when he has more than that many;
* ``evade`` — a player who showed an arrow moves his fleets to an adjacent zone, the
  attacker first (9.2); the attacker's moving fleets may not end further than 3 zones
  from where their move began (``frame["origin"]``);
* ``evade_battle`` — evading fleets met enemy fleets and drew a Naval Battle card: that
  battle is fought at once in a frame on top of this one (9.2), then the evasions go on.

It ends with ``finish_frame(state, {"kind": "naval_battle", "zone", "winner", "survivors":
[moving fleets still in the zone], "evaded": {side: [fleets]}, "evaded_to": {side: zone}})``.
Evading fleets that meet enemy fleets draw Naval cards at once (9.2, through
naval.encounter_draws); a Naval Battle card so drawn starts that naval battle immediately,
before the other player's evasion (the evading player is its attacker).
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.granada import components as comp
from engine.granada import state as st
from engine.text import plural

RULE = "9.1"
NONE = "none"            # the choice of a player with no card showing a naval icon


def _cards() -> dict[str, comp.Card]:
    return comp.load().cards


def _zone_name(zone: str) -> str:
    return st.data().sea_zones[zone].name


def fleets_in(state: State, zone: str, side: str) -> list[str]:
    key = f"sea:{zone}"
    blocks = comp.load().blocks
    return sorted(b for b, rec in state["blocks"].items()
                  if rec["loc"] == key and blocks[b].fleet and st.owner(b) == side)


def carried(state: State, fleet: str) -> list[str]:
    return sorted(b for b, rec in state["blocks"].items() if rec.get("carried_by") == fleet)


def participants(state: State, frame: dict[str, Any], side: str) -> list[str]:
    """The attacker's moving fleets still in the zone; every defending fleet there (9.1)."""
    here = fleets_in(state, frame["zone"], side)
    if side == frame["attacker"]:
        return [f for f in here if f in frame["moving"]]
    return here


# ---------------------------------------------------------------- pure rules

def naval_outcome(attacker_card: comp.Card | None, defender_card: comp.Card | None,
                  attacker: str, draw_winner: str) -> tuple[str | None, int, list[str]]:
    """(winner, fleets the loser must sink, sides that evade) for two revealed choices.

    9.1: the higher naval number wins; a draw goes to the side whose arms are on the Naval
    Battle card; a difference under 3 sinks one fleet, 3 or more two. 9.2: an arrow evades
    the battle (both may). A player without a card with a naval icon counts 0 (RULINGS)."""
    defender = st.other(attacker)
    evaders = [s for s, c in ((attacker, attacker_card), (defender, defender_card)) if c is not None and c.evade]
    if evaders:
        return None, 0, evaders
    va = attacker_card.naval if attacker_card is not None and attacker_card.naval is not None else 0
    vd = defender_card.naval if defender_card is not None and defender_card.naval is not None else 0
    if va != vd:
        winner = attacker if va > vd else defender
    else:
        winner = draw_winner
    return winner, (1 if abs(va - vd) < 3 else 2), []


# ---------------------------------------------------------------- entry point

def start_naval_battle(state: State, zone: str, attacker: str, moving: list[str],
                       card: str | None = None, origin: str | None = None) -> None:
    """``origin``: the sea zone where the attacker's moving fleets began their move (their
    evasion may not end further away than 3 zones from it, 9.2); by default the start zone
    of the naval movement frame below."""
    if card is None:
        card = state["discards"]["naval"][-1] if state["discards"]["naval"] else None
    draw_winner = _cards()[card].draw_winner if card else None
    below = st.top(state)
    if origin is None and below is not None and below.get("module") == "naval" \
            and below.get("side") == attacker:
        origin = below.get("zone")
    frame = st.push_frame(state, {
        "module": "seabattle", "kind": "naval_battle", "zone": zone, "attacker": attacker,
        "defender": st.other(attacker), "moving": list(moving), "card": card,
        "draw_winner": draw_winner or attacker, "step": "choose", "secret": {}, "played": {},
        "winner": None, "to_sink": 0, "sunk": [], "lost_carried": 0, "evaders": [],
        "evaded": {}, "evaded_to": {}, "origin": origin,
    })
    if not participants(state, frame, attacker) or not participants(state, frame, frame["defender"]):
        _close(state, frame)
        return
    ours, theirs = len(participants(state, frame, attacker)), len(participants(state, frame, frame["defender"]))
    st.log(state, f"Naval battle in {_zone_name(zone)}: {plural(ours, attacker.capitalize() + ' fleet')} "
                  f"against {plural(theirs, frame['defender'].capitalize() + ' fleet')}; each player chooses a "
                  "card (9.1).")


# ---------------------------------------------------------------- steps

def _naval_cards(state: State, side: str) -> list[str]:
    cards = _cards()
    return [c for c in state["hands"][side] if cards[c].naval is not None or cards[c].evade]


def _choose_actions(state: State, side: str) -> list[Action]:
    cards = _cards()
    acts: list[Action] = []
    for c in _naval_cards(state, side):
        value = "an arrow: evade" if cards[c].evade else f"naval {cards[c].naval}"
        acts.append({"type": "naval_card", "card": c, "label": f"Play {st.card_choice(c)} ({value})"})
    if not acts:
        acts.append({"type": "naval_card", "card": NONE, "label": "Play no card (none shows a naval icon)"})
    return acts


def _reveal(state: State, frame: dict[str, Any]) -> None:
    cards = _cards()
    chosen: dict[str, comp.Card | None] = {}
    for side in (frame["attacker"], frame["defender"]):
        c = frame["secret"][side]
        frame["played"][side] = c
        if c == NONE:
            chosen[side] = None
            st.log(state, f"{side.capitalize()} has no card with a naval icon (9.1).")
            state["reveals"] += 1
        else:
            chosen[side] = cards[c]
            st.discard_cards(state, side, [c], "in the naval battle (9.1)")
    frame["secret"] = {}
    winner, n, evaders = naval_outcome(chosen[frame["attacker"]], chosen[frame["defender"]],
                                       frame["attacker"], frame["draw_winner"])
    frame["winner"] = winner
    frame["evaders"] = evaders
    if winner is None:
        st.log(state, f"{' and '.join(s.capitalize() for s in evaders)} evade{'s' if len(evaders) == 1 else ''} "
                      "the naval battle (9.2).")
        _replenish(state, frame)
        return
    lose = st.other(winner)
    fleets = participants(state, frame, lose)
    frame["to_sink"] = min(n, len(fleets))
    st.log(state, f"The {winner} player wins the naval battle: {plural(frame['to_sink'], lose.capitalize() + ' fleet')} "
                  f"sunk (9.1).")
    _sink_forced(state, frame)


def _sink(state: State, frame: dict[str, Any], fleet: str) -> None:
    lost = carried(state, fleet)
    frame["lost_carried"] += len(lost)
    frame["sunk"].append(fleet)
    frame["to_sink"] -= 1
    st.log(state, f"{st.block_name(fleet)} is sunk" +
                  (f" with {', '.join(st.block_name(b) for b in lost)} aboard" if lost else "") + " (9.1).")
    st.eliminate(state, fleet)


def _sink_forced(state: State, frame: dict[str, Any]) -> None:
    lose = st.other(frame["winner"])
    fleets = participants(state, frame, lose)
    if frame["to_sink"] and len(fleets) <= frame["to_sink"]:
        for f in fleets:
            _sink(state, frame, f)
        frame["to_sink"] = 0
    if frame["to_sink"]:
        frame["step"] = "sink"
        return
    _replenish(state, frame)


def _replenish(state: State, frame: dict[str, Any]) -> None:
    """9.3: after losses, before evasion: each player draws back the card he played; the
    loser draws one more per 2 fleets and per 2 carried blocks lost."""
    for side in (frame["attacker"], frame["defender"]):
        n = 0 if frame["played"].get(side) in (None, NONE) else 1
        if frame["winner"] is not None and side != frame["winner"]:
            n += len(frame["sunk"]) // 2 + frame["lost_carried"] // 2
        if n:
            st.draw_cards(state, side, n)
    _next_evasion(state, frame)


def _next_evasion(state: State, frame: dict[str, Any]) -> None:
    while frame["evaders"]:
        side = frame["evaders"][0]
        if participants(state, frame, side) and _evade_zones(frame, side):
            frame["step"] = "evade"
            return
        frame["evaders"].pop(0)
    _close(state, frame)


def sea_distance(a: str, b: str) -> int:
    """Number of sea-zone steps from zone a to zone b (large when unreachable)."""
    zones = st.data().sea_zones
    seen = {a: 0}
    todo = [a]
    while todo:
        z = todo.pop(0)
        if z == b:
            return seen[z]
        for n in zones[z].adjacent:
            if n not in seen:
                seen[n] = seen[z] + 1
                todo.append(n)
    return 1 << 20


def _evade_zones(frame: dict[str, Any], side: str) -> list[str]:
    """9.2: an adjacent sea zone; the attacker's moving fleets may not end their evasion
    further than their 3-sea-zone allowance from the zone where their move began."""
    adjacent = list(st.data().sea_zones[frame["zone"]].adjacent)
    origin = frame.get("origin")
    if side != frame["attacker"] or not origin:
        return adjacent
    from engine.granada.naval import MAX_ZONES

    return [z for z in adjacent if sea_distance(origin, z) <= MAX_ZONES]


def _evade(state: State, frame: dict[str, Any], side: str, to: str) -> None:
    from engine.granada import naval

    fleets = participants(state, frame, side)
    for f in fleets:
        state["blocks"][f]["loc"] = f"sea:{to}"
        for b in carried(state, f):
            state["blocks"][b]["loc"] = f"sea:{to}"
    frame["evaded"][side] = fleets
    frame["evaded_to"][side] = to
    frame["evaders"].pop(0)
    st.log(state, f"{side.capitalize()} evades with {plural(len(fleets), 'fleet')} to {_zone_name(to)} (9.2).")
    if fleets_in(state, to, st.other(side)):
        # 9.2: the evading player draws one Naval card per evading fleet (7.5.3); a naval
        # battle so caused "is resolved immediately", before the other player evades.
        card = naval.encounter_draws(state, to, side, fleets)
        if card is not None:
            frame["step"] = "evade_battle"
            origin = frame.get("origin") if side == frame["attacker"] else None
            start_naval_battle(state, to, side, fleets, card, origin)
            if st.top(state) is frame:          # nothing to fight after all: go on
                frame.pop("returns", None)
                frame["step"] = "evade"
                _next_evasion(state, frame)
            return
    _next_evasion(state, frame)


def _close(state: State, frame: dict[str, Any]) -> None:
    att = frame["attacker"]
    survivors = [f for f in frame["moving"] if state["blocks"][f]["loc"] == f"sea:{frame['zone']}"]
    st.finish_frame(state, {"kind": "naval_battle", "zone": frame["zone"], "winner": frame["winner"],
                            "attacker": att, "survivors": survivors,
                            "evaded": dict(frame["evaded"]), "evaded_to": dict(frame["evaded_to"])})


# ---------------------------------------------------------------- frame protocol

def _has_chosen(frame: dict[str, Any], side: str) -> bool:
    return side in frame["secret"]


def active(state: State, frame: dict[str, Any]) -> list[str]:
    step = frame["step"]
    if step == "choose":
        return [s for s in (frame["attacker"], frame["defender"]) if not _has_chosen(frame, s)]
    if step == "sink":
        return [st.other(frame["winner"])]
    if step == "evade":
        return [frame["evaders"][0]]
    return []


def actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    return _actions(state, role, frame)


def _actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    step = frame["step"]
    if step == "choose":
        return _choose_actions(state, role)
    if step == "sink":
        return [{"type": "sink", "fleet": f, "label": f"Lose {st.block_name(f)} (9.1)"}
                for f in participants(state, frame, role)]
    if step == "evade":
        return [{"type": "evade", "zone": z, "label": f"Evade to {_zone_name(z)} (9.2)"}
                for z in _evade_zones(frame, role)]
    return []


def apply(state: State, role: str, action: Action, frame: dict[str, Any]) -> None:
    step = frame["step"]
    if step == "choose":
        frame["secret"][role] = action["card"]
        what = "no card" if action["card"] == NONE else st.card_name(action["card"])
        st.log_private(state, role, f"You choose {what} for the naval battle (9.1).")
        st.log(state, f"{role.capitalize()} has chosen a card for the naval battle.")
        if all(_has_chosen(frame, s) for s in st.SIDES):
            _reveal(state, frame)
    elif step == "sink":
        _sink(state, frame, action["fleet"])
        _sink_forced(state, frame)
    elif step == "evade":
        _evade(state, frame, role, action["zone"])


def advance(state: State, frame: dict[str, Any]) -> bool:
    """A naval battle caused by an evasion is over (9.2): the evasions go on."""
    returns = frame.pop("returns", None)
    if frame["step"] == "evade_battle" and returns:
        frame["step"] = "evade"
        _next_evasion(state, frame)
        return True
    return False


def prompt(state: State, role: str, frame: dict[str, Any]) -> str:
    step = frame["step"]
    zone = _zone_name(frame["zone"])
    if step == "choose":
        return f"Naval battle in {zone}: choose a card with a naval icon; both are revealed together (9.1)."
    if step == "sink":
        return f"You lost the naval battle in {zone}: choose the fleet that is sunk (9.1)."
    return f"Your fleets evade the battle in {zone}: choose the adjacent sea zone they go to (9.2)."


def view(state: State, role: str | None, frame: dict[str, Any]) -> dict[str, Any]:
    """Both players' choices are hidden until both have chosen; a player sees his own."""
    out: dict[str, Any] = {
        "kind": "naval_battle", "zone": frame["zone"], "step": frame["step"],
        "attacker": frame["attacker"], "defender": frame["defender"],
        "fleets": {s: participants(state, frame, s) for s in st.SIDES},
        "draw_winner": frame["draw_winner"], "naval_battle_card": frame["card"],
        "chosen": {s: _has_chosen(frame, s) for s in st.SIDES},
        "played": dict(frame["played"]), "winner": frame["winner"], "sunk": list(frame["sunk"]),
    }
    if role in frame["secret"]:
        out["my_choice"] = frame["secret"][role]
    return out


def redeal(state: State, role: str, frame: dict[str, Any], gen: Any) -> None:
    """The opponent's secret choice is re-drawn from his re-dealt hand (views.redeal)."""
    opp = st.other(role)
    if frame["step"] == "choose" and opp in frame["secret"]:
        options = [a["card"] for a in _choose_actions(state, opp)]
        frame["secret"][opp] = options[gen.randbelow(len(options))]


def choose_weight(action: Action) -> float:
    return 1.0
