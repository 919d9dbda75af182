"""Deployment, the round (initiative, action, maintenance phases) and how turns alternate."""

from __future__ import annotations

import json

import pytest

from engine import RuleError
from engine.navas import actions, active, apply, result, setup, view
from engine.navas.data import CATALOG
from engine.navas.flow import initiative_winner

from .helpers import deployed_except, do, find, logs, shoot_with, turn_state


def card_with(**values: int) -> str:
    return next(c.id for c in CATALOG.cards.values() if all(getattr(c, k) == v for k, v in values.items()))


@pytest.mark.rule("Deployment")
def test_deployment_places_every_unit_on_its_2_power_face_and_deals_3_cards() -> None:
    s = setup(7, {})
    for uid, rec in s["units"].items():
        assert rec == {"zone": CATALOG.units[uid].deploy, "power": 2, "exhausted": False}
    assert len(s["hands"]["christian"]) == 3 and len(s["hands"]["muslim"]) == 3
    assert len(s["deck"]) == 3 and s["discard"] == []
    assert sorted(s["deck"] + s["hands"]["christian"] + s["hands"]["muslim"]) == sorted(CATALOG.card_order)
    assert s["phase"] == "initiative"


@pytest.mark.rule("Deployment")
def test_setup_is_deterministic_and_the_deck_is_shuffled() -> None:
    assert json.dumps(setup(3, {}), sort_keys=True) == json.dumps(setup(3, {}), sort_keys=True)
    deals = {tuple(setup(seed, {})["hands"]["christian"]) for seed in range(20)}
    assert len(deals) > 10
    with pytest.raises(ValueError, match="unknown option"):
        setup(1, {"adavnced": True})


@pytest.mark.rule("Objective")
def test_the_battle_starts_even_and_undecided() -> None:
    s = setup(1, {})
    v = view(s, None)
    assert v["occupied"] == {"christian": 9, "muslim": 9}
    assert result(s) is None


@pytest.mark.rule("Initiative phase")
def test_initiative_example_tie_goes_to_the_christians() -> None:
    # Alba (Muslim) plays a 3, Luis (Christian) also a 3: Luis wins the initiative.
    alba = card_with(muslim=3, christian=4)
    luis = card_with(christian=3, muslim=4)
    assert initiative_winner(luis, alba) == "christian"
    s = setup(1, {})
    rest = [c for c in CATALOG.card_order if c not in (alba, luis)]
    s["hands"] = {"christian": [luis, rest[0], rest[1]], "muslim": [alba, rest[2], rest[3]]}
    s["deck"] = rest[4:]
    s = do(s, "muslim", type="initiative", card=alba)
    assert active(s) == ["christian"]
    s = do(s, "christian", type="initiative", card=luis)
    assert s["first"] == "christian"
    assert s["turn"]["role"] == "christian" and s["turn"]["number"] == 1
    assert "a tie goes to the Christians" in logs(s)


@pytest.mark.rule("Initiative phase")
def test_higher_value_in_own_colour_wins_the_initiative() -> None:
    # Green numbers are the Muslim's, red the Christian's.
    assert initiative_winner(card_with(christian=2, muslim=5), card_with(muslim=3, christian=4)) == "muslim"
    assert initiative_winner(card_with(christian=5), card_with(muslim=4, christian=3)) == "christian"
    assert initiative_winner(card_with(christian=1), card_with(muslim=2, christian=5)) == "muslim"


