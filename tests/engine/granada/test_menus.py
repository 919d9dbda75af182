"""Navigation is not a move (engine/api.py): Granada offers every legal action at once, however
many, and a front end pages a long list. The ``{"type": "menu"}`` page turns of logs stored
before then still replay (menus.py), change nothing but a page pointer, and are named by
``NAV_TYPES`` so that nothing counts them as moves."""

from __future__ import annotations

import random

import pytest

import engine
import engine.granada as g
from engine.api import RuleError, find_action, is_nav, undo_barrier
from engine.granada import alike, menus, special
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
    """What the role is offered: every legal action, and never a page turn."""
    acts = g.actions(s, role)
    assert acts == g.legal_actions(s, role)
    assert not any(is_nav(a, g.NAV_TYPES) for a in acts), [a["type"] for a in acts]
    return acts


# the entries of a stored log's page: a select menu less "Back"
PER_PAGE = menus.LIMIT - 1


def stored_page_turns(s, role):
    """The page turns a player was offered before navigation left the games (menus.py)."""
    return [a for a in menus.paged(g.legal_actions(s, role), None) if a["type"] == menus.MENU]


def reach(s, role, wanted):
    """Apply ``wanted``: it is offered as it is, whatever the list's length."""
    assert find_action(offered(s, role), wanted) is not None, f"{wanted} not offered"
    return act(s, role, **wanted)


SEEDS = [1, 13, 15, 24]        # games that meet lists longer than a select menu, some of them


def total_movement_everywhere():
    """Christian blocks in more than 25 locations under total movement."""
    s = clear_board(new_game())
    locs = sorted(loc for loc in D.locations if loc != "granada")[:30]
    for loc, b in zip(locs, land_blocks("christian", 30)):
        put(s, loc, b)
        s["control"][loc] = "christian"
    s = at_movement(s, "christian")
    return buy(s, "christian", "total"), locs


def test_every_activation_under_total_movement_is_offered_at_once():
    s, locs = total_movement_everywhere()
    acts = offered(s, "christian")
    assert sum(a["type"] == "activate" for a in acts) == 30 > menus.LIMIT
    assert "end_movement" in {a["type"] for a in acts}
    # a stored log's page turn still replays; what is offered stays the whole list
    pages = stored_page_turns(s, "christian")
    assert len(pages) == 2
    s = g.apply(s, "christian", pages[1])
    assert top(s)["_menu"]["christian"] == {"group": "activate", "page": 1}
    assert offered(s, "christian") == acts
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


def test_taking_blocks_from_a_big_stack_offers_every_block():
    s = clear_board(new_game())
    ids = land_blocks("christian", 30)
    put(s, "sevilla", *ids)
    s = at_movement(s, "christian")
    s = buy(s, "christian", "total")
    s = act(s, "christian", type="activate", loc="sevilla")
    # identical blocks are one entry each kind (alike.py, issue 38): fewer entries than blocks
    takes = [a["block"] for a in g.legal_actions(s, "christian") if a["type"] == "take"]
    assert len(takes) < 30
    assert {alike._printed(b) for b in takes} == {alike._printed(b) for b in ids}
    assert {"take_all", "done_location"} <= {a["type"] for a in offered(s, "christian")}
    s = reach(s, "christian", {"type": "take", "block": ids[-1]})
    assert ids[-1] in top(s)["mstack"]["blocks"]
    for b in ids[:-1]:
        s = reach(s, "christian", {"type": "take", "block": b})
    assert len(top(s)["mstack"]["blocks"]) == 30


@pytest.mark.rule("10.12.1")
def test_placing_boabdil_back_among_many_muslim_locations_offers_every_one():
    s = clear_board(new_game())
    mus = sorted(loc for loc in D.locations if s["control"][loc] == "muslim")
    assert len(mus) > menus.LIMIT
    s["boabdil"]["pending"] = "return"
    g.run(s)
    assert top(s)["kind"] == "boabdil_return"
    assert {a["loc"] for a in legal_choices(s, "muslim")} == set(mus)
    s = reach(s, "muslim", {"type": "place_boabdil", "loc": mus[-1]})
    assert s["blocks"][special_block("boabdil")]["loc"] == mus[-1]


def test_a_stored_page_turn_moves_only_its_roles_pointer_in_simultaneous_choices():
    s = new_game()
    for side in st.SIDES:                      # 30 biddable cards each
        pool = [c for c in D.cards if D.cards[c].deck == side and D.cards[c].bid is not None][:30]
        s["hands"][side] = pool
        s["decks"][side] = [c for c in s["decks"][side] if c not in pool]
    muslim = offered(s, "muslim")
    page = stored_page_turns(s, "christian")[0]
    s = g.apply(s, "christian", page)
    assert set(top(s)["_menu"]) == {"christian"}
    assert offered(s, "muslim") == muslim                 # the Muslim's choices are untouched


def test_built_in_player_and_menus_keep_the_game_going():
    s, _ = total_movement_everywhere()
    acts = offered(s, "christian")
    pick = g.choose(s, "christian", 3)
    assert pick["type"] != menus.MENU and find_action(g.legal_actions(s, "christian"), pick)
    assert find_action(acts, {"type": "end_movement"}) is not None


