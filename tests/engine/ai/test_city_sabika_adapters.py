"""The search adapters of Dirk Henn's Granada and Sabika (engine/ai/granada_city.py, sabika.py;
issue 31): their evaluations read the board the way the scoring does, the search scores a
shared win and Yusuf's win as the result says, and the tree searches the steps that matter, the
built-in player's choice first. The redeal invariance of both games is checked with the other
games' in test_search.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import engine
from engine import ai, players
from engine.ai import granada_city as city_ai
from engine.ai import sabika as sabika_ai
from engine.ai.adapters import default_candidates
from engine.ai.registry import adapter
from engine.ai.search import outcome
from engine.api import strip_label
from engine.rng import Generator


def played(game_id: str, seed: int, steps: int, options: dict[str, Any] | None = None) -> list[tuple[dict[str, Any], str]]:
    """(state, role) at every step of an easy-player game, the finished state last."""
    module = engine.get(game_id)
    state = module.setup(seed, options or {})
    pick = Generator(seed + 500)
    out = []
    for _ in range(steps):
        if module.result(state) is not None:
            break
        role = module.active(state)[0]
        out.append((state, role))
        state = module.apply(state, role, players.choose(module, state, role, pick.randbelow(1 << 30)))
    out.append((state, ""))
    return out


CITY = played("granada_city", 4, 400)
SABIKA = played("sabika", 4, 450)


def test_both_games_have_their_own_adapter() -> None:
    assert adapter("granada_city") is city_ai.ADAPTER
    assert adapter("sabika") is sabika_ai.ADAPTER
    for game_id in ("granada_city", "sabika"):
        plan = adapter(game_id).budgets
        assert plan["hard"].iterations > plan["normal"].iterations > 0


def test_granada_city_evaluation_follows_the_scores_and_the_majorities() -> None:
    state = CITY[len(CITY) // 2][0]
    base = city_ai.evaluate(state)
    assert set(base) == set(state["roles"]) and sum(base.values()) == pytest.approx(1.0)
    ahead = copy.deepcopy(state)
    ahead["scores"]["red"] += 30
    assert city_ai.evaluate(ahead)["red"] > base["red"]
    # a city robbed of its buildings promises less at the scorings to come
    razed = copy.deepcopy(state)
    razed["cities"]["red"] = {k: v for k, v in razed["cities"]["red"].items() if k == "0,0"}
    assert city_ai.promised(razed)["red"] < city_ai.promised(state)["red"]
    assert city_ai.evaluate(razed)["red"] < base["red"]


def test_granada_city_promise_at_the_end_is_the_final_score() -> None:
    """Once every scoring is done and the game is over, the promise is the score itself."""
    final = CITY[-1][0]
    assert final["result"] is not None
    promise = city_ai.promised(final)
    assert {r: promise[r] for r in final["roles"]} == {r: float(final["scores"][r]) for r in final["roles"]}


def test_sabika_evaluation_follows_the_prestige() -> None:
    state = SABIKA[len(SABIKA) // 2][0]
    base = sabika_ai.evaluate(state)
    assert set(base) == set(state["players"]) and sum(base.values()) == pytest.approx(1.0)
    richer = copy.deepcopy(state)
    richer["players"]["blue"]["pp"] += 10
    assert sabika_ai.evaluate(richer)["blue"] > base["blue"]


def test_sabika_solo_evaluation_weighs_yusufs_prestige() -> None:
    solo = played("sabika", 5, 80, {"players": 1})
    state = solo[-1][0]
    base = sabika_ai.evaluate(state)
    assert set(base) == {"blue"} and 0.0 < base["blue"] < 1.0
    ahead = copy.deepcopy(state)
    ahead["yusuf"]["pp"] += 15
    assert sabika_ai.evaluate(ahead)["blue"] < base["blue"]


def test_a_shared_win_and_yusufs_win_score_as_the_result_says() -> None:
    """A win shared by two of three players is half a win for each and nothing for the third
    (not a draw of everyone); Yusuf beating the solo player is a loss, not a draw."""
    city = engine.get("granada_city")
    shared = copy.deepcopy(CITY[-1][0])
    shared["result"] = dict(shared["result"], winner=None, winners=["red", "blue"])
    assert outcome(city, shared, ["red", "blue", "green"], adapter("granada_city")) == {
        "red": 0.5, "blue": 0.5, "green": 0.0}
    sabika = engine.get("sabika")
    solo = played("sabika", 5, 80, {"players": 1})[-1][0]
    solo["result"] = {"winner": None, "reason": "Yusuf has the most Prestige Points (60) and wins",
                      "score": {"yusuf": 60, "blue": 50}}
    solo["phase"] = "over"
    res = sabika.result(solo)
    assert res is not None and res["winners"] == ["Yusuf"]
    assert outcome(sabika, solo, ["blue"], adapter("sabika")) == {"blue": 0.0}
    tie = copy.deepcopy(solo)
    tie["result"]["score"] = {"yusuf": 55, "blue": 55}
    assert outcome(sabika, tie, ["blue"], adapter("sabika")) == {"blue": 0.5}


def test_granada_city_payments_follow_the_plan_and_long_lists_are_narrowed() -> None:
    """Which card pays next is the built-in player's payment plan, a decision taken at once;
    where to build is searched among the heuristic's best few positions, with the other kinds
    of step (the supply at an award) kept."""
    module = engine.get("granada_city")
    paid = narrowed = 0
    for state, role in CITY[:-1]:
        legal = default_candidates(module, state, role)
        kept = city_ai.candidates(module, state, role)
        assert kept and all(a in legal for a in kept)
        kinds = {a["type"] for a in legal}
        if "pay" in kinds and len(legal) > 1:
            assert kept == [players.choose(module, state, role, 0)]
            paid += 1
        places = [a for a in legal if a["type"] == "position"]
        if len(places) > city_ai.NARROW:
            assert len([a for a in kept if a["type"] == "position"]) == city_ai.NARROW
            assert {a["type"] for a in kept} == kinds - {"back"}
            narrowed += 1
    assert paid and narrowed, (paid, narrowed)


def test_granada_city_never_searches_going_back() -> None:
    """Going back undoes a choice of the same turn: the tree never spends iterations on it
    (the search picked it in games it lost, ending where it began)."""
    module = engine.get("granada_city")
    backs = 0
    for state, role in CITY[:-1]:
        legal = default_candidates(module, state, role)
        kept = city_ai.candidates(module, state, role)
        assert kept and all(a in legal for a in kept)
        if len(legal) > 1:
            assert all(a["type"] != "back" for a in kept)
        backs += any(a["type"] == "back" for a in legal)
    assert backs


def test_sabika_never_searches_going_back() -> None:
    module = engine.get("sabika")
    backs = 0
    for state, role in SABIKA[:-1]:
        legal = default_candidates(module, state, role)
        kept = sabika_ai.candidates(module, state, role)
        assert all(a in legal for a in kept) and all(a["type"] != "back" for a in kept)
        backs += any(a["type"] == "back" for a in legal)
    assert backs


@pytest.mark.parametrize("game_id", ["granada_city", "sabika"])
def test_the_tree_tries_the_built_in_players_choice_first(game_id: str) -> None:
    """At the root the heuristic's own full choice comes first, the rest by its ratings."""
    module = engine.get(game_id)
    game = CITY if game_id == "granada_city" else SABIKA
    checked = 0
    for n, (state, role) in enumerate(game[:-1:9]):
        legal = adapter(game_id).candidates(module, state, role)
        if len(legal) < 3:
            continue
        order = adapter(game_id).rank(module, state, role, 70 + n, legal, True)
        assert sorted(order) == list(range(len(legal)))
        assert strip_label(legal[order[0]]) == strip_label(players.choose(module, state, role, 70 + n))
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("game_id", ["granada_city", "sabika"])
def test_the_playout_policy_plays_legal_steps_to_the_end(game_id: str) -> None:
    module = engine.get(game_id)
    policy = adapter(game_id).playout
    state = module.setup(12, {})
    for step in range(3000):
        if module.result(state) is not None:
            break
        role = module.active(state)[0]
        action = policy(module, state, role, step)
        assert action in module.legal_actions(state, role)
        state = module.apply(state, role, action)
    assert module.result(state) is not None


