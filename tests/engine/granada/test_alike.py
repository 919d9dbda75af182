"""Identical pieces are one menu entry; pieces that look alike and differ say how (issue 38).

Two Andalusies 1-shield blocks in the recruitment box, two Castile cards (bid 4, naval 3) in
hand: whichever is chosen, the game goes on alike, so the menu lists one of them (the first)
and ``apply`` still takes the other (older logs name either). A block the opponent has
identified and one he has not, a card he saw in a hand and one he did not, are two entries
whose labels say which is which.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine.granada as g
from engine.api import find_action
from engine.granada import alike
from tests.engine.granada.core_helpers import (
    D,
    act,
    at_movement,
    clear_board,
    land_blocks,
    new_game,
    put,
)


def _twins() -> tuple[str, str]:
    """Two Muslim land blocks alike in every printed value."""
    blocks = land_blocks("muslim", 8, faction="andalusies")
    face = {b: (D.blocks[b].shields, D.blocks[b].horse, D.blocks[b].crossbow, D.blocks[b].gun) for b in blocks}
    for i, a in enumerate(blocks):
        for b in blocks[i + 1:]:
            if face[a] == face[b]:
                return a, b
    raise AssertionError("no twin Andalusies blocks")


def _mustering(*recruits: str) -> dict[str, Any]:
    s = clear_board(new_game(1))
    for b in recruits:
        s["blocks"][b]["loc"] = "recruit:muslim"
    s = at_movement(s, "muslim")
    s = act(s, "muslim", type="buy", level="minimal")
    return act(s, "muslim", type="muster")


def _singles(s: dict[str, Any], *ids: str) -> list[dict[str, Any]]:
    return [a for a in g.actions(s, "muslim") if a["type"] == "muster_single" and a["block"] in ids]


@pytest.mark.rule("7.2")
def test_two_identical_unseen_recruits_are_one_muster_entry_and_either_is_accepted() -> None:
    a, b = _twins()
    s = _mustering(a, b)
    singles = _singles(s, a, b)
    assert [x["block"] for x in singles] == [a]
    assert [x["block"] for x in g.legal_actions(s, "muslim") if x["type"] == "muster_single"] == [a]
    # an older log that chose the other copy replays
    t = act(s, "muslim", type="muster_single", block=b)
    assert any(x["type"] == "muster_at" for x in g.actions(t, "muslim"))


@pytest.mark.rule("7.2")
def test_a_recruit_the_opponent_identified_is_its_own_entry_and_says_so() -> None:
    """Mustered "unseen", a block the Christian identified earlier is still known to him where
    it stands; its twin is not: two choices, and the labels tell which is which."""
    a, b = _twins()
    s = _mustering(a, b)
    s["known"]["christian"] = sorted({*s["known"]["christian"], b})
    singles = _singles(s, a, b)
    assert sorted(x["block"] for x in singles) == sorted([a, b])
    labels = {x["block"]: x["label"] for x in singles}
    assert "identified by the Christian" in labels[b] and "unknown to the Christian" in labels[a]
    assert labels[a].replace(a, "") != labels[b].replace(b, "")


def _castiles() -> tuple[str, str]:
    same = [c for c in sorted(D.cards) if D.cards[c].name == "Castile" and D.cards[c].bid == 4
            and D.cards[c].naval == 3]
    assert len(same) >= 2
    return same[0], same[1]


def _paying(hand: list[str]) -> dict[str, Any]:
    s = clear_board(new_game(1))
    put(s, "sevilla", *land_blocks("christian", 2))
    for pile in (s["decks"], s["discards"]):
        pile["christian"] = [c for c in pile["christian"] if c not in hand]
    s["hands"]["christian"] = list(hand)
    s = at_movement(s, "christian")
    return act(s, "christian", type="buy", level="limited")


@pytest.mark.rule("7.1")
def test_two_cards_alike_in_every_printed_value_are_one_discard_entry() -> None:
    c1, c2 = _castiles()
    s = _paying([c1, c2])
    pays = [a for a in g.actions(s, "christian") if a["type"] == "pay"]
    assert [a["card"] for a in pays] == [c1]
    t = act(s, "christian", type="pay", card=c2)
    assert t["hands"]["christian"] == [c1] and c2 in t["discards"]["christian"]


@pytest.mark.rule("7.1", "8.4.1")
def test_a_card_the_opponent_saw_in_hand_is_its_own_entry_and_says_so() -> None:
    c1, c2 = _castiles()
    s = _paying([c1, c2])
    s["hand_known"]["christian"] = [c2]
    pays = {a["card"]: a["label"] for a in g.actions(s, "christian") if a["type"] == "pay"}
    assert set(pays) == {c1, c2}
    assert "unseen by the Muslim" in pays[c1] and "seen by the Muslim" in pays[c2]


def _without_log(state: dict[str, Any], a: str, b: str) -> Any:
    swapped = alike._swap({k: v for k, v in state.items() if k != "log"}, a, b)
    return alike._position(swapped), swapped.get("rng"), swapped.get("reveals")


@pytest.mark.rule("7.2", "7.1")
@pytest.mark.parametrize(("seed", "options"), [(5, {}), (6, {"all": True})])
def test_every_copy_left_out_of_a_menu_does_what_the_listed_one_does(seed: int, options: dict[str, Any]) -> None:
    """Over random games: for each order the menu leaves out, the order it keeps leads to the
    same position with the two pieces' ids swapped (log lines aside)."""
    state = g.setup(seed, options)
    pick = random.Random(seed)
    checked = 0
    for _ in range(400):
        if g.result(state) is not None:
            break
        role = next(r for r in g.active(state) if g.actions(state, r))
        shown = g.actions(state, role)
        for left in g._every(state, role):
            if find_action(shown, left) is not None:
                continue
            field = next(f for f in alike.PIECE_FIELDS if f in left)
            kept = next(x for x in shown if x.get(field) and x["type"] == left["type"]
                        and alike.interchangeable(state, x[field], left[field]))
            one = g.apply(state, role, dict(left))
            other = g.apply(state, role, dict(kept))
            assert _without_log(one, left[field], kept[field]) == _without_log(other, "", ""), (left, kept)
            checked += 1
        state = g.apply(state, role, pick.choice(g.actions(state, role)))
    assert checked > 0
