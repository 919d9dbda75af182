"""The round: Work and Rest, the end of round steps, the era change and the end of the game."""

from __future__ import annotations

import pytest

from engine.sabika import rules
from engine.sabika.round_end import _step_maintenance, _step_reactivate
from engine.sabika.state import era, gain_parias, ring
from engine.sabika.turn import destinations, move_cost
from tests.engine.sabika.helpers import blank, kinds, legal_types, started, step, turn_of

B, Y = "blue", "yellow"


@pytest.mark.rule("sabika:phase-i-actions", "sabika:phases-of-the-game")
def test_work_two_free_steps_then_1_dinar_a_step_and_1_per_other_worker_on_the_square() -> None:
    s = blank()
    s["players"][B]["workers"]["builder1"]["at"] = 0
    assert move_cost(s, B, "builder1", 2) == 0
    assert move_cost(s, B, "builder1", 5) == 3  # 5 steps
    s["players"][Y]["workers"]["builder2"]["at"] = 2
    s["sultan"]["outer"] = [2]
    assert move_cost(s, B, "builder1", 2) == 2  # a yellow worker and a Sultan's Worker
    s["players"][B]["workers"]["builder2"]["at"] = 2
    assert move_cost(s, B, "builder1", 2) == 3  # one's own other Master Builder counts too
    assert 0 not in destinations(s, B, "builder1")  # it must leave its square


@pytest.mark.rule("sabika:phase-i-actions")
def test_a_worker_only_goes_where_its_owner_can_pay() -> None:
    s = blank(dinars=1)
    s["players"][B]["workers"]["builder1"]["at"] = 0
    assert destinations(s, B, "builder1") == [1, 2, 3]  # 3 steps cost 1, 4 steps would cost 2


@pytest.mark.rule("sabika:phases-of-the-game")
def test_rest_returns_the_worker_earns_3_dinars_and_loses_1_pp() -> None:
    s = blank()
    s["players"][B]["workers"]["poet"]["at"] = 2
    turn_of(s, B)
    s = step(s, B, "worker", worker="poet")
    s = step(s, B, "rest")
    p = s["players"][B]
    assert p["workers"]["poet"] == {"at": None, "up": False} and p["dinars"] == 13 and p["pp"] == 4


@pytest.mark.rule("sabika:phase-i-actions", "sabika:how-to-play")
def test_players_alternate_until_every_worker_lies_down_then_the_round_ends() -> None:
    s = started(2, seed=4)
    first = s["stack"][-1]["role"]
    seen = []
    while s["round"] == 1 and s["phase"] == "actions":
        r = s["stack"][-1]["role"]
        if kinds(s) == "turn":
            seen.append(r)
        s = rules.apply(s, r, rules.actions(s, r)[0] if kinds(s) != "work" else
                        next(a for a in rules.actions(s, r) if a["type"] == "rest"))
    assert seen[:2] == [first, [x for x in s["roles"] if x != first][0]] and len(seen) == 8
    assert s["phase"] == "end" and kinds(s) == "tribute"


def end_round(s: dict, until: str) -> dict:  # type: ignore[type-arg]
    """Run the end-of-round steps, answering every decision with its first choice, until ``until`` ran."""
    s["stack"] = []
    s["phase"] = "end"
    steps = ["income", "narrator", "tribute", "reactivate", "maintenance", "start_player", "era", "new_round"]
    s["steps"] = steps[: steps.index(until) + 1]
    rules._advance(s)
    while s["stack"] and s["phase"] == "end":
        r = s["stack"][-1]["role"]
        s = rules.apply(s, r, rules.actions(s, r)[0])
    return s


@pytest.mark.rule("sabika:phase-2-end-of-round", "sabika:income")
def test_income_from_consolidated_blue_cities_and_blue_poems() -> None:
    s = blank()
    s["cities"]["fez"].update(tile="c9", right=[B])  # blue: 3 Dinars
    s["cities"]["tunis"].update(tile="c2", right=[B])  # red: no income
    s["players"][B]["blue"] = ["p1"]  # +2 Dinars in every Income step
    s = end_round(s, "income")
    assert s["players"][B]["dinars"] == 15 and s["players"][Y]["dinars"] == 10