@pytest.mark.rule("Initiative phase")
def test_initiative_cards_are_secret_until_both_are_placed_then_stay_face_up() -> None:
    s = setup(5, {})
    assert set(active(s)) == {"christian", "muslim"}
    mine = s["hands"]["muslim"][0]
    s2 = do(s, "muslim", type="initiative", card=mine)
    assert view(s2, "muslim")["initiative"]["muslim"] == mine
    assert view(s2, "christian")["initiative"]["muslim"] == "face-down"
    assert view(s2, None)["initiative"]["muslim"] == "face-down"
    assert mine not in json.dumps(view(s2, "christian")["log"])
    assert actions(s2, "muslim") == []
    assert s2["reveals"] == s["reveals"]
    s3 = do(s2, "christian", type="initiative", card=s2["hands"]["christian"][0])
    assert s3["reveals"] == s2["reveals"] + 1
    v = view(s3, "christian")
    assert v["initiative"]["muslim"] == mine and v["initiative"]["revealed"]
    # the cards stay in the initiative area through the action phase
    assert s3["initiative"]["muslim"] == mine


@pytest.mark.rule("Action phase")
def test_action_points_example_archers_then_cavalry_charge_with_a_4() -> None:
    # Luis plays a card valued 4: archers (1 point) then a cavalry charge (3 points).
    four = card_with(christian=4, muslim=2)
    s = turn_state("christian", four, deployed_except({}), deck=["g3r3"])
    assert s["turn"]["ap"] == 4
    s = do(s, "christian", type="zone", zone="C5")
    s = do(s, "christian", type="archers", target="C3")
    s = shoot_with(s, "christian", "c22")
    assert s["turn"]["ap"] == 3
    s = do(s, "christian", type="zone", zone="B4")
    s = do(s, "christian", type="charge", target="B3")
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    # all 4 points spent: the turn is over, the Muslim plays next
    assert s["turn"]["role"] == "muslim" and s["turn"]["number"] == 2


@pytest.mark.rule("Action phase", "Exhaustion")
def test_ending_a_turn_loses_unspent_points_discards_the_card_and_straightens_units() -> None:
    s = turn_state("christian", "g1r6", deployed_except({}))
    s = do(s, "christian", type="zone", zone="A4")
    s = do(s, "christian", type="back")  # looking costs nothing
    assert s["turn"]["ap"] == 6 and s["pending"] is None
    s = do(s, "christian", type="zone", zone="C5")
    s = do(s, "christian", type="archers", target="C3")
    s = shoot_with(s, "christian", "c22")
    assert s["units"]["c22"]["exhausted"]
    assert s["turn"]["ap"] == 5
    s = do(s, "christian", type="end_turn")
    assert s["discard"][-1] == "g1r6"
    assert not any(rec["exhausted"] for rec in s["units"].values())
    assert s["turn"]["role"] == "muslim" and s["turn"]["ap"] == 0 and s["turn"]["card"] is None
    assert "5 action points lost" in logs(s)


@pytest.mark.rule("Action phase", "How to play?")
def test_four_alternating_turns_then_maintenance_then_a_new_round() -> None:
    s = setup(11, {})
    s = do(s, "christian", type="initiative", card=s["hands"]["christian"][0])
    s = do(s, "muslim", type="initiative", card=s["hands"]["muslim"][0])
    first = s["first"]
    other = "muslim" if first == "christian" else "christian"
    seen = []
    for number in range(1, 5):
        role = s["turn"]["role"]
        seen.append(role)
        assert s["turn"]["number"] == number
        if s["turn"]["card"] is None:
            s = apply(s, role, actions(s, role)[0])  # choose one of the two cards
        s = do(s, role, type="end_turn")
    assert seen == [first, other, first, other]
    assert s["round"] == 2 and s["phase"] == "initiative"
    assert len(s["hands"]["christian"]) == 3 and len(s["hands"]["muslim"]) == 3


@pytest.mark.rule("Action phase")
def test_the_last_card_is_played_without_asking_and_the_active_card_is_public() -> None:
    s = turn_state("christian", "g1r6", deployed_except({}), number=2)
    s = do(s, "christian", type="end_turn")
    # turn 3: the Muslim (first player) has one card left, played at once
    assert s["turn"]["number"] == 3 and s["turn"]["card"] is not None
    assert view(s, "christian")["turn"]["card"] == s["turn"]["card"]


