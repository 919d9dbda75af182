"""Every list of actions offered holds at most 25 entries (DESIGN.md "Small steps": a
Discord select menu holds no more); longer lists are paged without changing the rules."""

from __future__ import annotations

import random

import pytest

import engine.granada as g
from engine.api import RuleError, find_action, undo_barrier
from engine.granada import battle_prefs, menus, special
from engine.granada import state as st
from tests.engine.granada.core_helpers import (
    D,
    act,
    at_movement,
    buy,
    choices,
    clear_board,
    land_blocks,
    legal_choices,
    new_game,
    put,
    special_block,
    top,
)


def offered(s, role):
    acts = g.actions(s, role)
    assert len(acts) <= menus.LIMIT, [a["type"] for a in acts]
    return acts


# the entries of a page: a select menu less "Back" and the auto-pass switch, always in sight
PER_PAGE = menus.LIMIT - 2


def reach(s, role, wanted):
    """Apply ``wanted`` the way a player with a select menu must: through the pages."""
    acts = offered(s, role)
    if find_action(acts, wanted) is not None:
        return act(s, role, **wanted)
    for page in (a for a in acts if a["type"] == menus.MENU and a.get("group") == wanted["type"]):
        shown = g.apply(s, role, page)
        if find_action(offered(shown, role), wanted) is not None:
            return act(shown, role, **wanted)
    raise AssertionError(f"{wanted} never offered")


SEEDS = [1, 13, 15, 24]        # games that meet lists longer than a select menu


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
    assert inside[-2] == menus.BACK and inside[-1]["type"] == battle_prefs.AUTO_ON
    assert {a["loc"] for a in inside[:-2]} == set(sorted(locs)[PER_PAGE:])
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
    assert {a["loc"] for a in legal_choices(s, "muslim")} == set(mus)
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
    assert offered(s, "christian")[-2] == menus.BACK
    assert menus.BACK not in offered(s, "muslim")        # the Muslim's menu is untouched


def test_built_in_player_and_menus_keep_the_game_going():
    s, _ = total_movement_everywhere()
    acts = offered(s, "christian")
    pick = g.choose(s, "christian", 3)
    assert pick["type"] != menus.MENU and find_action(g.legal_actions(s, "christian"), pick)
    assert find_action(acts, {"type": "end_movement"}) is not None


def random_game(seed):
    """States of a game where moves are picked among the lists offered (menus and switches
    included, as a player clicking at random would) or by the built-in player."""
    rnd = random.Random(seed)
    s = new_game(seed)
    for step in range(4000):
        yield s
        if g.result(s) is not None:
            return
        role = g.active(s)[0]
        acts = g.actions(s, role)
        pick = rnd.choice(acts) if step % 3 else g.choose(s, role, seed * 7919 + step)
        s = g.apply(s, role, pick)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_never_offer_more_than_25_actions(seed):
    """Random games never show either role more than 25 actions, in any state; the list
    offered to an active role always ends with his auto-pass switch, and only he has one."""
    longest = 0
    for s in random_game(seed):
        for role in st.SIDES:
            acts = g.actions(s, role)
            longest = max(longest, len(g.legal_actions(s, role)))
            assert len(acts) <= menus.LIMIT, (seed, role, st.top(s)["kind"])
            switches = [a for a in acts if battle_prefs.is_switch(a)]
            if role in g.active(s):
                want = battle_prefs.AUTO_OFF if s["prefs"][role]["auto_pass"] else battle_prefs.AUTO_ON
                assert acts[-1]["type"] == want and len(switches) == 1
            else:
                assert acts == []
    assert longest > menus.LIMIT          # these games did meet lists that needed pages


def test_grey_army_pending_places_are_short_lists():
    s = clear_board(new_game())
    put(s, "loja", special_block("boabdil"))
    special.capture_boabdil(s)
    g.run(s)
    assert len(choices(s, "christian")) == 4 and len(offered(s, "christian")) == 5


# ---------------------------------------------------------------- navigation and the switch