@pytest.mark.rule("sabika:narrator", "sabika:the-sultans-wishes")
def test_the_narrator_scores_the_whole_tower_when_a_wish_joins_it() -> None:
    s = blank()
    s["wishes"] = {"2": "A1", "4": "C1", "6": "B2"}
    s["players"][B]["majors"] = ["I1", "I4"]  # 2 Palaces: 2 PP each
    s["players"][B]["blue"] = ["p1"]
    s = end_round(s, "narrator")
    assert s["narrator"] == 2 and s["tower"] == ["A1"] and s["players"][B]["pp"] == 9
    s = end_round(s, "narrator")  # narrator 3: no tile, no scoring
    assert s["players"][B]["pp"] == 9
    s = end_round(s, "narrator")  # narrator 4: C1 joins; A1 and C1 are scored
    assert s["tower"] == ["A1", "C1"] and s["players"][B]["pp"] == 9 + 4 + 2


@pytest.mark.rule("sabika:narrator", "sabika:parias")
def test_tribute_is_paid_by_track_dinars_seals_or_pp() -> None:
    s = blank()
    s["narrator"] = 1
    s["wishes"] = {"2": "A1", "4": "C1", "6": "B2"}  # A1 scores nothing here
    s["players"][B].update(parias=1, dinars=2, seals=1, pp=5)
    s["stack"] = []
    s["phase"] = "end"
    s["steps"] = ["narrator", "tribute"]
    rules._advance(s)
    s["stack"] = [d for d in s["stack"] if d["role"] == B]
    assert s["stack"][-1]["left"] == 2
    assert [a["means"] for a in rules.actions(s, B)] == ["track", "dinars", "seal", "pp"]
    s = step(s, B, "paria", means="dinars")
    s = step(s, B, "paria", means="pp")
    p = s["players"][B]
    assert (p["parias"], p["dinars"], p["seals"], p["pp"]) == (1, 0, 1, 4)
    assert s["log"][-1]["text"] == "Blue pays the tribute of 2 Parias: 1 by Dinars, 1 by PP."


@pytest.mark.rule("sabika:reactivating-workers")
def test_workers_stand_up_and_the_sultans_workers_step_clockwise() -> None:
    s = started(2)
    for p in s["players"].values():
        for w in p["workers"].values():
            w["up"] = False
    before = {k: list(v) for k, v in s["sultan"].items()}
    _step_reactivate(s)
    assert all(w["up"] for p in s["players"].values() for w in p["workers"].values())
    squares = ring(2, "outer")
    assert s["sultan"]["outer"] == [squares[(squares.index(x) + 1) % len(squares)] for x in before["outer"]]
    four = started(4)
    assert four["sultan"] == {"outer": [], "middle": [], "inner": []}  # none with 4 players


@pytest.mark.rule("sabika:maintenance")
def test_maintenance_refills_raw_materials_marble_cards_and_storehouses() -> None:
    s = started(2)
    s["raw_squares"]["0"] = None
    s["marble_squares"]["0"] = False
    s["poem_display"][1] = None
    s["minor_display"][2] = None
    s["store_display"]["right"][0] = None
    deck = len(s["poem_deck"])
    _step_maintenance(s)
    assert s["raw_squares"]["0"] is not None and s["marble_squares"]["0"] is True
    assert None not in s["poem_display"] and None not in s["minor_display"]
    assert s["store_display"]["right"][0] is not None and len(s["poem_deck"]) == deck - 1
    assert len(s["store_piles"]["right"]) == 9


@pytest.mark.rule("sabika:maintenance")
def test_an_empty_bag_takes_back_the_discarded_tokens() -> None:
    s = started(2)
    s["bag"] = {"sugar": 0, "clothes": 0, "pottery": 0}
    s["discard_goods"] = {"sugar": 0, "clothes": 2, "pottery": 0}
    s["raw_squares"] = {k: ("sugar" if k != "0" else None) for k in s["raw_squares"]}
    _step_maintenance(s)
    assert s["raw_squares"]["0"] == "clothes" and s["bag"]["clothes"] == 1


