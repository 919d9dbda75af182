"""apply takes the legal list it just gave (issue 15) only for the very order it gave.

``engine.granada`` remembers the last legal list of each role so that ``apply`` need not list
it again for an order picked from it. These tests hold what that memo may and may not do: an
order picked from the list is applied as before, and anything else (an order typed anew, a
state edited in place, another state) is checked against a fresh list.
"""

from __future__ import annotations

import pytest

import engine.granada as g
from engine.api import RuleError, clone
from engine.rng import Generator
from tests.engine.granada.core_helpers import D, new_game


def bid_card(s: dict, side: str) -> str:
    return next(a["card"] for a in g.actions(s, side) if a["card"] is not None)


@pytest.mark.rule("6.2")
def test_an_order_typed_anew_is_checked_against_the_state_as_it_is_now() -> None:
    s = new_game()
    card = bid_card(s, "christian")
    # the state is edited in place after it was listed: the card leaves the hand
    s["hands"]["christian"] = [c for c in s["hands"]["christian"] if c != card]
    with pytest.raises(RuleError):
        g.apply(s, "christian", {"type": "bid", "card": card})


@pytest.mark.rule("6.2")
def test_a_listed_order_is_checked_again_when_the_log_or_the_frames_changed() -> None:
    s = new_game()
    listed = next(a for a in g.actions(s, "christian") if a["card"] is not None)
    s["hands"]["christian"] = [c for c in s["hands"]["christian"] if c != listed["card"]]
    s["log"].append({"text": "edited by hand"})
    with pytest.raises(RuleError):
        g.apply(s, "christian", listed)


def test_orders_picked_from_the_list_give_what_a_fresh_check_gives() -> None:
    """Over random games, applying the listed object (memo) and an equal copy of it (fresh
    list) give the same state."""
    for seed in (1, 2):
        s = g.setup(seed, {})
        pick = Generator(seed)
        for _ in range(400):
            if g.result(s) is not None:
                break
            role = next(r for r in g.active(s) if g.legal_actions(s, r))
            legal = g.legal_actions(s, role)
            chosen = legal[pick.randbelow(len(legal))]
            fresh = g.apply(s, role, clone(chosen))
            listed = g.legal_actions(s, role)
            again = g.apply(s, role, listed[legal.index(chosen)])
            assert again == fresh
            s = again


def test_another_state_never_uses_the_memo() -> None:
    """Two equal states: listing one does not let the other skip its check."""
    s = new_game()
    twin = clone(s)
    listed = next(a for a in g.actions(s, "christian") if a["card"] is not None)
    twin["hands"]["christian"] = [c for c in twin["hands"]["christian"] if c != listed["card"]]
    assert D.cards[listed["card"]].bid is not None
    with pytest.raises(RuleError):
        g.apply(twin, "christian", listed)


@pytest.mark.rule("6.2")
def test_a_listed_order_edited_by_the_caller_is_checked_afresh() -> None:
    s = new_game()
    listed = next(a for a in g.actions(s, "christian") if a["card"] is not None)
    listed["card"] = "C999"           # no such card: the edited order is not the listed one
    with pytest.raises(RuleError):
        g.apply(s, "christian", listed)