def random_game(seed):
    """States of a game where moves are picked among the lists offered (menus
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


LONGEST: dict[int, int] = {}


@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_offer_every_legal_action_and_no_page_turn(seed):
    """Random games offer either role every legal action at once and never a page turn, in
    any state; a role that need not act is offered nothing; no list holds a preference switch
    (auto-pass is the front end's, docs/architecture.md)."""
    longest = 0
    for s in random_game(seed):
        for role in st.SIDES:
            acts = offered(s, role)
            # every legal order, copies of identical pieces included (the menu lists one of each)
            longest = max(longest, len(g._every(s, role)))
            assert not {"auto_pass_on", "auto_pass_off"} & {a["type"] for a in acts}
            if role not in g.active(s):
                assert acts == []
    LONGEST[seed] = longest


def test_the_random_games_met_lists_longer_than_a_select_menu():
    """The games above are a test of long lists: they met legal lists longer than a select
    menu (since identical pieces are one entry, issue 38, their menus may stay shorter; the
    long menu itself is test_every_activation_under_total_movement_is_offered_at_once's)."""
    for seed in SEEDS:
        if seed not in LONGEST:
            test_random_games_offer_every_legal_action_and_no_page_turn(seed)
    assert max(LONGEST.values()) > menus.LIMIT


def test_grey_army_pending_places_are_short_lists():
    s = clear_board(new_game())
    put(s, "loja", special_block("boabdil"))
    special.capture_boabdil(s)
    g.run(s)
    assert len(choices(s, "christian")) == 4 and len(offered(s, "christian")) == 4


# ---------------------------------------------------------------- navigation and reactions

def test_a_stored_menu_step_is_navigation_only_no_log_line_and_no_undo_barrier():
    s, _ = total_movement_everywhere()
    page = stored_page_turns(s, "christian")[0]
    assert is_nav(page, g.NAV_TYPES) and engine.get("granada").is_nav(page)
    t = g.apply(s, "christian", page)
    assert not undo_barrier(s, t)
    assert t["log"] == s["log"] and t["rng"] == s["rng"] and t["reveals"] == s["reveals"]
    # nothing but the page pointer of that role changed
    assert top(t).pop("_menu") == {"christian": {"group": page["group"], "page": page["page"]}}
    assert t == s
    back = g.apply(g.apply(s, "christian", page), "christian", menus.BACK)
    assert not undo_barrier(s, back) and back["log"] == s["log"]


def defended_at_zahara():
    """A Christian block attacks a lone Muslim block at Zahara: the pre-battle prompt."""
    s = clear_board(new_game())
    c, m = land_blocks("christian", 1)[0], land_blocks("muslim", 1)[0]
    put(s, "jerez", c)
    put(s, "zahara", m)
    s = at_movement(s, "christian")
    s = buy(s, "christian", "minimal")
    s = act(s, "christian", type="activate", loc="jerez")
    s = act(s, "christian", type="take", block=c)
    s = act(s, "christian", type="step", to="zahara")
    return act(s, "christian", type="end_movement")


def test_no_menu_holds_an_auto_pass_switch_and_the_engine_refuses_one():
    s = new_game()
    for role in st.SIDES:
        assert {a["type"] for a in offered(s, role)} == {"bid"}
        with pytest.raises(RuleError):
            g.apply(s, role, {"type": "auto_pass_on"})
    assert "prefs" not in s and "prefs" not in g.view(s, "muslim")


@pytest.mark.rule("10.1", "10.5")
def test_a_reaction_prompt_is_marked_and_its_pass_is_identifiable():
    s = defended_at_zahara()
    assert g.active(s) == ["muslim"] and top(s)["step"] == "avoid"
    v = g.view(s, "muslim")
    assert v["reaction"] is True
    passes = [a for a in v["actions"] if a.get("pass")]
    assert [a["type"] for a in passes] == ["fight"]
    assert "autopass" not in v["prompt"]  # how to auto-pass is each front end's to say (bot/viewkeys.py)
    # the pass a front end takes is a legal order like any other
    t = g.apply(s, "muslim", passes[0])
    assert top(t)["step"] == "deploy"
    for other in ("christian", None):
        assert g.view(s, other)["reaction"] is False
    # an ordinary question (deploying) is no reaction: nothing is marked as a pass
    v = g.view(t, "christian")
    assert v["reaction"] is False and not any(a.get("pass") for a in v["actions"])


@pytest.mark.rule("8.4.1", "10.10")
def test_each_choice_is_listed_once_and_labels_tell_choices_apart():
    """The two Nasrid Palace Guard blocks are two choices (RULINGS.md 26): their labels
    differ (the horse), so a menu never shows the same line twice."""
    s = buy(at_movement(clear_board(new_game()), "muslim"), "muslim", "minimal")
    guard = [a for a in g.actions(s, "muslim") if a["type"] == "palace_guard"]
    assert len(guard) == 2
    labels = [a["label"] for a in g.actions(s, "muslim")]
    assert len(labels) == len(set(labels))
    assert any("cavalry" in a["label"] for a in guard)


