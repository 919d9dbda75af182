"""The yearly cycle (6.1-6.5): Turn Order Step with simultaneous secret bids, turns I and II
(each player's Movement Phase then Combat Phase), Reinforcement Step, Turn Marker Step.

Frames handled here:

* ``{"kind": "game"}`` — the root frame, never popped. ``phase`` is one of "bid" (both
  players choose a card face down), "order" (the bid winner picks the first player), "turn"
  (``step`` 0..3: first player's movement, his combat, second player's movement, his combat),
  "reinforce" (each player discards half of his hand, then the draws are automatic).
* ``{"kind": "combat", "side": s}`` — the Combat Phase of side s: the phasing player declares
  the battles one at a time (8.1); each is handed to ``battle.start_battle``.
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, RuleError, State
from engine.granada import extras, movement, placement, special, victory
from engine.granada import state as st

RULE = "6.1"
EDITS_BY_REPLACING = True
"""This module never edits a list or dict inside its frames in place: it replaces it (the
cards owed, the battles done; frames.finish_frame too), so that apply may copy the frame one
level deep only (engine.granada._step, issue 33). A new in-place edit of the frames'
containers here would change apply's input."""
CARDS_PER_YEAR = 6                    # 6.4
# Recruitment numbers of the Turn track at the end of each year (6.4). The text gives 3 for
# 1483-1484, 1485, 1486 and 1487-1488; the numbers of 1482 and 1489-1490 are only printed on
# the track: RECONSTRUCTED as 2 (RULINGS.md). No Reinforcement Step follows 1491-1492.
RECRUITMENT = {0: 2, 1: 3, 2: 3, 3: 3, 4: 3, 5: 2}


def root_frame() -> dict[str, Any]:
    return {"module": "sequence", "kind": "game", "phase": "bid", "step": 0,
            "winner": None, "owed": {}}


# ---------------------------------------------------------------- frame protocol

def active(state: State, frame: dict[str, Any]) -> list[str]:
    if frame["kind"] == "combat":
        return [frame["side"]] if _pending(state, frame) else []
    phase = frame["phase"]
    if phase == "bid":
        return [s for s in st.SIDES if state["bids"][s] is None]
    if phase == "order":
        return [frame["winner"]]
    if phase == "reinforce":
        return [s for s in st.SIDES if frame["owed"].get(s, 0) > 0]
    return []


def actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    if frame["kind"] == "combat":
        return [{"type": "battle", "loc": loc,
                 "label": f"Declare the battle at {st.data().locations[loc].name}"}
                for loc in _pending(state, frame)]
    phase = frame["phase"]
    if phase == "bid":
        return bid_actions(state, role)
    if phase == "order":
        return [{"type": "first", "side": s, "label": f"{s.capitalize()} moves first this year"}
                for s in st.SIDES]
    if phase == "reinforce":
        return [{"type": "discard", "card": c, "label": f"Discard {st.card_choice(c)}"}
                for c in sorted(set(state["hands"][role]))]
    return []


def apply(state: State, role: str, action: Action, frame: dict[str, Any]) -> None:
    kind = action["type"]
    if frame["kind"] == "combat":
        _declare(state, frame, action["loc"])
    elif kind == "bid":
        card = action["card"]
        if card is not None:
            state["hands"][role].remove(card)     # face down on the table (6.2)
            if card in state["hand_known"][role]:
                state["hand_known"][role].remove(card)
        state["bids"][role] = card if card is not None else "none"
        st.log(state, f"{role.capitalize()} places a bid face down (6.2).")
        st.log_private(state, role, f"You bid {_bid_text(action['card'])}.")
    elif kind == "first":
        _set_first(state, action["side"], by=role)
        frame["phase"] = "turn"
        frame["step"] = 0
    elif kind == "discard":
        st.discard_cards(state, role, [action["card"]], "(Reinforcement Step, 6.4)")
        frame["owed"] = {**frame["owed"], role: frame["owed"][role] - 1}   # replaced (EDITS_BY_REPLACING)
    else:  # pragma: no cover - actions() lists nothing else
        raise RuleError(f"unknown action {kind}", RULE)


