"""Phase 2, End of round, and the end of the game: income, the Narrator (Sultan's Wishes
and the tribute), Events, Workers standing up again, maintenance, the Starting Player, the
Era change, and after the fifth round the final scoring.
"""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.api import State
from engine.sabika import names as N
from engine.sabika.construction import draw_minor
from engine.sabika.data import CITY_TILES, DATA, EVENTS, GOODS
from engine.sabika.parias import log_tribute, paria_leader, tribute_means
from engine.sabika.scoring import major_poem_points, trade_points, wish_points
from engine.sabika.state import (
    YUSUF,
    blue_effects,
    draw_raw,
    era,
    event_is,
    gain_pp,
    holdings,
    log,
    order,
    push,
    push_bonus,
    ring,
    seat,
)
from engine.sabika.yusuf import yusuf_final
from engine.text import plural


def _step_income(s: State) -> None:
    for r in reversed(order(s)):
        if r == YUSUF:
            continue  # Yusuf receives no income
        p = s["players"][r]
        bonus: list[dict[str, Any]] = []
        for info in s["cities"].values():
            tile = CITY_TILES[info["tile"]]
            if r in info["right"] and tile["colour"] == "blue":
                bonus += tile["consolidate"]
        effects = blue_effects(p)
        bonus += [{"k": "dinars", "n": 2}] * effects.count("income")
        bonus += [{"k": "parias", "n": 1}] * effects.count("tribute")
        if bonus:
            push_bonus(s, r, bonus, "income")


def _step_narrator(s: State) -> None:
    s["narrator"] += 1
    log(s, f"The Narrator advances to space {s['narrator']}.")
    tile = s["wishes"].get(str(s["narrator"]))
    if tile is not None:
        s["tower"].append(tile)
        log(s, f"Sultan's Wish {N.wish(tile)} joins the Tower; the Tower is scored: {'; '.join(N.wish(w) for w in s['tower'])}.")
        for r in order(s):
            total = sum(wish_points(s, r, w) for w in s["tower"])
            gain_pp(s, r, total, "Sultan's Wishes")


def _step_tribute(s: State) -> None:
    owed = int(DATA["rounds"]["tribute"][str(s["narrator"])])
    log(s, f"Tribute: every player pays {plural(owed, 'Paria')}.")
    for r in reversed(order(s)):
        if r == YUSUF:
            push(s, {"kind": "yusuf", "role": s["roles"][0], "step": "tribute", "owed": owed})
        else:
            mine = owed + (1 if event_is(s, r, "heavy_tribute") else 0)
            if tribute_means(s["players"][r]):
                push(s, {"kind": "tribute", "role": r, "left": mine, "total": mine})
            else:
                log_tribute(s, r, mine, {}, mine)


def _step_event(s: State) -> None:
    """Advanced mode: on the Event spaces the next face-down Event replaces the active one."""
    if s["narrator"] not in DATA["events"]["spaces"] or not s["event_stack"]:
        return
    s["event"] = s["event_stack"].pop()
    s["events_seen"].append(s["event"])
    s["reveals"] += 1
    e = EVENTS[s["event"]]
    log(s, f"An Event ({e['polarity']}) is now active: {e['text']}")


def _step_reactivate(s: State) -> None:
    for r in s["seats"]:
        for w in seat(s, r)["workers"].values():
            w["up"] = True
    if s["n"] == 1:
        y = s[YUSUF]
        y["pile"] = list(DATA["yusuf"]["tiles"])
        y["revealed"] = []
        rng.shuffle(s, y["pile"])  # the Worker tiles' draw pile is formed again
    for rondel, positions in s["sultan"].items():
        squares = ring(s["n"], rondel)
        s["sultan"][rondel] = [squares[(squares.index(x) + 1) % len(squares)] for x in positions]
    log(s, "Workers stand up again; the Sultan's Workers move 1 step clockwise.")


def _step_maintenance(s: State) -> None:
    for sq, token in s["raw_squares"].items():
        if token is None:
            s["raw_squares"][sq] = draw_raw(s)
    for sq in s["marble_squares"]:
        s["marble_squares"][sq] = True
    for i, c in enumerate(s["poem_display"]):
        if c is None and s["poem_deck"]:
            s["poem_display"][i] = s["poem_deck"].pop()
    for i, c in enumerate(s["minor_display"]):
        if c is None:
            s["minor_display"][i] = draw_minor(s)
    for side in ("left", "right"):
        for i, t in enumerate(s["store_display"][side]):
            if t is None and s["store_piles"][side]:
                s["store_display"][side][i] = s["store_piles"][side].pop()
    s["reveals"] += 1
    log(s, "Maintenance: the board is refilled.")


def _step_start_player(s: State) -> None:
    leader = paria_leader(s)
    if leader == YUSUF:
        s["start"] = YUSUF  # ruling: Yusuf, leading on the Paria track, keeps the initiative
        log(s, "Yusuf leads on the Paria track and takes the Starting Player token.")
        return
    push(s, {"kind": "start_player", "role": leader})


def _step_era(s: State) -> None:
    if s["narrator"] == 3 and s["majors"]["1"]:
        log(s, f"Era change: the Era I Major Constructions left ({'; '.join(N.major(t) for t in s['majors']['1'])}) leave the game.")
        s["majors"]["1"] = []


def _step_new_round(s: State) -> None:
    s["round"] += 1
    s["phase"] = "actions"
    s["turn"] = None
    log(s, f"Round {s['round']} (Era {'I' * era(s)}) begins; {s['start']} starts.")


def _step_final(s: State) -> None:
    scores: dict[str, int] = {}
    for r in order(s):
        if r == YUSUF:
            yusuf_final(s)
            scores[r] = s[YUSUF]["pp"]
            continue
        p = s["players"][r]
        for card in p["grey"]:
            gain_pp(s, r, major_poem_points(s, r, card), N.major_poem(card))
        gain_pp(s, r, trade_points(s, r), N.trade(s["trade"]))
        h = holdings(p)
        left = p["seals"] + sum(h.get(g, 0) for g in GOODS) + h.get("marble", 0) + h.get("ceramic", 0) + p["dinars"] // 2
        gain_pp(s, r, left, "leftover Seals, Goods, Marble, Glazed Ceramic and Dinars")
        scores[r] = p["pp"]
    best = max(scores.values())
    winners = [r for r, v in scores.items() if v == best]
    if winners == [YUSUF]:
        s["result"] = {"winner": None, "reason": f"Yusuf has the most Prestige Points ({best}) and wins",
                       "score": scores}
    elif len(winners) == 1:
        s["result"] = {"winner": winners[0], "reason": f"{winners[0]} has the most Prestige Points ({best})",
                       "score": scores}
    else:
        s["result"] = {"winner": None, "reason": f"{' and '.join(winners)} share the victory with {best} PP",
                       "score": scores}
    log(s, "Final scores: " + ", ".join(f"{r} {v}" for r, v in scores.items()) + f". {s['result']['reason']}.")
    s["phase"] = "over"


STEPS: dict[str, Any] = {
    "income": _step_income, "final_income": _step_income, "narrator": _step_narrator, "tribute": _step_tribute,
    "event": _step_event, "reactivate": _step_reactivate, "maintenance": _step_maintenance, "start_player": _step_start_player,
    "era": _step_era, "new_round": _step_new_round, "final": _step_final,
}
