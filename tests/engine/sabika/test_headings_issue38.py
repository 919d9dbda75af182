"""Each Sabika heading says what the menu under it offers (issue 38): ``Carry out the Main
and/or Secondary Action of the square`` stood above a lone ``End this turn``, ``or activate one
of your visible Storehouses`` above a player with none to activate, ``build a Major or a Minor
Construction`` above Major Constructions only. Positions are set up by hand, so each heading
is read above the menu it was wrong for."""

from __future__ import annotations

import pytest

import engine.sabika as sabika
from engine.api import State
from tests.engine.sabika.helpers import blank, give, turn_of

B = "blue"


def _heading_and_types(s: State, decision: dict[str, object]) -> tuple[str, list[str]]:
    """The heading and the action types ``B`` reads with ``decision`` on top of the stack."""
    s["stack"] = [{"kind": "turn", "role": B}, {**decision, "role": B}]
    view = sabika.view(s, B)
    return str(view["prompt"]), [str(a["type"]) for a in view["actions"]]


@pytest.mark.rule("sabika:phase-i-actions")
def test_a_square_with_both_actions_done_says_only_the_turn_can_end() -> None:
    s = turn_of(blank(), B)
    prompt, types = _heading_and_types(s, {"kind": "square", "rondel": "outer", "square": 3,
                                           "main": True, "secondary": True})
    assert types == ["done"]
    assert prompt == "Nothing more to do on this square: end the turn."


@pytest.mark.rule("sabika:storehouse-action")
def test_a_player_without_storehouse_tiles_is_offered_only_to_expand() -> None:
    """No Storehouse of his is expanded, so none can be activated: the heading does not offer it."""
    s = turn_of(blank(), B)
    prompt, types = _heading_and_types(s, {"kind": "storehouse", "side": "left"})
    assert set(types) == {"expand"}
    assert prompt == "Expand a Storehouse with a displayed tile."


@pytest.mark.rule("sabika:construction-action")
def test_a_player_who_can_build_only_a_major_reads_only_major() -> None:
    """Gypsum but no Minor Construction card shown, and the cards already renewed: only the Major
    Construction is on offer, and the heading names only it."""
    s = turn_of(blank(), B)
    give(s, B, "gypsum")
    s["minor_display"] = [None] * len(s["minor_display"])
    prompt, types = _heading_and_types(s, {"kind": "construct", "refreshed": True})
    assert types == ["major"]
    assert prompt == "Construction: build a Major Construction."


@pytest.mark.rule("sabika:produce-action")
def test_produce_without_a_presence_offers_only_processing() -> None:
    s = turn_of(blank(), B)
    s["players"][B]["processing"] = ["clothes"]
    prompt, types = _heading_and_types(s, {"kind": "produce", "city": False, "process": False})
    assert types == ["process_two", "done"]
    assert prompt == "Produce: process up to 2 Raw Materials, or finish producing."