def advance(state: State, frame: dict[str, Any]) -> bool:
    if frame["kind"] == "combat":
        return _combat_advance(state, frame)
    frame.pop("returns", None)
    if special.needs_frame(state):
        special.push_pending(state)
        return True
    phase = frame["phase"]
    if phase == "bid":
        bids = state["bids"]
        if bids["christian"] is not None and bids["muslim"] is not None:     # (st.SIDES)
            _resolve_bids(state, frame)
            return True
        return False
    if phase == "turn":
        return _turn_advance(state, frame)
    if phase == "reinforce":
        owed = frame["owed"]
        if owed.get("christian", 0) <= 0 and owed.get("muslim", 0) <= 0:    # (st.SIDES)
            if not frame.get("extras_done"):
                # 11.1, 11.2: optional rules of the Reinforcement Step, before the draws
                frame["extras_done"] = True
                sides = extras.needed(state)
                if sides:
                    extras.start(state, sides)
                    return True
            frame.pop("extras_done", None)
            _reinforce_draws(state)
            _turn_marker(state, frame)
            return True
        return False
    return False


def prompt(state: State, role: str, frame: dict[str, Any]) -> str:
    if frame["kind"] == "combat":
        return "Declare your next battle (8.1)."
    phase = frame["phase"]
    if phase == "bid":
        if state["bids"][role] is None:
            return "Turn Order Step: bid a card face down (6.2)."
        return "Waiting for the other player's bid."
    if phase == "order":
        return "You won the bid: choose who moves first this year (6.2)."
    if phase == "reinforce":
        n = frame["owed"].get(role, 0)
        return f"Reinforcement Step: discard {n} more card{'s' if n != 1 else ''} (6.4)." if n else \
            "Waiting for the other player's discards."
    return ""


def choose_weight(action: Action) -> float:
    return 1.0


# ---------------------------------------------------------------- 6.2 turn order

def bid_actions(state: State, role: str) -> list[Action]:
    d = st.data()
    cards = sorted({c for c in state["hands"][role] if d.cards[c].bid is not None},
                   key=lambda c: (d.cards[c].bid or 0, c))
    acts: list[Action] = [{"type": "bid", "card": c, "label": f"Bid {st.card_choice(c)}"} for c in cards]
    if not acts:
        # RULING: a player without any card bearing a bid number bids nothing (lowest bid).
        acts.append({"type": "bid", "card": None, "label": "Bid nothing (no card with a bid number)"})
    return acts


def _bid_text(card: str | None) -> str:
    if card is None or card == "none":
        return "nothing"
    return f"{st.card_name(card)} (bid {st.data().cards[card].bid})"


def bid_value(card: str | None) -> int:
    if card is None or card == "none":
        return -1
    return st.data().cards[card].bid or 0


def _resolve_bids(state: State, frame: dict[str, Any]) -> None:
    bids = state["bids"]
    state["reveals"] += 1
    st.log(state, "Bids revealed: " + "; ".join(f"{s.capitalize()} {_bid_text(bids[s])}"
                                               for s in st.SIDES) + ".")
    vals = {s: bid_value(bids[s]) for s in st.SIDES}
    if vals["christian"] > vals["muslim"]:
        winner = "christian"
    elif vals["muslim"] > vals["christian"]:
        winner = "muslim"
    else:
        # RULING (tie, not covered by 6.2): the player who did not choose last year chooses;
        # in 1482 the Muslim player, as ties favour him (2.2) and the defender (8.1).
        last = frame.get("last_chooser")
        winner = st.other(last) if last else "muslim"
        st.log(state, f"The bids are tied: {winner.capitalize()} chooses (tie ruling).")
    for s in st.SIDES:
        if bids[s] not in (None, "none"):
            state["discards"][s].append(bids[s])      # both discard their bid (6.2)
        bids[s] = None
    frame["winner"] = winner
    frame["last_chooser"] = winner
    frame["phase"] = "order"
    st.log(state, f"{winner.capitalize()} wins the Turn Order Step and chooses who moves first.")


