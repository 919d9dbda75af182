"""The engine contract for Sabika: views, hidden information, redeal, determinism, menus, player."""

from __future__ import annotations

import json
import random

import pytest

import engine.sabika as sabika
from engine.api import RuleError, find_action, undo_barrier
from engine.sabika.parias import paria_leader
from tests.engine.games import random_game as _random_game

pytestmark = pytest.mark.rule("sabika:how-to-play")


def random_game(seed: int, n: int, stop: int | None = None) -> list[dict]:  # type: ignore[type-arg]
    return _random_game("sabika", seed, {"players": n}, stop)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_views_hide_decks_and_redeal_keeps_every_view(n: int) -> None:
    changed = 0
    for seed in (1, 2):
        for i, s in enumerate(random_game(seed, n)):
            if i % 11:
                continue
            for role in s["roles"]:
                v = sabika.view(s, role)
                text = json.dumps(v)
                assert "minor_deck\": [" not in text and "poem_deck\": [" not in text and "rng" not in v
                assert v["phase"] and v["reaction"] is False and "focus" in v
                for k in range(2):
                    r = sabika.redeal(s, role, seed * 1000 + i * 10 + k)
                    assert sabika.view(r, role) == v
                    changed += r["minor_deck"] != s["minor_deck"]
            spectator = sabika.view(s, None)
            assert spectator["actions"] == [] and spectator["role"] is None
    assert changed > 10


def test_apply_never_changes_its_input_and_refuses_what_is_not_legal() -> None:
    s = sabika.setup(3, {"players": 2})
    before = json.dumps(s, sort_keys=True)
    with pytest.raises(RuleError) as err:
        sabika.apply(s, "blue", {"type": "start_tile", "tile": "T99"})
    assert err.value.rule == "player-setup" and len(err.value.allowed) == 2
    sabika.apply(s, "blue", sabika.actions(s, "blue")[0])
    assert json.dumps(s, sort_keys=True) == before
    with pytest.raises(RuleError, match="unknown player"):
        sabika.apply(s, "purple", {"type": "pass"})


def test_same_seed_and_actions_give_the_same_game() -> None:
    a = random_game(5, 3)
    b = random_game(5, 3)
    assert json.dumps(a[-1], sort_keys=True) == json.dumps(b[-1], sort_keys=True)
    assert sabika.result(a[-1]) is not None


@pytest.mark.parametrize("n", [2, 4])
def test_every_menu_fits_a_discord_select_and_has_labels(n: int) -> None:
    for seed in (11, 12, 13):
        for s in random_game(seed, n):
            for role in sabika.active(s):
                legal = sabika.actions(s, role)
                assert 0 < len(legal) <= 25
                assert all(isinstance(a.get("label"), str) and a["label"] for a in legal)


def test_undo_stops_at_reveals_and_draws() -> None:
    s = sabika.setup(3, {"players": 2})
    s1 = sabika.apply(s, "blue", sabika.actions(s, "blue")[0])
    assert not undo_barrier(s, s1)  # a secret choice can be taken back
    s2 = sabika.apply(s1, "yellow", sabika.actions(s1, "yellow")[0])
    assert undo_barrier(s1, s2)  # all Starting tiles revealed
    while s2["stack"][-1]["kind"] != "turn":
        r = s2["stack"][-1]["role"]
        s2 = sabika.apply(s2, r, sabika.actions(s2, r)[0])
    r = s2["stack"][-1]["role"]
    s3 = sabika.apply(s2, r, sabika.actions(s2, r)[0])
    assert not undo_barrier(s2, s3)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_built_in_player_plays_legal_steps_and_beats_random_play(n: int) -> None:
    bot_scores, random_scores = [], []
    for seed in (1, 2):
        s = sabika.setup(seed, {"players": n})
        rnd = random.Random(seed)
        bot = s["roles"][0]
        for step in range(6000):
            if sabika.result(s) is not None:
                break
            role = sabika.active(s)[0]
            if role == bot:
                action = sabika.choose(s, role, seed * 7919 + step)
                assert find_action(sabika.actions(s, role), action) is not None
            else:
                action = rnd.choice(sabika.actions(s, role))
            s = sabika.apply(s, role, action)
        result = sabika.result(s)
        assert result is not None
        bot_scores.append(result["score"][bot])
        random_scores.extend(v for r, v in result["score"].items() if r != bot)
    assert min(bot_scores) > max(random_scores)


def test_log_lines_name_what_happened() -> None:
    s = random_game(4, 2)[-1]
    texts = [e["text"] for e in s["log"]]
    assert any("Starting tiles revealed" in t for t in texts)
    assert any(t.startswith("End of round 1") for t in texts) and any(t.startswith("Final scores") for t in texts)
    assert paria_leader(s) in s["roles"]
