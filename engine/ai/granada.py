"""Granada: Last Stand of the Moors for the search: canonical information sets, an evaluation.

The canonical form mirrors :func:`engine.granada.views.redeal` with every shuffle replaced by
a fixed order:

* the opponent's blocks the role never identified keep their records (where they stand,
  inside or not, moved, fresh), but which block holds which record is fixed: the records
  sorted by content and by where the decision frames name their holder (a public position),
  land records to the lowest land block ids, bag records to the rest; the frames and the
  entries are renamed the same way;
* the opponent's unseen hand, draw pile and secret bid, the role's own draw pile and the
  naval deck are sorted; the frames' own secrets are re-drawn by their ``redeal`` hooks with a
  fixed generator; private log lines of the opponent go; the generator is reset.

So two states the role cannot tell apart have one canonical form, and every sample the
search draws (``redeal`` of that form) is fair. tests/engine/ai checks
``canonical(s) == canonical(redeal(s, role, k))`` over played games, so a change of Granada's
hidden information that this module does not follow fails there.

The evaluation is the victory-point race "if the game ended now" (victory.score: castles,
watchtowers, resources linked to Granada by the line of communication; the Muslims win ties)
against the pace the Christians need, plus the strength (shields) each side has in play.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any

from engine.ai.adapters import Adapter, Budget
from engine.api import State, clone
from engine.granada import state as st
from engine.granada import victory
from engine.granada.views import PUBLIC_PLACES
from engine.rng import Generator, seed_state

OUT_OF_PLAY = ("bag:", "recruit:") + PUBLIC_PLACES
LAST_YEAR = 6


def _remap(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, list):
        return [_remap(v, mapping) for v in value]
    if isinstance(value, dict):
        return {mapping.get(k, k): _remap(v, mapping) for k, v in value.items()}
    return value


def _hidden_blocks(state: State, role: str) -> list[str]:
    """The opponent's blocks whose identity ``role`` does not know (views.redeal's pool)."""
    if state.get("result") is not None:
        return []
    d = st.data()
    opp = st.other(role)
    known = set(state["known"][role])
    pool = []
    for bid in sorted(state["blocks"]):
        b = d.blocks[bid]
        rec = state["blocks"][bid]
        if b.side != opp or b.colour == "grey" or b.optional or bid in known or rec["revealed"]:
            continue
        if rec["loc"] in PUBLIC_PLACES:
            continue
        if b.fleet and rec["loc"] != f"bag:{opp}":
            continue
        pool.append(bid)
    return pool


def canonical(state: State, role: str) -> State:
    new: State = clone(state)
    d = st.data()
    opp = st.other(role)
    pool = _hidden_blocks(new, role)
    if pool:
        records = {bid: new["blocks"][bid] for bid in pool}
        named = json.dumps([new["stack"], new.get("entries") or {}])

        def rank(holder: str) -> tuple[str, int, str]:
            at = named.find(f'"{holder}"')
            return json.dumps(records[holder], sort_keys=True), (at if at >= 0 else len(named)), holder

        bag_key = f"bag:{opp}"
        slots_fixed = sorted((b for b in pool if records[b]["loc"] != bag_key), key=rank)
        slots_bag = sorted((b for b in pool if records[b]["loc"] == bag_key), key=rank)
        land = [b for b in pool if not d.blocks[b].fleet]
        chosen = land[:len(slots_fixed)]
        rest = [b for b in pool if b not in set(chosen)]
        mapping = dict(zip(slots_fixed, chosen)) | dict(zip(slots_bag, rest))
        for slot, bid in mapping.items():
            new["blocks"][bid] = dict(records[slot])
        new["stack"] = _remap(new["stack"], mapping)
        for ent in (new.get("entries") or {}).values():
            for side in list(ent):
                ent[side] = _remap(ent[side], mapping)
    seen = [c for c in new["hand_known"][opp] if c in new["hands"][opp]]
    hidden_hand = [c for c in new["hands"][opp] if c not in seen]
    bid = new["bids"][opp]
    secret_bid = bid not in (None, "none")
    cards = sorted(hidden_hand + list(new["decks"][opp]) + ([bid] if secret_bid else []))
    if secret_bid:
        biddable = [c for c in cards if d.cards[c].bid is not None]
        new_bid = biddable[0] if biddable else bid
        cards.remove(new_bid)
        new["bids"][opp] = new_bid
    new["hands"][opp] = seen + cards[:len(hidden_hand)]
    new["decks"][opp] = cards[len(hidden_hand):]
    new["decks"][role] = sorted(new["decks"][role])
    new["decks"]["naval"] = sorted(new["decks"]["naval"])
    fixed = Generator(0)
    for frame in new["stack"]:
        hook = getattr(st.handler(frame), "redeal", None)
        if hook is not None:
            hook(new, role, frame, fixed)
    new["log"] = [e for e in new["log"] if "to" not in e or role in e["to"]]
    new["rng"] = seed_state(0)
    return new


def _strength(state: State) -> dict[str, float]:
    d = st.data()
    out = {"christian": 0.0, "muslim": 0.0}
    for bid, rec in state["blocks"].items():
        loc = rec["loc"]
        if loc.startswith(OUT_OF_PLAY):
            continue
        side = st.owner(bid)
        if side in out:
            out[side] += d.blocks[bid].shields or 2
    return out


@functools.cache
def _opening_lead() -> float:
    """The Christians' points lead at setup (negative: the kingdom of Granada starts far ahead)."""
    from engine import granada

    points = victory.score(granada.setup(0, {}))
    return points["christian"] - points["muslim"]


def evaluate(state: State) -> dict[str, float]:
    """The Christian's and the Muslim's chances from the points race and the strength in play.

    The points lead "if the game ended now" is judged against the pace the Christians need:
    the opening deficit closing linearly to nothing by the last year (2.2 counts only then), so
    an even position early in the war scores about even instead of a sure Muslim win, and the
    sigmoid keeps its slope where the search must tell moves apart.
    """
    points = victory.score(state)
    lead = points["christian"] - points["muslim"] - 0.5       # the Muslims win ties
    year = min(LAST_YEAR, int(state.get("year", 0)))
    pace = _opening_lead() * (1 - year / LAST_YEAR)
    power = _strength(state)
    total = max(1.0, power["christian"] + power["muslim"])
    x = 0.18 * (lead - pace) + 2.5 * (power["christian"] - power["muslim"]) / total
    if state["castle"].get("granada") == "christian":
        x += 10.0
    chance = 1.0 / (1.0 + math.exp(-x))
    return {"christian": chance, "muslim": 1.0 - chance}


# Calibrated on the 2-core reference machine: one iteration takes a median 13.8 ms of CPU
# (time.process_time over the searched decisions of two easy-player games, 26 Nov 2026), so
# hard is about 2 s a decision and normal about 0.5 s; ``alcazaba bench --ai`` reports the
# real figure (ai.think_s.granada.<level>).
ADAPTER = Adapter(
    canonical=canonical,
    evaluate=evaluate,
    budgets={"normal": Budget(iterations=36, depth=40), "hard": Budget(iterations=144, depth=40)},
)