def _set_first(state: State, side: str, by: str) -> None:
    state["first"] = side
    st.log(state, f"{by.capitalize()} chooses: {side.capitalize()} moves first in "
                  f"{st.YEARS[state['year']]} (initiative marker on turn "
                  f"{'II' if state['year'] == 0 else 'I'}).")


# ---------------------------------------------------------------- 6.3 turns

def order(state: State) -> tuple[str, str]:
    first = state["first"] or "christian"
    return first, st.other(first)


def _turn_advance(state: State, frame: dict[str, Any]) -> bool:
    step = frame["step"]
    first, second = order(state)
    if step == 0:
        _start_turn(state)
    if step < 4:
        side = first if step < 2 else second
        frame["step"] = step + 1
        state["active_side"] = side
        if step % 2 == 0:
            movement.start(state, side)
        else:
            start_combat(state, side)
        return True
    # the turn is over
    state["active_side"] = None
    special.end_of_turn(state)
    if state["year"] == len(st.YEARS) - 1:
        victory.final_score(state)        # 2.2, 6.5: the game ends after 1491-1492 turn I
        return True
    if state["turn"] == 1:
        state["turn"] = 2
        frame["step"] = 0
        st.log(state, f"Turn marker to {st.turn_label(state['year'], 2)}.")
        return True
    _start_reinforcement(state, frame)
    return True


def _start_turn(state: State) -> None:
    blocks = state["blocks"]
    # a read-only scan first (dict.items: apply's copy-on-access records are copied only
    # for the blocks that change)
    for bid, rec in dict.items(blocks):
        if rec["moved"] or rec["fresh"]:
            rec = blocks[bid]
            rec["moved"] = False
            rec["fresh"] = False
    st.log(state, f"— {st.turn_label(state['year'], state['turn'])} —")


# ---------------------------------------------------------------- combat phase

def start_combat(state: State, side: str) -> None:
    st.push_frame(state, {"module": "sequence", "kind": "combat", "side": side, "done": []})


def pending_battles(state: State, side: str, done: list[str] | None = None) -> list[str]:
    """Locations where the phasing side must declare a battle (8.1): opposing units meet (or
    Christian blocks stand at Granada while the Nasrid Palace Guard box holds blocks, 10.10),
    except where the phasing side's units are all inside a besieged castle it owns (8.7.2:
    they remain inside, no combat)."""
    idx = st.by_location(state)
    disks = set(st.peek(state, "disks").values())
    # one pass over who stands where (asked after every battle of a Combat Phase and by its
    # views, issue 33): st.blocks_at / units_at / guard_defends, worked out inline; the
    # records are looked at, not copied (dict.__getitem__ of st.peek)
    records = st.peek(state, "blocks")
    own = st.owners()
    enemy = st.other(side)
    guarded = st.guard_defends(state, st.ALHAMBRA, side, idx)
    out = []
    for loc in st.data().locations:
        ids = idx.get(loc, ())
        if (not ids and loc not in disks) or (done and loc in done):
            continue            # nobody there (every view of a Combat Phase asks, issue 13)
        owners = list(map(own.__getitem__, ids))      # (at C speed: most places hold one side)
        if side not in owners and not (side == "muslim" and loc in disks):
            continue
        facing = enemy in owners or (enemy == "muslim" and loc in disks)
        if not facing and not (guarded and loc == st.ALHAMBRA):
            continue            # (Christians at Granada face the Palace Guard in its box, 10.10)
        mine = [b for b, whose in zip(ids, owners) if whose == side]
        for b in mine:          # (a loop, not all() over a generator left before its end)
            if not dict.__getitem__(records, b)["inside"]:
                break
        else:
            continue            # active player's units stay inside their castle (8.7.2)
        out.append(loc)
    return out


# The answer of the listing under way: a listing of a Combat Phase asks who acts and then
# for the actions, and both want the pending battles (issue 33). It is keyed on the location
# memo of that listing (placement._MEMO, a new list per listing, held here so that its id
# cannot pass to another): a later listing, even of the same state object, computes afresh.
_PENDING: tuple[Any, ...] | None = None


