"""The built-in player's findings of issue 31, each on a constructed position: a leftover tile
is built when that scores, a flip is valued at what it really costs, a donation to Dirk and a
rebuilding exchange are weighed like any other step."""

from __future__ import annotations

from typing import Any

from engine.granada_city import choose, rules
from engine.granada_city.data import CATALOG, face, moats_of

from .helpers import build, card, game, remove_tile, set_hand, tile, turn_of, with_moats

PLAIN = [t for t in CATALOG.tile_order if not moats_of(t)]


def _plain_of(kind: str, avoid: set[str]) -> list[str]:
    """A moatless tile showing ``kind`` on one side, as [tid, side]."""
    for tid in PLAIN:
        if tid in avoid:
            continue
        for side in ("even", "odd"):
            f = face(tid, side)
            if f is not None and f.type == kind:
                return [tid, side]
    raise KeyError(kind)


def _only_c_left(s: dict[str, Any]) -> None:
    s["scorings"] = [{"card": "A"}, {"card": "B"}]


def test_a_leftover_tile_that_wins_a_majority_is_built_not_put_in_the_supply() -> None:
    s = game(3)
    _only_c_left(s)
    build(s, "blue", {(1, 0): tile("school", 2)})
    entry = tile("school", 13)  # the dearest School: Red would lead the Schools
    remove_tile(s, entry[0])
    s["stage"] = "award"
    s["pending"] = {"kind": "award", "role": "red", "space": 1, "tile": entry}
    action = choose(s, "red", 1)
    assert action["type"] == "position", action


def _flip_position(hand: list[str]) -> dict[str, Any]:
    """Red places a tile bought on its even side; its odd side would make Red third of four in
    simplified scoring (3 points), its even side fourth (nothing)."""
    s = game(4, simplified=True)
    _only_c_left(s)
    tid = PLAIN[0]
    even, odd = face(tid, "even"), face(tid, "odd")
    assert even is not None and odd is not None
    used = {tid}
    for role in ("blue", "green", "yellow"):
        rival = _plain_of(even.type, used)
        used.add(rival[0])
        build(s, role, {(1, 0): rival})
    for role in ("blue", "green"):
        rival = _plain_of(odd.type, used)
        used.add(rival[0])
        build(s, role, {(0, 1): rival})
    remove_tile(s, tid)
    set_hand(s, "red", *hand)
    turn_of(s, "red")
    s["turn"].update(free=False, actions=1, bought=[[tid, "even", 1]])
    s["stage"] = "place"
    s["pending"] = {"kind": "place", "index": 0, "stage": "where"}
    return s


def test_a_flip_is_valued_at_its_real_price() -> None:
    cheap = _flip_position([card("blue", 3)])
    tid = PLAIN[0]
    assert rules.price([tid, "even"]) < rules.price([tid, "odd"])
    action = choose(cheap, "red", 1)
    assert (action["type"], action.get("flip")) == ("build", True), action
    dear = _flip_position([card("blue", 9)])  # the flip would cost 9: not worth its 3 points
    action = choose(dear, "red", 1)
    assert action.get("flip") is not True, action


def test_in_the_two_player_game_a_donation_to_dirk_takes_a_majority_from_the_opponent() -> None:
    """Blue leads the Schools (3) before Dirk (2): a School built by Red would rank third and
    swell Blue's majority; given to Dirk (the dearest School) it takes the lead from Blue."""
    s = game(2)
    dirk = [tile("school", 2), tile("school", 3)]
    for entry in dirk:
        remove_tile(s, entry[0])
    s["dirk"] = dirk
    build(s, "blue", {(1, 0): tile("school", 4), (2, 0): tile("school", 5), (3, 0): tile("school", 6)})
    entry = tile("school", 13)
    remove_tile(s, entry[0])
    set_hand(s, "red")
    turn_of(s, "red")
    s["turn"].update(free=False, actions=1, bought=[[entry[0], entry[1], 1]])
    s["stage"] = "place"
    s["pending"] = {"kind": "place", "index": 0, "stage": "where"}
    action = choose(s, "red", 1)
    assert action["type"] == "dirk" and action["flip"] is False, action


def test_rebuilding_exchanges_a_tile_when_the_exchange_wins_a_majority() -> None:
    """Red's tile at (1,0) (moat east) shows a type in which Red is fourth of four, worth
    nothing; the supply holds a tile with moats north, east and south that fits nowhere else
    but (1,0), of a type nobody has. Exchanging them wins a majority and a longer moat."""
    s = game(4)
    _only_c_left(s)
    old = with_moats("e")
    kind = face(old, "even")
    assert kind is not None
    used = {old}
    for role in ("blue", "green", "yellow"):
        rival = next(t for t in CATALOG.tile_order if t not in used
                     and (f := face(t, "odd")) is not None and f.type == kind.type and f.price > kind.price)
        used.add(rival)
        build(s, role, {(0, 1): [rival, "odd"]})
    build(s, "red", {(1, 0): [old, "even"]})
    new = next(t for t in CATALOG.tile_order if moats_of(t) == frozenset("nes") and t not in used
               and (f := face(t, "even")) is not None and f.type != kind.type)
    remove_tile(s, new)
    s["supplies"]["red"] = [[new, "even"]]
    assert not rules._extendable(s, "red") and rules._exchangeable(s, "red", (1, 0)) == [0]
    set_hand(s, "red")
    s["display"] = [card("blue", 1)]
    turn_of(s, "red")
    action = choose(s, "red", 1)
    assert (action["type"], action.get("how")) == ("rebuild", "exchange"), action
    s = rules.apply(s, "red", action)
    action = choose(s, "red", 1)
    assert (action["type"], action["x"], action["y"]) == ("cell", 1, 0)