@pytest.mark.rule("sabika:starting-player")
def test_the_paria_leader_chooses_the_next_starting_player() -> None:
    s = blank(3)
    gain_parias(s, "pink", 3)
    gain_parias(s, B, 3)  # on top of pink
    s["stack"] = []
    s["phase"] = "end"
    s["steps"] = ["start_player"]
    rules._advance(s)
    assert s["stack"][-1] == {"kind": "start_player", "role": B}
    s = step(s, B, "start", player="pink")
    assert s["start"] == "pink"


@pytest.mark.rule("sabika:era-change")
def test_era_i_majors_leave_when_the_narrator_reaches_space_ii() -> None:
    s = blank()
    s = end_round(s, "era")
    assert s["majors"]["1"]  # after round 1
    s["round"] = 2
    s = end_round(s, "new_round")
    assert s["narrator"] == 3 and s["majors"]["1"] == [] and s["round"] == 3 and era(s) == 2
    assert len(s["majors"]["2"]) == 9  # two players: the 3 tiles marked 3/4 are out


@pytest.mark.rule("sabika:end-of-game")
def test_final_scoring_major_poems_trade_card_and_leftovers() -> None:
    s = blank()
    s["round"], s["narrator"] = 5, 5
    s["wishes"] = {"2": "A1", "4": "C1", "6": "B2"}
    s["tower"] = ["A1", "C1"]
    s["trade"] = "t1"  # 2 PP per City of Europe with presence
    s["cities"]["genoa"]["left"] = [B]
    s["cities"]["florence"]["right"] = [B]
    p = s["players"][B]
    p.update(grey=["C1"], minors=["m1", "m2"], seals=2, dinars=5, parias=10)  # C1: 1 PP per Minor Construction
    p["stores"][0]["items"] = ["marble"]
    p["stores"][1]["items"] = ["sugar"]
    s["stack"] = []
    s["phase"] = "end"
    s["steps"] = ["final_income", "narrator", "tribute", "final"]
    rules._advance(s)
    while s["stack"]:
        r = s["stack"][-1]["role"]
        s = rules.apply(s, r, rules.actions(s, r)[0])
    p = s["players"][B]
    # wishes: B2 2 PP per consolidated City (1) = 2, A1 1 PP per Garden (m1, m2) = 2, C1 nothing;
    # tribute 4 by track; Major Poem C1: 2; Trade t1: 2 Cities = 4;
    # leftovers: 2 Seals + Sugar + Marble + 5 // 2 = 6
    assert p["pp"] == 5 + 2 + 2 + 2 + 4 + 6
    assert s["phase"] == "over" and rules.active(s) == []
    assert s["result"]["winner"] == B and s["result"]["score"][B] == p["pp"]


@pytest.mark.rule("sabika:end-of-game")
def test_equal_scores_share_the_victory() -> None:
    s = blank()
    s["round"], s["narrator"] = 5, 5
    s["trade"] = "t1"
    s["wishes"] = {"2": "A1", "4": "C1", "6": "B2"}
    s["tower"] = ["A1", "C1"]
    for p in s["players"].values():
        p.update(parias=10, dinars=0)
    s["stack"] = []
    s["phase"] = "end"
    s["steps"] = ["final"]
    rules._advance(s)
    assert s["result"]["winner"] is None and "share" in s["result"]["reason"]


@pytest.mark.rule("sabika:overview-and-objective", "sabika:how-to-play")
def test_a_whole_game_is_five_rounds_two_in_era_i_and_ends_after_the_fifth_action_phase() -> None:
    s = started(2, seed=7)
    eras = {}
    turns = 0
    while s["phase"] != "over":
        r = rules.active(s)[0]
        eras[s["round"]] = era(s)
        legal = rules.actions(s, r)
        rest = [a for a in legal if a["type"] == "rest"]
        s = rules.apply(s, r, rest[0] if rest else legal[0])
        turns += kinds(s) == "turn"
    assert eras == {1: 1, 2: 1, 3: 2, 4: 2, 5: 2}
    assert s["narrator"] == 6 and s["tower"] == [s["wishes"]["2"], s["wishes"]["4"], s["wishes"]["6"]]
    # no reactivation after round 5: every worker still lies down
    assert not any(w["up"] for p in s["players"].values() for w in p["workers"].values())
    assert legal_types(s, B) == []
