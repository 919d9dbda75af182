"""The engine contract for Granada (Dirk Henn): hidden money, redeal, determinism, errors,
menus, undo points, view keys and the built-in player."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from engine import RuleError
from engine.api import find_action, undo_barrier
from engine.granada_city import actions, active, apply, choose, redeal, result, setup, view
from tests.engine.games import random_game as _random_game

pytestmark = pytest.mark.rule("granada_city:sequence-of-play")

OPTIONS = [{"players": 2}, {"players": 3}, {"players": 4, "simplified": True}, {"players": 6}]


def random_game(seed: int, options: dict[str, Any], stop: int | None = None) -> list[dict[str, Any]]:
    return _random_game("granada_city", seed, options, stop)


def test_registered_under_its_id_with_its_options() -> None:
    module = engine.get("granada_city")
    assert module.id == "granada_city" and module.title == "Granada (Dirk Henn)"
    assert module.OPTIONS["players"]["default"] == 3 and module.OPTIONS["players"]["choices"] == [2, 3, 4, 5, 6]
    assert module.OPTIONS["simplified"]["type"] == "bool"
    assert module.roles({"players": 6}) == ["red", "blue", "green", "yellow", "white", "purple"]


@pytest.mark.parametrize("options", OPTIONS[:3])
def test_views_never_show_other_hands_and_redeal_keeps_every_view(options: dict[str, Any]) -> None:
    changed = 0
    for seed in (1, 2):
        states = random_game(seed, options)
        for i, s in enumerate(states):
            if i % 23:
                continue
            for role in s["roles"]:
                v = view(s, role)
                text = json.dumps(v)
                for other in s["roles"]:
                    if other != role:
                        assert all(c not in text for c in s["hands"][other])
                # the deck's money cards, in any order (that the scoring cards are still in it is public)
                assert all(f'"{c}"' not in text for c in s["deck"] if c not in ("A", "B"))
                for k in range(2):
                    r = redeal(s, role, seed * 1000 + i * 10 + k)
                    assert view(r, role) == v
                    if r["deck"] != s["deck"]:
                        changed += 1
                    assert sorted(r["deck"]) == sorted(s["deck"]) and r["piles"] == s["piles"]
            spectator = view(s, None)
            assert spectator["hand"] == [] and spectator["actions"] == [] and spectator["money"] == {}
            assert all("to" not in e for e in spectator["log"])
    assert changed > 10


def test_redeal_keeps_each_scoring_card_in_its_pile() -> None:
    s = setup(8, {"players": 3})
    bounds = [sum(s["piles"][:i]) for i in range(6)]
    for k in range(30):
        r = redeal(s, "red", k)
        assert bounds[1] <= r["deck"].index("A") < bounds[2] and bounds[3] <= r["deck"].index("B") < bounds[4]


def test_apply_never_changes_its_input_and_errors_teach() -> None:
    s = setup(9, {})
    first = active(s)[0]
    other = next(r for r in s["roles"] if r != first)
    before = json.dumps(s, sort_keys=True)
    with pytest.raises(RuleError) as err:
        apply(s, first, {"type": "take", "card": "nonsense"})
    assert err.value.rule == "granada_city:sequence-of-play" and err.value.allowed
    assert "Allowed:" in err.value.explain()
    with pytest.raises(RuleError, match="not .*'s turn"):
        apply(s, other, actions(s, first)[0])
    with pytest.raises(RuleError, match="no player"):
        apply(s, "black", {"type": "pass"})
    apply(s, first, actions(s, first)[0])
    assert json.dumps(s, sort_keys=True) == before


def test_same_seed_and_actions_give_the_same_game() -> None:
    a = random_game(5, {"players": 4})
    b = random_game(5, {"players": 4})
    assert json.dumps(a[-1], sort_keys=True) == json.dumps(b[-1], sort_keys=True)
    assert result(a[-1]) is not None


@pytest.mark.parametrize("options", OPTIONS)
def test_every_choice_is_offered_with_a_label_and_none_turns_a_page(options: dict[str, Any]) -> None:
    """A long list is the front end's to page (engine/api.py): the game offers it whole."""
    for seed in (11, 12):
        for s in random_game(seed, options):
            for role in active(s):
                legal = actions(s, role)
                assert len(legal) > 0 and not any(a["type"] == "page" or a.get("nav") for a in legal)
                assert all(isinstance(a.get("label"), str) and a["label"] for a in legal)


def test_view_carries_the_keys_a_front_end_reads() -> None:
    states = random_game(3, {"players": 3})
    phases = []
    for s in states:
        v = view(s, active(s)[0] if active(s) else None)
        assert {"prompt", "actions", "log", "phase", "reaction", "focus"} <= set(v)
        assert v["reaction"] is False and isinstance(v["phase"], str)
        phases.append(v["phase"])
    # the phase changes exactly with a new turn, and when the end of the game begins and ends
    keys = [(s["turn"]["number"], s["stage"] if s["stage"] in ("award", "over") else "turn") for s in states]
    assert len(set(phases)) > 20
    for (p0, p1), (k0, k1) in zip(zip(phases, phases[1:]), zip(keys, keys[1:])):
        assert (p0 != p1) == (k0 != k1)


def test_undo_stops_at_the_end_of_turn_draws_not_within_a_turn() -> None:
    s = setup(3, {"players": 3})
    role = active(s)[0]
    buy = [a for a in actions(s, role) if a["type"] == "buy"]
    take = [a for a in actions(s, role) if a["type"] == "take"]
    if buy:
        s1 = apply(s, role, buy[0])
        assert not undo_barrier(s, s1)  # choosing a tile to pay for reveals nothing
    big = max(take, key=lambda a: int(a["card"].split("-")[1]))
    s2 = apply(s, role, big)
    if s2["pending"] is not None:
        s2 = apply(s2, role, {"type": "done"})
    assert undo_barrier(s, s2)  # the display is refilled from the deck at the end of the turn


@pytest.mark.parametrize("options", OPTIONS)
def test_the_built_in_player_plays_legal_moves_to_the_end(options: dict[str, Any]) -> None:
    s = setup(21, options)
    for step in range(6000):
        if result(s) is not None:
            break
        role = active(s)[0]
        action = choose(s, role, 7919 + step)
        assert find_action(actions(s, role), action) is not None
        s = apply(s, role, action)
    res = result(s)
    assert res is not None and set(res["winners"]) <= set(s["roles"])
