"""Every list of actions offered holds at most 25 entries (DESIGN.md "Small steps": a
Discord select menu holds no more); longer lists are paged without changing the rules."""

from __future__ import annotations

import random

import pytest

import engine.granada as g
from engine.api import RuleError, find_action
from engine.granada import menus, special
from engine.granada import state as st
from tests.engine.granada.core_helpers import (
    D,
    act,
    at_movement,
    buy,
    clear_board,
    land_blocks,
    new_game,
    put,
    special_block,
    top,
)


def offered(s, role):
    acts = g.actions(s, role)
    assert len(acts) <= menus.LIMIT, [a["type"] for a in acts]
    return acts


def reach(s, role, wanted):
    """Apply ``wanted`` the way a player with a select menu must: through the pages."""
    for _ in range(5):
        acts = offered(s, role)
        if find_action(acts, wanted) is not None:
            return act(s, role, **wanted)
        page = next(a for a in acts if a["type"] == menus.MENU and a.get("group") == wanted["type"]
                    and find_action(menus.paged(g.legal_actions(s, role),
                                                {"group": a["group"], "page": a["page"]}), wanted))
        s = g.apply(s, role, page)
    raise AssertionError(f"{wanted} never offered")


def total_movement_everywhere():
    """Christian blocks in more than 25 locations under total movement."""
    s = clear_board(new_game())
    locs = sorted(loc for loc in D.locations if loc != "granada")[:30]
    for loc, b in zip(locs, land_blocks("christian", 30)):
        put(s, loc, b)
        s["control"][loc] = "christian"
    s = at_movement(s, "christian")
    return buy(s, "christian", "total"), locs


def test_activations_under_total_movement_are_split_into_pages():
    s, locs = total_movement_everywhere()
    legal = g.legal_actions(s, "christian")
    assert sum(a["type"] == "activate" for a in legal) == 30
    acts = offered(s, "christian")
    pages = [a for a in acts if a["type"] == menus.MENU]
    assert len(pages) == 2 and "end_movement" in {a["type"] for a in acts}
    s = g.apply(s, "christian", pages[1])
    inside = offered(s, "christian")
    assert inside[-1] == menus.BACK
    assert {a["loc"] for a in inside[:-1]} == set(sorted(locs)[menus.PAGE:])
    back = g.apply(s, "christian", menus.BACK)
    assert g.actions(back, "christian") == acts
    s = act(s, "christian", type="activate", loc=locs[-1])
    assert top(s)["origin"] == locs[-1] and top(s).get("_menu", {}).get("christian") is None


def test_any_legal_action_is_accepted_whatever_page_is_shown_and_menus_are_checked():
    s, locs = total_movement_everywhere()
    s = act(s, "christian", type="activate", loc=locs[0])       # not on the top menu
    assert top(s)["origin"] == locs[0]
    with pytest.raises(RuleError):
        act(s, "christian", type=menus.MENU, group="activate", page=7)


def test_taking_blocks_from_a_big_stack_is_paged():
    s = clear_board(new_game())
    ids = land_blocks("christian", 30)
    put(s, "sevilla", *ids)
    s = at_movement(s, "christian")
    s = buy(s, "christian", "total")
    s = act(s, "christian", type="activate", loc="sevilla")
    assert sum(a["type"] == "take" for a in g.legal_actions(s, "christian")) == 30
    assert {"take_all", "done_location"} <= {a["type"] for a in offered(s, "christian")}
    s = reach(s, "christian", {"type": "take", "block": ids[-1]})
    assert ids[-1] in top(s)["mstack"]["blocks"]
    for b in ids[:-1]:
        s = reach(s, "christian", {"type": "take", "block": b})
    assert len(top(s)["mstack"]["blocks"]) == 30


@pytest.mark.rule("10.12.1")
def test_placing_boabdil_back_among_many_muslim_locations_is_paged():
    s = clear_board(new_game())
    mus = sorted(loc for loc in D.locations if s["control"][loc] == "muslim")
    assert len(mus) > menus.LIMIT
    s["boabdil"]["pending"] = "return"
    g.run(s)
    assert top(s)["kind"] == "boabdil_return"
    assert {a["loc"] for a in g.legal_actions(s, "muslim")} == set(mus)
    s = reach(s, "muslim", {"type": "place_boabdil", "loc": mus[-1]})
    assert s["blocks"][special_block("boabdil")]["loc"] == mus[-1]


def test_pages_are_remembered_per_role_in_simultaneous_choices():
    s = new_game()
    for side in st.SIDES:                      # 30 biddable cards each
        pool = [c for c in D.cards if D.cards[c].deck == side and D.cards[c].bid is not None][:30]
        s["hands"][side] = pool
        s["decks"][side] = [c for c in s["decks"][side] if c not in pool]
    page = next(a for a in offered(s, "christian") if a["type"] == menus.MENU)
    s = g.apply(s, "christian", page)
    assert offered(s, "christian")[-1] == menus.BACK
    assert menus.BACK not in offered(s, "muslim")        # the Muslim's menu is untouched


def test_built_in_player_and_menus_keep_the_game_going():
    s, _ = total_movement_everywhere()
    acts = offered(s, "christian")
    pick = g.choose(s, "christian", 3)
    assert pick["type"] != menus.MENU and find_action(g.legal_actions(s, "christian"), pick)
    assert find_action(acts, {"type": "end_movement"}) is not None


@pytest.mark.parametrize("seed", [0, 18, 22, 28])
def test_random_games_never_offer_more_than_25_actions(seed):
    """Random games (menus followed like a player would, or the built-in player's choices)
    never show either role more than 25 actions, in any state."""
    rnd = random.Random(seed)
    s = new_game(seed)
    longest = 0
    for step in range(3000):
        if g.result(s) is not None:
            break
        for role in st.SIDES:
            n = len(g.actions(s, role))
            longest = max(longest, len(g.legal_actions(s, role)))
            assert n <= menus.LIMIT, (seed, step, role, st.top(s)["kind"])
        role = g.active(s)[0]
        acts = g.actions(s, role)
        pick = rnd.choice(acts) if step % 3 else g.choose(s, role, seed * 7919 + step)
        s = g.apply(s, role, pick)
    assert g.result(s) is not None
    assert longest > menus.LIMIT          # these games did meet lists that needed pages


def test_grey_army_pending_places_are_short_lists():
    s = clear_board(new_game())
    put(s, "loja", special_block("boabdil"))
    special.capture_boabdil(s)
    g.run(s)
    assert len(offered(s, "christian")) == 4