def _pending(state: State, frame: dict[str, Any]) -> list[str]:
    global _PENDING
    memo = placement._MEMO
    if memo is None or memo[0] is not state:
        return pending_battles(state, frame["side"], frame["done"])
    hit = _PENDING
    if hit is not None and hit[0] is memo and hit[1] is frame:
        found: list[str] = hit[2]
        return found
    out = pending_battles(state, frame["side"], frame["done"])
    _PENDING = (memo, frame, out)    # replaced whole: another thread only misses
    return out


def _declare(state: State, frame: dict[str, Any], loc: str) -> None:
    side = frame["side"]
    frame["done"] = [*frame["done"], loc]   # replaced (EDITS_BY_REPLACING)
    st.log(state, f"{side.capitalize()} declares the battle at {st.data().locations[loc].name}.")
    special.palace_guard_join(state, loc, side)
    battle = st.handler({"module": "battle"})
    battle.start_battle(state, loc, side)


def _combat_advance(state: State, frame: dict[str, Any]) -> bool:
    frame.pop("returns", None)
    if special.needs_frame(state):
        special.push_pending(state)
        return True
    pending = _pending(state, frame)
    if not pending:
        st.finish_frame(state, {"kind": "combat_phase", "side": frame["side"]})
        st.settle(state)
        return True
    if len(pending) == 1:
        _declare(state, frame, pending[0])
        return True
    return False


# ---------------------------------------------------------------- 6.4 / 6.5

def _start_reinforcement(state: State, frame: dict[str, Any]) -> None:
    frame["phase"] = "reinforce"
    st.log(state, f"Reinforcement Step of {st.YEARS[state['year']]} (6.4).")
    frame["owed"] = {s: len(state["hands"][s]) // 2 for s in st.SIDES}


def castle_counts(state: State) -> dict[str, int]:
    counts = {s: 0 for s in st.SIDES}
    for owner in state["castle"].values():
        if owner in counts:
            counts[owner] += 1
    return counts


def resource_counts(state: State) -> dict[str, int]:
    counts = {s: 0 for s in st.SIDES}
    for loc, L in st.data().locations.items():
        owner = state["control"].get(loc)
        if L.resource and owner in counts:
            counts[owner] += 1
    return counts


def _reinforce_draws(state: State) -> None:
    from engine import rng

    castles = castle_counts(state)
    resources = resource_counts(state)
    for s in st.SIDES:
        extra = 1 if castles[s] > castles[st.other(s)] else 0
        st.draw_cards(state, s, CARDS_PER_YEAR + extra)
    n = RECRUITMENT.get(state["year"], 0)
    for s in st.SIDES:
        extra = 1 if resources[s] > resources[st.other(s)] else 0
        key = f"bag:{s}"
        drawn = 0
        bag: list[str] | None = None
        for _ in range(n + extra):
            if bag is None:
                # the bag's blocks in the records' order (the location index's order), looked
                # at once: each draw takes one out, and nothing else here puts a block in or
                # out of it (the index, not a look at all 137 records, issue 33)
                bag = list(st.by_location(state).get(key, ()))
            if not bag:
                break
            bid = rng.choice(state, bag)
            bag.remove(bid)
            state["blocks"][bid]["loc"] = f"recruit:{s}"
            drawn += 1
            st.log_private(state, s, f"You draw {st.block_name(bid)} into your recruitment box.")
        st.log(state, f"{s.capitalize()} draws {drawn} block{'s' if drawn != 1 else ''} into the "
                      f"recruitment box (castles {castles[s]}, resources {resources[s]}).")


def _turn_marker(state: State, frame: dict[str, Any]) -> None:
    state["year"] += 1
    state["turn"] = 1
    state["first"] = None
    frame["phase"] = "bid"
    frame["step"] = 0
    st.log(state, f"Turn marker to {st.turn_label(state['year'], 1)} (6.5).")
    special.start_of_year(state)
