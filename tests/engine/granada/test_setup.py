"""Initial setup (5.1, 5.2) and the game pieces it lays out (3.x, 4.x)."""

from __future__ import annotations

import json

import pytest

import engine.granada as g
from engine.granada import state as st
from tests.engine.granada.core_helpers import D, new_game


def blocks_at(s, loc):
    return sorted(b for b, r in s["blocks"].items() if r["loc"] == loc)


@pytest.mark.rule("5.1")
def test_control_pieces_white_outside_black_inside_with_three_exceptions():
    s = new_game()
    for loc, L in D.locations.items():
        if L.castle or L.watchtower or L.resource:
            expected = "muslim" if L.kingdom else "christian"
            if loc in ("zahara", "lucena"):
                expected = "muslim"
            if loc == "alhama":
                expected = "christian"
            assert s["control"][loc] == expected, loc
            if L.castle:
                assert s["castle"][loc] == expected, loc


@pytest.mark.rule("5.1", "3.3", "10.5")
def test_turn_marker_decks_hands_and_castle_surrender_cards():
    s = new_game()
    assert (s["year"], s["turn"]) == (0, 2)
    for side in st.SIDES:
        assert len(s["hands"][side]) == 6
        assert len(s["surrender"][side]) == 2
        deck = [c for c, card in D.cards.items() if card.deck == side and c not in D.optional_cards]
        assert sorted(s["hands"][side] + s["decks"][side]) == sorted(deck)
    assert sorted(s["decks"]["naval"]) == sorted(c for c, card in D.cards.items() if card.deck == "naval")
    assert not {b for b, r in s["blocks"].items() if D.blocks[b].optional and r["loc"] != "aside"}
    # shuffled: two seeds give two orders
    assert new_game(2)["decks"]["christian"] != s["decks"]["christian"]


@pytest.mark.rule("5.2.1", "10.6", "10.7", "10.8", "10.9", "10.11")
def test_fixed_blocks_and_disks():
    s = new_game()
    for loc, ids in D.setup.fixed.items():
        for b in ids:
            assert s["blocks"][b]["loc"] == loc
    assert s["disks"] == {"el_zegri": "malaga", "sidi_yahya": "baza"}
    el_zagal = next(b for b, blk in D.blocks.items() if blk.special == "el_zagal")
    assert s["blocks"][el_zagal]["loc"] == "malaga"
    orders = sorted(s["blocks"][b]["loc"] for b, blk in D.blocks.items() if blk.special == "military_order")
    assert orders == ["sevilla", "ubeda"]
    muj = sorted(s["blocks"][b]["loc"] for b, blk in D.blocks.items() if blk.special == "mujahideen")
    assert muj == ["malaga", "oran"]


@pytest.mark.rule("5.2.2")
def test_random_blocks_fill_the_plus_locations_and_never_with_fleets():
    for seed in (1, 2, 3):
        s = new_game(seed)
        for side, places in D.setup.random.items():
            for loc, n in places.items():
                mine = [b for b in blocks_at(s, loc) if D.blocks[b].side == side]
                fixed = len(D.setup.fixed.get(loc, ()))
                assert len(mine) == fixed + n, (seed, loc)
        for b, r in s["blocks"].items():
            if D.blocks[b].fleet:
                assert r["loc"] not in D.locations


@pytest.mark.rule("5.2.3", "4.9")
def test_first_wave_four_and_three_blocks_palace_guard_and_grey_boxes():
    s = new_game()
    assert len(blocks_at(s, "recruit:christian")) == 4
    assert len(blocks_at(s, "recruit:muslim")) == 3
    assert blocks_at(s, "palace") == sorted(D.setup.palace_guard)
    assert blocks_at(s, "boabdil_box") == sorted(D.setup.boabdil_box)
    for b in blocks_at(s, "boabdil_box") + blocks_at(s, "palace"):
        assert s["blocks"][b]["revealed"]                     # face up in their boxes


@pytest.mark.rule("3.1", "5.1")
def test_blocks_stand_so_that_only_the_owner_sees_them():
    s = new_game()
    chris_view = json.dumps(g.view(s, "christian"))
    hidden = [b for b, r in s["blocks"].items() if D.blocks[b].side == "muslim" and not D.blocks[b].fleet
              and r["loc"] in D.locations]
    assert hidden
    for b in hidden:
        assert f'"{b}"' not in chris_view
    assert all(s["blocks"][b]["revealed"] for b in D.blocks if D.blocks[b].fleet)   # fleets face up


@pytest.mark.rule("5.1")
def test_setup_is_deterministic_and_json():
    a = json.dumps(new_game(7), sort_keys=True)
    assert a == json.dumps(new_game(7), sort_keys=True)
    assert a != json.dumps(new_game(8), sort_keys=True)


def test_unknown_options_are_refused():
    from engine.api import RuleError

    with pytest.raises(RuleError):
        g.setup(1, {"mercenaries": True})