def test_sabika_solo_search_plays_legal_steps() -> None:
    module = engine.get("sabika")
    state = module.setup(3, {"players": 1})
    for step in range(25):
        if module.result(state) is not None:
            break
        role = module.active(state)[0]
        action = ai.choose(module, state, role, step, "normal", iterations=3)
        assert action in default_candidates(module, state, role)
        state = module.apply(state, role, action)


def test_dirk_takes_no_share_of_the_chances() -> None:
    """In the 2-player game Dirk scores majorities but never wins: the players' chances still
    add up to 1."""
    state = played("granada_city", 6, 120, {"players": 2})[-1][0]
    assert state["dirk"]
    chances = city_ai.evaluate(state)
    assert set(chances) == {"red", "blue"} and sum(chances.values()) == pytest.approx(1.0)


def test_granada_city_evaluation_judges_a_turn_only_at_its_end() -> None:
    """A playout cut off in the middle of a turn (money being taken, a purchase being paid or
    placed) is played to the turn's end before it is judged; a position between two turns is
    judged as it is."""
    middle = [s for s, _ in CITY[:-1] if s["turn"]["actions"] or s["turn"]["bought"] or s["pending"] is not None]
    between = [s for s, _ in CITY[:-1] if s not in middle and s["stage"] == "play"]
    assert middle and between
    for state in middle[:20]:
        ended = city_ai._turn_end(state)
        assert ended["result"] is not None or ended["turn"]["number"] == state["turn"]["number"] + 1
        assert city_ai.evaluate(state) == city_ai.evaluate(ended)
    assert city_ai._turn_end(between[0]) is between[0]
