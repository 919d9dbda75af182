"""Views name what they show (issue 34): a player reads a card of his hand by the game's own
words ("1 blue", "[5 green / 2 red, Castile]", "Castile"), never by the internal id that tells
copies apart ("blue-1-3", "g5r2"). Every game with a hand gives each card a name (on the
card, or in the view's ``cards`` table for a hand listed by id), the name is not the id, and
no prompt holds a card id. Random games of all four games are walked, every seat's view and
the spectator's looked at."""

from __future__ import annotations

import re
from typing import Any

import pytest

import engine
from tests.engine.games import random_game

GAMES = {"granada": {}, "navas": {}, "granada_city": {"players": 4}, "sabika": {"players": 3}}
STOP = 400
"""States walked per game (every fifth looked at): enough to deal, play and redraw hands."""


def card_id(card: Any) -> str:
    return str(card["id"]) if isinstance(card, dict) else str(card)


def card_name(card: Any, view: dict[str, Any]) -> str | None:
    """The name the view gives a card of the hand (None: it gives none)."""
    if isinstance(card, dict):
        return card.get("name")
    entry = (view.get("cards") or {}).get(card)
    return entry.get("name") if isinstance(entry, dict) else None


def holds(text: str, ident: str) -> bool:
    """Whether ``text`` holds ``ident`` as a word of its own (not inside another word)."""
    return re.search(rf"(?<![\w-]){re.escape(ident)}(?![\w-])", text) is not None


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_hands_and_prompts_name_cards_never_by_id(game_id: str) -> None:
    module = engine.get(game_id)
    options = GAMES[game_id]
    seen_ids: set[str] = set()
    prompts: set[str] = set()
    for seed in (1, 2):
        for state in random_game(game_id, seed, options, stop=STOP)[::5]:
            for role in [None, *module.roles(options)]:
                view = module.view(state, role)
                prompts.add(str(view.get("prompt") or ""))
                hand = view.get("hand")
                if not isinstance(hand, list):
                    continue
                for card in hand:
                    ident, name = card_id(card), card_name(card, view)
                    seen_ids.add(ident)
                    assert name, f"{game_id}: the view names no card {ident!r} of {role}'s hand"
                    assert not holds(str(name), ident), f"{game_id}: card {ident!r} is named by its id: {name!r}"
    if game_id != "sabika":  # Sabika has no hand of cards
        assert seen_ids, f"{game_id}: the walk saw no hand"
    for prompt in prompts:
        assert not [i for i in seen_ids if holds(prompt, i)], f"{game_id}: a prompt holds a card id: {prompt!r}"
