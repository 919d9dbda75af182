"""The built-in player's findings of issue 31, on constructed positions: the tribute is paid
with Parias first, and extra Materials go on a Scaffold when their PP beat what they are
still worth."""

from __future__ import annotations

from typing import Any

import pytest

import engine.sabika as sabika
from engine.sabika import choose, rules
from engine.sabika.data import MATERIALS, MINORS
from engine.sabika.turn import move_cost
from tests.engine.sabika.helpers import blank, give, turn_of

B = "blue"


def _tribute(parias: int, pp: int = 5, narrator: int = 1) -> dict[str, Any]:
    s = blank()
    s["narrator"] = narrator
    s["wishes"] = {"2": "A1", "4": "C1", "6": "B2"}
    s["players"][B].update(parias=parias, pp=pp, seals=1)
    s["stack"] = []
    s["phase"] = "end"
    s["steps"] = ["narrator", "tribute"]
    rules._advance(s)
    s["stack"] = [d for d in s["stack"] if d["role"] == B]
    assert s["stack"][-1]["kind"] == "tribute"
    return s


def test_the_tribute_is_paid_with_parias_while_there_are_any() -> None:
    for seed in range(4):
        s = _tribute(parias=3)
        while s["stack"] and s["stack"][-1]["kind"] == "tribute":
            a = choose(s, B, seed)
            assert a["means"] == "track", a
            s = rules.apply(s, B, a)
        p = s["players"][B]
        assert (p["parias"], p["pp"], p["seals"], p["dinars"]) == (1, 5, 1, 10)


def _scaffold(round_: int, *items: str) -> dict[str, Any]:
    """Blue is finishing a Minor Construction on Gypsum in round ``round_``, holding ``items``."""
    s = blank()
    s["round"] = round_
    turn_of(s, B)
    give(s, B, *items)
    card = next(iter(MINORS))
    s["stack"] += [{"kind": "place_minor", "role": B, "card": card},
                   {"kind": "scaffold", "role": B, "mode": "minor", "used": ["gypsum"], "base_of": ["gypsum"],
                    "extra_of": list(MATERIALS), "extras": 2, "card": card}]
    return s


def test_in_the_last_round_leftover_wood_goes_on_the_scaffold() -> None:
    s = _scaffold(5, "wood", "wood")
    for seed in range(3):
        a = choose(s, B, seed)
        assert (a["type"], a.get("material")) == ("use", "wood"), a


def test_marble_goes_on_the_scaffold_for_its_3_pp() -> None:
    s = _scaffold(2, "marble")
    a = choose(s, B, 1)
    assert (a["type"], a.get("material")) == ("use", "marble"), a


def test_early_on_gypsum_is_kept_for_a_major_construction() -> None:
    s = _scaffold(2, "gypsum")
    a = choose(s, B, 1)
    assert a["type"] == "done", a


def _major_choice(wish: str) -> dict[str, Any]:
    s = blank()
    turn_of(s, B)
    s["narrator"] = 1
    s["wishes"] = {"2": wish, "4": "B2", "6": "C2"}
    s["majors"]["1"] = ["I1", "I2"]  # a Palace (3 Dinars) and a Fountain (2 Wood or Marble)
    s["stack"].append({"kind": "major_tile", "role": B})
    return s


def test_it_builds_what_the_sultans_wishes_will_score() -> None:
    """A Wish of the first Tower space is scored three times: its buildings are worth it."""
    assert choose(_major_choice("A1"), B, 1)["tile"] == "I1"  # Palaces 2 PP each
    assert choose(_major_choice("A2"), B, 1)["tile"] == "I2"  # Fountains 2 PP each


def _poet_with_one_dinar() -> dict[str, Any]:
    """Blue's Poet leaves the workshop holding 1 Dinar and a Gypsum: a blue Poem costs 1, but a
    Sultan's Worker stands on each Carve Poem square, so going there costs that Dinar."""
    s = blank(dinars=1)
    p = s["players"][B]
    for w in p["workers"].values():
        w["up"] = False
    p["workers"]["poet"].update(up=True, at=None)
    give(s, B, "gypsum")
    s["sultan"]["inner"] = [0, 2]
    s["marble_squares"] = {k: False for k in s["marble_squares"]}
    turn_of(s, B)
    return rules.apply(s, B, {"type": "worker", "worker": "poet"})


def test_a_worker_does_not_go_where_the_move_leaves_too_little_for_the_action() -> None:
    s = _poet_with_one_dinar()
    assert move_cost(s, B, "poet", 0) == 1 and move_cost(s, B, "poet", 3) == 0
    for seed in range(3):
        a = choose(s, B, seed)
        assert a["type"] == "move" and a["square"] == 3, a  # Artisanal Labour, not an empty Carve Poem visit


@pytest.mark.parametrize("players", [1, 2])
def test_its_decisions_depend_only_on_what_the_player_may_know(players: int) -> None:
    """Its one-step looks and its play-outs of a turn run in a world re-dealt from what the
    player may know, so a state re-dealt (the decks, the bag, Yusuf's cards shuffled) gives
    the same decision."""
    s = sabika.setup(3, {"players": players})
    checked = 0
    step = 0
    while sabika.result(s) is None and step < 160:
        role = sabika.active(s)[0]
        if step % 4 == 0 and len(sabika.actions(s, role)) > 1:
            mine = choose(s, role, step)
            for k in (1, 2):
                assert choose(sabika.redeal(s, role, k), role, step) == mine, (step, mine)
            checked += 1
        s = sabika.apply(s, role, choose(s, role, step))
        step += 1
    assert checked > 20

