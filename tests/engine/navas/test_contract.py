"""The engine contract for 1212: hidden information, redeal, determinism, errors, menus, player."""

from __future__ import annotations

import json

import pytest

import engine
from engine import RuleError
from engine.api import find_action, undo_barrier
from engine.navas import actions, active, apply, choose, redeal, result, setup, view
from tests.engine.games import random_game as _random_game

pytestmark = pytest.mark.rule("How to play?")


def random_game(seed: int, options: dict, stop: int | None = None) -> list[dict]:  # type: ignore[type-arg]
    return _random_game("navas", seed, options, stop)


def test_registered_under_its_id() -> None:
    module = engine.get("navas")
    assert module.id == "navas" and module.title == "1212 Las Navas de Tolosa"
    assert module.roles({}) == ["christian", "muslim"]
    assert module.OPTIONS["advanced"]["type"] == "bool" and module.OPTIONS["advanced"]["default"] is False


@pytest.mark.rule("Initiative phase", "Advanced variant")
@pytest.mark.parametrize("options", [{}, {"advanced": True}])
def test_views_never_show_the_opponents_hidden_cards_and_redeal_keeps_views(options: dict) -> None:  # type: ignore[type-arg]
    changed = 0
    for seed in (1, 2, 3):
        for i, s in enumerate(random_game(seed, options)):
            if i % 7:
                continue
            for role in ("christian", "muslim"):
                other = "muslim" if role == "christian" else "christian"
                v = view(s, role)
                public = json.dumps({k: val for k, val in v.items() if k not in ("cards", "log", "actions")})
                for card in s["hands"][other]:
                    if card not in s["known"][role]:
                        assert card not in public
                for entry in v["log"]:
                    assert "to" not in entry or role in entry["to"]
                for k in range(2):
                    r = redeal(s, role, seed * 1000 + i * 10 + k)
                    assert view(r, role) == v
                    if r["hands"][other] != s["hands"][other] or r["deck"] != s["deck"]:
                        changed += 1
                    assert sorted(r["hands"][other] + r["deck"] + r["hands"][role] + r["discard"]
                                  + [c for c in (r["initiative"]["christian"], r["initiative"]["muslim"]) if c]
                                  + ([r["turn"]["card"]] if r["turn"] and r["turn"]["card"] else [])) == \
                        sorted(engine.navas.data.CATALOG.card_order)
            spectator = view(s, None)
            assert spectator["hand"] == [] and spectator["actions"] == []
            assert all("to" not in e for e in spectator["log"])
    assert changed > 20  # redeal really re-draws what is hidden


def test_apply_never_changes_its_input_and_errors_teach() -> None:
    s = setup(9, {})
    before = json.dumps(s, sort_keys=True)
    with pytest.raises(RuleError) as err:
        apply(s, "christian", {"type": "initiative", "card": "nonsense"})
    assert err.value.rule == "Initiative phase" and len(err.value.allowed) == 3
    assert "Allowed:" in err.value.explain()
    card = s["hands"]["muslim"][0]
    apply(s, "muslim", {"type": "initiative", "card": card})
    assert json.dumps(s, sort_keys=True) == before
    s = apply(s, "muslim", {"type": "initiative", "card": card})
    with pytest.raises(RuleError, match="not the Muslim's decision"):
        apply(s, "muslim", {"type": "initiative", "card": s["hands"]["muslim"][0]})
    with pytest.raises(RuleError, match="Unknown side"):
        apply(s, "moor", {"type": "pass"})


def test_same_seed_and_actions_give_the_same_game() -> None:
    a = random_game(5, {"advanced": True})
    b = random_game(5, {"advanced": True})
    assert json.dumps(a[-1], sort_keys=True) == json.dumps(b[-1], sort_keys=True)
    assert result(a[-1]) is not None


def test_every_menu_fits_a_discord_select_and_every_action_has_a_label() -> None:
    for options in ({}, {"advanced": True}):
        for seed in (11, 12, 13, 14):
            for s in random_game(seed, options):
                for role in active(s):
                    legal = actions(s, role)
                    assert 0 < len(legal) <= 25
                    assert all(isinstance(a.get("label"), str) and a["label"] for a in legal)
                    assert all(a["label"][0].isupper() for a in legal), [a["label"] for a in legal]
                json.dumps(s)


def test_undo_stops_at_reveals_and_draws() -> None:
    s = setup(3, {})
    s1 = apply(s, "christian", actions(s, "christian")[0])
    assert not undo_barrier(s, s1)  # a face-down card can be taken back
    s2 = apply(s1, "muslim", actions(s1, "muslim")[0])
    assert undo_barrier(s1, s2)  # both initiative cards revealed


@pytest.mark.parametrize("options", [{}, {"advanced": True}])
def test_the_built_in_player_plays_legal_moves_to_the_end(options: dict) -> None:  # type: ignore[type-arg]
    for seed in (1, 2, 3):
        s = setup(seed, options)
        for step in range(5000):
            if result(s) is not None:
                break
            role = active(s)[0]
            action = choose(s, role, seed * 7919 + step)
            assert find_action(actions(s, role), action) is not None
            s = apply(s, role, action)
        assert result(s) is not None
        assert result(s)["winner"] in ("christian", "muslim")  # type: ignore[index]