def test_a_menu_step_is_navigation_only_no_log_line_and_no_undo_barrier():
    s, _ = total_movement_everywhere()
    page = next(a for a in offered(s, "christian") if a["type"] == menus.MENU)
    t = g.apply(s, "christian", page)
    assert not undo_barrier(s, t)
    assert t["log"] == s["log"] and t["rng"] == s["rng"] and t["reveals"] == s["reveals"]
    # nothing but the page pointer of that role changed
    assert top(t).pop("_menu") == {"christian": {"group": page["group"], "page": page["page"]}}
    assert t == s
    back = g.apply(g.apply(s, "christian", page), "christian", menus.BACK)
    assert not undo_barrier(s, back) and back["log"] == s["log"]


def test_the_auto_pass_switch_is_offered_whenever_a_player_is_asked_anything():
    s = new_game()                                  # the Turn Order Step: both bid
    for role in st.SIDES:
        assert offered(s, role)[-1]["type"] == battle_prefs.AUTO_ON
        assert g.legal_actions(s, role)[-1]["type"] == battle_prefs.AUTO_ON
    t = g.apply(s, "muslim", {"type": battle_prefs.AUTO_ON})
    assert t["prefs"]["muslim"]["auto_pass"] is True and t["prefs"]["christian"]["auto_pass"] is False
    assert not undo_barrier(s, t) and t["log"] == s["log"]
    assert g.active(t) == g.active(s) and choices(t, "muslim") == choices(s, "muslim")
    assert offered(t, "muslim")[-1]["type"] == battle_prefs.AUTO_OFF
    assert offered(t, "christian")[-1]["type"] == battle_prefs.AUTO_ON
    # only the Muslim's own view shows his preference
    assert g.view(t, "muslim")["prefs"] == {"auto_pass": True}
    for other in ("christian", None):
        assert g.view(t, other) == g.view(s, other)
    # the switch offered is the only one accepted; it cannot be worked by the opponent
    with pytest.raises(RuleError):
        g.apply(t, "muslim", {"type": battle_prefs.AUTO_ON})
    u = g.apply(t, "muslim", {"type": battle_prefs.AUTO_OFF})
    assert u["prefs"]["muslim"]["auto_pass"] is False and g.view(u, "muslim") == g.view(s, "muslim")
    s, _ = total_movement_everywhere()
    with pytest.raises(RuleError):
        g.apply(s, "muslim", {"type": battle_prefs.AUTO_ON})        # not his decision now


def test_the_switch_stays_in_sight_on_every_page_and_keeps_the_page():
    s, locs = total_movement_everywhere()
    assert offered(s, "christian")[-1]["type"] == battle_prefs.AUTO_ON
    for page in [a for a in offered(s, "christian") if a["type"] == menus.MENU]:
        t = g.apply(s, "christian", page)
        shown = offered(t, "christian")
        assert shown[-1]["type"] == battle_prefs.AUTO_ON and menus.BACK in shown
        on = g.apply(t, "christian", shown[-1])
        again = offered(on, "christian")
        assert again[:-1] == shown[:-1] and again[-1]["type"] == battle_prefs.AUTO_OFF


@pytest.mark.rule("10.1", "10.5")
def test_auto_pass_switched_on_outside_a_battle_skips_the_pre_battle_prompt():
    def defended(auto: bool):
        s = new_game()
        if auto:                                   # asked to bid, the Muslim switches it on
            s = g.apply(s, "muslim", {"type": battle_prefs.AUTO_ON})
        s = clear_board(s)
        c, m = land_blocks("christian", 1)[0], land_blocks("muslim", 1)[0]
        put(s, "jerez", c)
        put(s, "zahara", m)
        s = at_movement(s, "christian")
        s = buy(s, "christian", "minimal")
        s = act(s, "christian", type="activate", loc="jerez")
        s = act(s, "christian", type="take", block=c)
        s = act(s, "christian", type="step", to="zahara")
        return act(s, "christian", type="end_movement")

    asked = defended(False)
    assert g.active(asked) == ["muslim"] and top(asked)["step"] == "avoid"
    assert {"fight", "fight_always"} <= {a["type"] for a in choices(asked, "muslim")}
    skipped = defended(True)
    assert top(skipped)["module"] == "battle" and top(skipped)["step"] != "avoid"
