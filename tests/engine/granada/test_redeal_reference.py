"""The cheap re-deal (engine/granada/redealing.py, issue 33) against the plain one it replaced.

The re-deal and the canonical form must not change by a byte: the built-in player samples its
worlds from them (a decision of the search depends on every card order) and recorded games and
the AI ledgers hold those decisions. This file keeps the plain re-deal as it stood before
(views.py at 77c70b2: a deep copy of the whole state, then every step on the copy; the frame
hooks of battle.py, siege.py and seabattle.py as they were) and compares its JSON text, key
order included, with the engine's, for both roles and several seeds, along random games (every
optional rule on and off, up to their end) and in built positions where a frame hook re-deals
something: a battle's and a siege's card played but not yet deployed, a sea battle's secret
choice. It checks too that the re-deal leaves its input as it was and that the frames a hook
re-dealt are the output's own.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine.granada as g
from engine import rng
from engine.api import clone
from engine.granada import seabattle, views
from engine.granada import state as st
from tests.engine.granada.core_helpers import random_states
from tests.engine.granada.test_battle import example_battle
from tests.engine.granada.test_battle_impacts import act
from tests.engine.granada.test_seabattle import adra
from tests.engine.granada.test_siege import besieged

State = dict[str, Any]

# ---------------------------------------------------------------- the plain re-deal (77c70b2)


def _remap(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, list):
        return [_remap(v, mapping) for v in value]
    if isinstance(value, dict):
        return {mapping.get(k, k): _remap(v, mapping) for k, v in value.items()}
    return value


def _redeal_pending(state: State, role: str, frame: dict[str, Any], gen: Any) -> None:
    p = frame.get("pending")
    if p is not None and p["side"] != role and p["stage"] == "block":
        frame["pending"] = None


def _redeal_sea(state: State, role: str, frame: dict[str, Any], gen: Any) -> None:
    opp = st.other(role)
    if frame["step"] == "choose" and opp in frame["secret"]:
        options = [a["card"] for a in seabattle._choose_actions(state, opp)]
        frame["secret"][opp] = options[gen.randbelow(len(options))]


HOOKS = {"battle": _redeal_pending, "siege": _redeal_pending, "seabattle": _redeal_sea}


def plain_deal(state: State, role: str, gen: rng.Generator | None) -> State:
    new: State = clone(state)
    order = gen.shuffle if gen is not None else list.sort
    d = st.data()
    opp = st.other(role)
    known = set(new["known"][role])
    over = new.get("result") is not None
    unseen = (f"bag:{opp}", f"recruit:{opp}")
    pool = []
    for bid in ([] if over else sorted(new["blocks"])):
        b = d.blocks[bid]
        rec = new["blocks"][bid]
        loc = rec["loc"]
        if b.side != opp or b.colour == "grey" or b.optional or loc in views.PUBLIC_PLACES:
            continue
        if b.fleet:
            if loc in unseen:
                pool.append(bid)
            continue
        if bid in known or (rec["revealed"] and loc not in unseen):
            continue
        pool.append(bid)
    records = {bid: new["blocks"][bid] for bid in pool}
    if gen is None:
        named = json.dumps([new["stack"], new.get("entries") or {}, new.get("pioneers") or {}])

        def rank(holder: str) -> tuple[str, int, str]:
            at = named.find(f'"{holder}"')
            return json.dumps(records[holder], sort_keys=True), (at if at >= 0 else len(named)), holder

        pool.sort(key=rank)
    slots_fixed = [bid for bid in pool if records[bid]["loc"] not in unseen]
    slots_bag = [bid for bid in pool if records[bid]["loc"] in unseen]
    land = sorted(bid for bid in pool if not d.blocks[bid].fleet)
    order(land)
    chosen = land[:len(slots_fixed)]
    rest = sorted(bid for bid in pool if bid not in set(chosen))
    order(rest)
    mapping: dict[str, str] = {}
    for slot, bid in zip(slots_fixed, chosen):
        mapping[slot] = bid
    for slot, bid in zip(slots_bag, rest):
        mapping[slot] = bid
    for slot, bid in mapping.items():
        new["blocks"][bid] = dict(records[slot])
    if mapping:
        new["stack"] = _remap(new["stack"], mapping)
        new["pioneers"] = {t: mapping.get(c, c) for t, c in (new.get("pioneers") or {}).items()}
        for ent in (new.get("entries") or {}).values():
            for s in list(ent):
                ent[s] = _remap(ent[s], mapping)
    seen = [c for c in new["hand_known"][opp] if c in new["hands"][opp]]
    hidden_hand = [c for c in new["hands"][opp] if c not in seen]
    deck = new["decks"][opp]
    bid = new["bids"][opp]
    cards = hidden_hand + list(deck) + ([bid] if bid not in (None, "none") else [])
    order(cards)
    if bid not in (None, "none"):
        biddable = [c for c in cards if d.cards[c].bid is not None]
        new_bid = biddable[0] if biddable else bid
        cards.remove(new_bid)
        new["bids"][opp] = new_bid
    new["hands"][opp] = seen + cards[:len(hidden_hand)]
    new["decks"][opp] = cards[len(hidden_hand):]
    order(new["decks"][role])
    order(new["decks"]["naval"])
    hooks_gen = gen if gen is not None else rng.Generator(0)
    for f in new["stack"]:
        hook = HOOKS.get(f["module"])
        if hook is not None:
            hook(new, role, f, hooks_gen)
    new["log"] = [e for e in new["log"] if "to" not in e or role in e["to"]]
    new["rng"] = rng.seed_state(gen.randbelow(1 << 62) if gen is not None else 0)
    return new


# ---------------------------------------------------------------- the comparison

SEEDS = (0, 123_456_789, (1 << 62) - 1)


def frames(state: State) -> set[str]:
    return {f["module"] for f in state["stack"]}


def compare(state: State) -> None:
    before = json.dumps(state)
    for role in st.SIDES:
        got = g.canonical(state, role)
        assert json.dumps(got) == json.dumps(plain_deal(state, role, None)), f"canonical for {role}"
        for seed in SEEDS:
            got = g.redeal(state, role, seed)
            want = plain_deal(state, role, rng.Generator(seed))
            assert json.dumps(got) == json.dumps(want), f"redeal for {role}, seed {seed}"
            # what a hook re-dealt is the output's own, never a frame of the input
            for f in got["stack"]:
                if f["module"] in HOOKS:
                    assert all(f is not old for old in state["stack"])
    assert json.dumps(state) == before, "the re-deal changed its input"


def pending(state: State) -> bool:
    return any((f.get("pending") or {}).get("stage") == "block" for f in state["stack"])


def sample(seed: int, options: dict[str, Any]) -> list[State]:
    """Every 13th state of a random game, its last one, every 4th of a battle, and every one
    of a siege, of a sea battle or with a battle card played but not yet deployed."""
    states = random_states(seed, options, 3000)
    return [s for i, s in enumerate(states) if i % 13 == 0 or i == len(states) - 1 or pending(s)
            or frames(s) & {"siege", "seabattle"} or ("battle" in frames(s) and i % 4 == 0)]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_redeal_and_canonical_are_the_plain_ones_along_random_games(seed: int) -> None:
    states = sample(seed, {"all": True} if seed % 2 else {})
    assert len(states) > 15
    for s in states:
        compare(s)
    middle = states[len(states) // 2]
    compare(g.canonical(middle, "muslim"))      # what the search re-deals
    # a state stored before the Pioneers option (no "pioneers" key: a re-deal adds it)
    compare({k: v for k, v in g.canonical(middle, "christian").items() if k != "pioneers"})
    compare({k: v for k, v in middle.items() if k != "pioneers"})


def test_the_random_games_reach_what_the_frame_hooks_redeal() -> None:
    """The comparison above sees battles with a card pending, sieges, sea battles and the end."""
    seen: set[str] = set()
    for seed in (1, 2, 3, 4, 5, 6):
        for s in sample(seed, {"all": True} if seed % 2 else {}):
            seen |= frames(s) & set(HOOKS)
            seen |= {"pending"} if pending(s) else set()
            seen |= {"over"} if s.get("result") is not None else set()
    assert seen >= {"battle", "siege", "seabattle", "pending", "over"}


def stored(state: State) -> State:
    """A built position as the store keeps it (the builders edit in place, sharing lists)."""
    loaded: State = json.loads(json.dumps(state))
    return loaded


def test_a_battle_card_played_but_not_deployed() -> None:
    s = example_battle()
    s = g.apply(s, "muslim", {"type": "fight", "pass": True})
    s = g.apply(s, "christian", {"type": "deploy_leader", "block": "W36"})
    s = g.apply(s, "muslim", {"type": "play", "card": "M40"})
    assert s["stack"][-1]["pending"]["stage"] == "block"
    compare(s)
    assert g.redeal(s, "christian", 1)["stack"][-1]["pending"] is None


def test_a_siege_card_played_but_not_deployed() -> None:
    s = besieged("loja", ("K17",), ("W25", "W24"), ("C21", "C25"), ("M01",))
    act(s, "christian", "assault")
    act(s, "christian", "play", card="C21")
    s = stored(s)
    assert s["stack"][-1]["module"] == "siege" and s["stack"][-1]["pending"]["stage"] == "block"
    compare(s)
    assert g.redeal(s, "muslim", 1)["stack"][-1]["pending"] is None


def test_a_sea_battle_secret_choice() -> None:
    s = adra()
    act(s, "christian", "naval_card", card="C02")
    s = stored(s)
    compare(s)
    drawn = {g.redeal(s, "muslim", k)["stack"][-1]["secret"]["christian"] for k in range(20)}
    assert len(drawn) > 1, "the secret choice is drawn again"


def test_the_ids_a_value_may_name_include_every_id_it_names() -> None:
    """redealing._named, which lets the re-deal skip frames that name no re-dealt block, finds
    every id used as a string or a key, also a repeated one (marshal refers back to it)."""
    from engine.granada.redealing import _named

    ids = sorted(st.data().blocks)
    pick = rng.Generator(5)
    for _ in range(300):
        chosen = [ids[pick.randbelow(len(ids))] for _ in range(4)]
        shared = chosen[0]
        value: Any = {"module": "battle", "a": [shared, {"x": shared}, [chosen[1] + "x"]],
                      chosen[2]: {"n": 3, "k": [None, True, 1.5, "G10", "w" * 300]},
                      "b": {"deep": [[chosen[3]]]}, "c": [shared] * 3, "d": "G1" * 2}
        named = set(_named(value, ids))
        assert {shared, chosen[2], chosen[3]} <= named
        assert named <= {c for c in ids if c in json.dumps(value)}
        assert _named({"only": "words", "n": [1, 2]}, ids) == []