@pytest.mark.rule("Maintenance phase")
def test_maintenance_returns_initiative_cards_shuffles_and_draws_two() -> None:
    s = turn_state("christian", "g1r6", deployed_except({}), number=4)
    ini = dict(s["initiative"])
    before = s["reveals"]
    s = do(s, "christian", type="end_turn")
    assert s["round"] == 2 and s["phase"] == "initiative"
    assert ini["christian"] in s["hands"]["christian"] and ini["muslim"] in s["hands"]["muslim"]
    assert len(s["hands"]["christian"]) == 3 and len(s["hands"]["muslim"]) == 3
    assert len(s["deck"]) == 3 and s["discard"] == [] and not s["deck_known"]
    assert s["reveals"] > before
    # Both saw the initiative cards go back: each knows that card of the other's hand.
    assert view(s, "christian")["known_opponent_cards"] == [ini["muslim"]]
    assert view(s, "muslim")["known_opponent_cards"] == [ini["christian"]]
    assert s["initiative"] == {"christian": None, "muslim": None, "revealed": False, "shield": None}


@pytest.mark.rule("Maintenance phase")
def test_maintenance_shuffle_depends_on_the_game_seed() -> None:
    decks = set()
    for seed in range(8):
        s = turn_state("christian", "g1r6", deployed_except({}), number=4, seed=seed)
        s = do(s, "christian", type="end_turn")
        decks.add(tuple(s["deck"]))
    assert len(decks) > 1


@pytest.mark.rule("End of the game")
def test_the_game_ends_at_once_mid_round_and_refuses_further_orders() -> None:
    layout = deployed_except({"B2": ["c10", "c11", "c12"], "B1": ["m04"], "B4": [], "B3": []})
    s = turn_state("christian", "g2r5", layout, deck=["g6r1"])
    s = do(s, "christian", type="zone", zone="B2")
    s = do(s, "christian", type="charge", target="B1")
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    # 1 + 6 + 5 + 1 (For the King) = 13 against 6 + 2 + 2 (camp) = 10: al-Nasir falls in turn 1
    assert result(s) == {"winner": "christian", "reason": "Caliph al-Nasir has been eliminated",
                         "score": result(s)["score"]}  # type: ignore[index]
    assert s["phase"] == "over" and s["round"] == 1
    assert active(s) == [] and actions(s, "christian") == []
    with pytest.raises(RuleError, match="over"):
        apply(s, "christian", {"type": "end_turn"})
    assert view(s, "muslim")["prompt"].startswith("The battle is over: Christian victory")


@pytest.mark.rule("Action phase")
def test_the_turn_menu_offers_zones_switches_and_end_turn() -> None:
    s = turn_state("muslim", "g4r2", deployed_except({}))
    labels = {a["type"] for a in actions(s, "muslim")}
    assert labels == {"zone", "switch", "end_turn"}
    zone = find(s, "muslim", type="zone", zone="B3")
    assert "B3" in zone["label"]


@pytest.mark.rule("Available actions")
def test_the_same_actions_cost_each_side_differently() -> None:
    muslim = turn_state("muslim", "g5r2", deployed_except({"A3": ["c01"]}))
    muslim = do(muslim, "muslim", type="zone", zone="A2")
    christian = turn_state("christian", "g2r5", deployed_except({}))
    christian = do(christian, "christian", type="zone", zone="C5")
    m_archers = find(muslim, "muslim", type="archers", target="A4")["label"]
    c_archers = find(christian, "christian", type="archers", target="C3")["label"]
    assert "(2 AP, 2 damage)" in m_archers and "(1 AP, 1 damage)" in c_archers
    assert find(muslim, "muslim", type="attack", target="A3")["label"].endswith("(1 AP)")
    christian = do(christian, "christian", type="back")
    christian = do(christian, "christian", type="zone", zone="B4")
    assert find(christian, "christian", type="attack", target="B3")["label"].endswith("(2 AP)")
    assert find(christian, "christian", type="charge", target="B3")["label"].endswith("(3 AP)")
    assert find(christian, "christian", type="back")
