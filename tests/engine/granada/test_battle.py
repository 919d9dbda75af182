"""Field combat (8.1-8.5, 8.8) played step by step through the battle frame."""

from __future__ import annotations

from typing import Any

import pytest

from engine.granada import battle
from engine.granada import components as comp
from engine.granada import state as st
from tests.engine.granada.test_battle_impacts import act, blank, came, deploy, give, has, legal, place, top

B = comp.load().blocks


def example_battle() -> dict[str, Any]:
    """The rulebook's 'Example of Impact Scoring': 7 Christian blocks attack 6 Muslim
    blocks at Huéscar (no castle, no watchtower), coming from Úbeda."""
    s = blank()
    # Christians: León leader, two 2-shield Aragón, Castile 1 crossbow, León 1 cavalry, + 2
    place(s, "huescar", "W36", "W26", "W27", "W18", "W44", "W48", "W04")
    # Muslims: Banu Bannigas 1 cavalry, two Zegries 3, the Zegries leader, + 2 Andalusies
    place(s, "huescar", "K49", "K20", "K21", "K19", "K04", "K06")
    came(s, "huescar", "christian", "ubeda")
    # Christian cards: Double Aragón, plain Castile, León Special Attack, and two Aragón cards
    # that match nothing left at the end (the book's "2 blocks and 2 cards remaining").
    give(s, "christian", "C32", "C07", "C34", "C25", "C26")
    give(s, "muslim", "M40", "M22", "M23", "M24")
    battle.start_battle(s, "huescar", "christian")
    return s


def play_example(s: dict[str, Any]) -> list[tuple[int, int]]:
    scores = []

    def score() -> None:
        f = top(s)
        scores.append((f["impacts"]["christian"], f["impacts"]["muslim"]))

    act(s, "muslim", "fight")                               # no retreat before combat
    act(s, "christian", "deploy_leader", block="W36")       # León leader, no card: 1
    score()
    deploy(s, "muslim", "M40", "K49")                       # Banu Bannigas cavalry + trumpet: 3
    act(s, "christian", "pass")                             # no Morale Challenge
    score()
    deploy(s, "christian", "C32", "W26")                    # double Aragón: 2 ...
    act(s, "christian", "deploy", block="W27")              # ... and 3
    act(s, "muslim", "pass")
    score()
    deploy(s, "muslim", "M22", "K20")                       # Zegries 3: tie 6-6, defender leads
    act(s, "christian", "pass")
    score()
    deploy(s, "christian", "C07", "W18")                    # Castile crossbow, no trumpet: 1
    act(s, "muslim", "pass")
    score()
    deploy(s, "muslim", "M23", "K19")                       # Zegries leader with a card: 1+1
    score()                                                 # (leaders are immune: no challenge)
    deploy(s, "christian", "C34", "W44")                    # León cavalry + trumpet: 1+2+1
    act(s, "muslim", "pass")
    score()
    deploy(s, "muslim", "M24", "K21")                       # Zegries 3 +2
    act(s, "christian", "pass")
    score()
    return scores


@pytest.mark.rule("8.2.2", "8.2.3", "8.2.4", "8.3.1", "8.3.2", "8.3.3.1", "8.3.4")
def test_book_example_of_impact_scoring_11_against_13() -> None:
    s = example_battle()
    scores = play_example(s)
    assert scores == [(1, 0), (1, 3), (6, 3), (6, 6), (7, 6), (7, 8), (11, 8), (11, 13)]
    f = top(s)
    imps = {side: [d["impacts"] for d in f["deployed"][side]] for side in st.SIDES}
    assert imps == {"christian": [[1], [2, 3], [1], [4]], "muslim": [[3], [3], [2], [5]]}
    # "The Christian has 2 blocks and 2 cards remaining, but the shields do not match"
    assert [a["type"] for a in legal(s, "christian")] == ["finish"]


@pytest.mark.rule("8.5.1", "8.5.2", "8.6.2", "8.8")
def test_book_example_ends_with_losses_and_a_christian_retreat() -> None:
    s = example_battle()
    play_example(s)
    hand_c, hand_m = len(s["hands"]["christian"]), len(s["hands"]["muslim"])
    act(s, "christian", "finish")
    act(s, "muslim", "finish")                   # "the Muslim similarly declines to deploy"
    f = top(s)
    assert f["winner"] == "muslim"
    # each side loses one block for 7 impacts, the loser one more for the defeat
    assert f["to_lose"] == {"christian": 2, "muslim": 1}
    # the attacker suffers first, and only among deployed blocks
    assert f["loss_side"] == "christian"
    assert {a["block"] for a in legal(s, "christian")} == {"W36", "W26", "W27", "W18", "W44"}
    act(s, "christian", "lose", block="W18")
    act(s, "christian", "lose", block="W26")
    assert {a["block"] for a in legal(s, "muslim")} == {"K49", "K20", "K19", "K21"}
    act(s, "muslim", "lose", block="K49")
    # the loser, the attacker, goes back where he came from: Úbeda is the only choice, so the
    # retreat is made at once and the battle frame is gone
    assert s["stack"][-1]["module"] == "sequence"
    for b in ("W36", "W27", "W44", "W48", "W04"):
        assert s["blocks"][b]["loc"] == "ubeda"
        assert not s["blocks"][b]["revealed"]            # concealed again after the battle (8.1)
    assert [s["blocks"][b]["loc"] for b in ("W18", "W26", "K49")] == ["eliminated"] * 3
    assert s["control"]["huescar"] == "muslim"
    # 8.8: 3 Christian cards played + 1 for the 2-block loss; 4 Muslim cards, 1 loss: nothing more
    assert len(s["hands"]["christian"]) == hand_c + 3 + 1
    assert len(s["hands"]["muslim"]) == hand_m + 4
    assert s["battle_discard"] == {"christian": [], "muslim": []}
    assert set(s["discards"]["christian"]) >= {"C32", "C07", "C34"}
    assert s["stack"][-1].get("returns") == [{"kind": "battle", "loc": "huescar", "winner": "muslim",
                                               "mode": "field"}]


@pytest.mark.rule("8.2.3")
def test_leaders_deploy_free_only_before_the_first_card() -> None:
    s = blank()
    place(s, "huescar", "W36", "W23", "W26")
    place(s, "huescar", "K20", "K19")
    give(s, "christian", "C25", "C37")
    give(s, "muslim", "M22", "M23")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    act(s, "christian", "deploy_leader", block="W36")        # León leader
    act(s, "muslim", "deploy_leader", block="K19")           # Zegries leader: tie 1-1, defender leads
    act(s, "christian", "deploy_leader", block="W23")        # Aragón leader, still no card: 2-1
    deploy(s, "muslim", "M22", "K20")                        # 1 + 3 + 1 = 5
    act(s, "christian", "pass")
    deploy(s, "christian", "C25", "W26")
    act(s, "muslim", "pass")
    assert top(s)["impacts"] == {"christian": 5, "muslim": 5}
    # the Muslim's first card is down: no more free leaders for him; the Christian neither
    assert not has(s, "christian", "deploy_leader")


@pytest.mark.rule("8.2.4")
def test_initiative_stays_with_the_side_behind_until_it_leads() -> None:
    s = blank()
    place(s, "huescar", "W16", "W17", "W04")
    place(s, "huescar", "K20")
    give(s, "christian", "C07", "C08", "C09")
    give(s, "muslim", "M22")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    act(s, "christian", "finish")
    # the attacker declared first: the defender keeps the initiative for good
    deploy(s, "muslim", "M22", "K20")
    act(s, "christian", "pass")
    assert top(s)["initiative"] == "muslim"
    assert not legal(s, "christian")
    act(s, "muslim", "finish")
    assert top(s)["winner"] == "muslim"


@pytest.mark.rule("8.2.4", "8.1")
def test_the_defender_takes_the_lead_by_matching_and_wins_a_draw() -> None:
    s = blank()
    place(s, "huescar", "W16", "W17")
    place(s, "huescar", "K28", "K29")
    give(s, "christian", "C07", "C08")
    give(s, "muslim", "M22", "M25")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C07", "W16")
    act(s, "muslim", "pass")
    deploy(s, "muslim", "M22", "K28")                         # 1-1: the defender leads
    act(s, "christian", "pass")
    assert top(s)["initiative"] == "christian"
    act(s, "christian", "finish")
    act(s, "muslim", "finish")
    f = top(s)
    assert f["winner"] == "muslim"
    # the loser's one loss is forced (one deployed block): taken at once; the Muslim loses none
    assert s["blocks"]["W16"]["loc"] == "eliminated"
    assert [s["blocks"][b]["loc"] for b in ("W17", "K28", "K29")] == ["huescar"] * 3


@pytest.mark.rule("8.2.1")
def test_no_card_may_deploy_a_block_of_another_faction_and_a_card_can_be_taken_back() -> None:
    s = blank()
    place(s, "huescar", "W04", "W24")
    place(s, "huescar", "K20")
    give(s, "christian", "C07", "C56")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    assert [a.get("card") for a in legal(s, "christian") if a["type"] == "play"] == ["C07"]
    act(s, "christian", "play", card="C07")
    assert [a.get("block") for a in legal(s, "christian") if a["type"] == "deploy"] == ["W04"]
    # the chosen card is private until the block is placed: the opponent's view shows nothing
    assert "pending" not in battle.view(s, "muslim", top(s))
    assert battle.view(s, "christian", top(s))["pending"]["card"] == "C07"
    act(s, "christian", "cancel")
    assert s["hands"]["christian"] == ["C07", "C56"]


@pytest.mark.rule("8.1", "8.2.2")
def test_deployed_blocks_are_revealed_and_counted_as_reveals() -> None:
    s = blank()
    place(s, "huescar", "W04")
    place(s, "huescar", "K20")
    give(s, "christian", "C07")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    before = s["reveals"]
    deploy(s, "christian", "C07", "W04")
    assert s["blocks"]["W04"]["revealed"]
    assert s["reveals"] > before
    assert "W04" in s["known"]["muslim"]
    assert s["battle_discard"]["christian"] == ["C07"]
    view = battle.view(s, "muslim", top(s))
    assert view["deployed"]["christian"][0]["blocks"][0]["id"] == "W04"
    assert view["undeployed"] == {"christian": 0, "muslim": 1}


# ---------------------------------------------------------------- Morale Challenge (8.4)

def challenge_setup(muslim_cards: tuple[str, ...] = ("M51",)) -> dict[str, Any]:
    s = blank()
    place(s, "huescar", "W26", "W27", "W04")
    place(s, "huescar", "K20", "K21")
    give(s, "christian", "C32", "C25", "C60")
    give(s, "muslim", *muslim_cards)
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    return s


@pytest.mark.rule("8.4.1")
def test_morale_challenge_refuted_by_showing_a_card_of_the_faction() -> None:
    s = challenge_setup()
    deploy(s, "christian", "C25", "W26")
    act(s, "muslim", "challenge", card="M51")
    assert {a["type"] for a in legal(s, "christian")} == {"refute", "deny", "concede"}
    act(s, "christian", "refute", card="C32")                # Double Aragón shows the shield
    f = top(s)
    assert f["impacts"]["christian"] == 2
    assert "C32" in s["hands"]["christian"] and "C32" in s["hand_known"]["christian"]
    assert s["battle_discard"]["muslim"] == ["M51"]          # the challenge stays played


@pytest.mark.rule("8.4.1")
def test_failed_morale_gives_no_impact_but_the_block_may_be_lost() -> None:
    s = challenge_setup()
    deploy(s, "christian", "C25", "W26")
    act(s, "muslim", "challenge", card="M51")
    act(s, "christian", "concede")
    f = top(s)
    assert f["impacts"]["christian"] == 0
    assert f["deployed"]["christian"][0]["out"] == ["W26"]
    assert f["initiative"] == "christian"                    # 0-0: the attacker is behind
    act(s, "christian", "finish")
    act(s, "muslim", "finish")                               # 0-0: the defender wins
    # the loser's extra loss is taken among deployed blocks first: the failed one
    assert s["blocks"]["W26"]["loc"] == "eliminated"
    assert s["blocks"]["W27"]["loc"] == "huescar" and s["blocks"]["W04"]["loc"] == "huescar"


@pytest.mark.rule("8.4.1", "10.1")
def test_commander_denies_a_morale_challenge_and_returns_to_hand() -> None:
    s = challenge_setup()
    deploy(s, "christian", "C25", "W26")
    act(s, "muslim", "challenge", card="M51")
    act(s, "christian", "deny", card="C60")
    assert top(s)["impacts"]["christian"] == 2
    assert "C60" in s["hands"]["christian"]


@pytest.mark.rule("8.4.2")
def test_challenging_a_double_shield_card_removes_both_blocks() -> None:
    s = challenge_setup()
    deploy(s, "christian", "C32", "W26")
    act(s, "christian", "deploy", block="W27")
    assert top(s)["impacts"]["christian"] == 5
    act(s, "muslim", "challenge", card="M51")
    act(s, "christian", "concede")
    f = top(s)
    assert f["impacts"]["christian"] == 0 and f["deployed"]["christian"][0]["out"] == ["W26", "W27"]


@pytest.mark.rule("8.4.1")
def test_the_challenge_prompt_appears_without_a_morale_card_and_is_asked_every_time() -> None:
    s = challenge_setup(muslim_cards=("M22",))               # no Morale Challenge card in hand
    deploy(s, "christian", "C25", "W26")
    assert top(s)["step"] == "morale"
    assert legal(s, "muslim") == [{"type": "pass", "pass": True, "label": "Let the deployment stand"}]
    act(s, "muslim", "pass")
    deploy(s, "muslim", "M22", "K20")
    act(s, "christian", "pass")
    deploy(s, "christian", "C32", "W27")
    act(s, "christian", "no_second")
    assert top(s)["step"] == "morale"                        # asked again: auto-pass is the front end's


@pytest.mark.rule("8.4.1")
def test_leaders_and_commander_deployments_cannot_be_challenged() -> None:
    s = challenge_setup()
    place(s, "huescar", "W23")
    act(s, "christian", "deploy_leader", block="W23")
    assert top(s)["step"] == "deploy" and top(s)["initiative"] == "muslim"
    act(s, "muslim", "finish")
    act(s, "christian", "play", card="C60")
    act(s, "christian", "deploy", block="W26")
    assert top(s)["step"] == "deploy"


@pytest.mark.rule("8.2.4", "8.4.1")
def test_a_finished_player_may_still_challenge() -> None:
    s = blank()
    place(s, "huescar", "W26", "W27")
    place(s, "huescar", "K20")
    give(s, "christian", "C25", "C26")
    give(s, "muslim", "M51")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C25", "W26")
    act(s, "muslim", "pass")
    act(s, "muslim", "finish")                    # behind 0-2 and finished for good
    assert top(s)["initiative"] == "christian"
    deploy(s, "christian", "C26", "W27")
    act(s, "muslim", "challenge", card="M51")     # "He may still play Morale Challenge cards"
    act(s, "christian", "concede")
    assert top(s)["impacts"] == {"christian": 2, "muslim": 0}


@pytest.mark.rule("8.2.4")
def test_the_side_behind_may_declare_finished_and_lose() -> None:
    s = blank()
    place(s, "huescar", "W26", "W27")
    place(s, "huescar", "K20")
    give(s, "christian", "C25", "C26")
    give(s, "muslim", "M22", "M51")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C25", "W26")
    act(s, "muslim", "pass")
    deploy(s, "muslim", "M22", "K20")
    act(s, "christian", "pass")
    assert top(s)["initiative"] == "christian"
    deploy(s, "christian", "C26", "W27")                     # 2 + 3 = 5 > 3
    act(s, "muslim", "pass")
    act(s, "muslim", "finish")                               # Muslim behind, declares finished
    assert top(s)["initiative"] == "christian"
    act(s, "christian", "finish")
    # 5 to 3: the Muslim loses his only block for the defeat; nothing is left to retreat
    assert s["blocks"]["K20"]["loc"] == "eliminated"
    assert s["stack"][-1]["returns"][-1]["winner"] == "christian"


@pytest.mark.rule("8.1")
def test_views_of_a_battle_hide_undeployed_blocks_and_the_pending_card() -> None:
    import json

    import engine.granada as g

    s = example_battle()
    s = g.apply(s, "muslim", {"type": "fight", "pass": True})
    s = g.apply(s, "christian", {"type": "deploy_leader", "block": "W36"})
    s = g.apply(s, "muslim", {"type": "play", "card": "M40"})          # private, not yet deployed
    view_c = g.view(s, "christian")
    text = json.dumps(view_c)
    for hidden in ("K49", "K20", "K21", "K19", "K04", "K06", "M40"):
        assert hidden not in text
    assert view_c["battle"]["undeployed"] == {"christian": 6, "muslim": 6}
    assert g.view(s, "muslim")["battle"]["pending"] == {"card": "M40", "stage": "block"}
    for seed in range(4):
        assert g.view(g.redeal(s, "christian", seed), "christian") == view_c
    # after the deployment the block and the card are public
    s = g.apply(s, "muslim", {"type": "deploy", "block": "K49"})
    assert "K49" in json.dumps(g.view(s, "christian")["battle"])
    assert g.active(s) == ["christian"] and {a["type"] for a in g.actions(s, "christian")} == {"pass"}


@pytest.mark.rule("8.2.2", "8.4.1")
def test_through_the_engine_contract_a_refuted_challenge_is_public() -> None:
    import engine.granada as g
    from engine.api import RuleError

    s = challenge_setup()
    s = g.apply(s, "christian", {"type": "play", "card": "C25"})
    s = g.apply(s, "christian", {"type": "deploy", "block": "W26"})
    with pytest.raises(RuleError):
        g.apply(s, "muslim", {"type": "challenge", "card": "M52"})   # not in his hand
    s = g.apply(s, "muslim", {"type": "challenge", "card": "M51"})
    s = g.apply(s, "christian", {"type": "refute", "card": "C32"})
    assert g.view(s, "muslim")["known_opponent_cards"] == ["C32"]


# ---------------------------------------------------------------- hidden information (8.1, 8.5.2)

@pytest.mark.rule("8.1", "8.5.2")
def test_book_example_survivors_are_concealed_again_and_lost_blocks_stay_revealed() -> None:
    import engine.granada as g

    s = example_battle()
    play_example(s)
    act(s, "christian", "finish")
    act(s, "muslim", "finish")
    act(s, "christian", "lose", block="W18")
    act(s, "christian", "lose", block="W26")
    act(s, "muslim", "lose", block="K49")
    # "After the battle is concluded, revealed blocks become concealed again" ...
    for b in ("W36", "W27", "W44", "K20", "K19", "K21"):
        assert not s["blocks"][b]["revealed"], b
    # ... but "the identity of the lost blocks is revealed" and they stay visible
    for b in ("W18", "W26", "K49"):
        assert s["blocks"][b]["revealed"] and s["blocks"][b]["loc"] == "eliminated"
    view_c = g.view(s, "christian")
    muslims = view_c["locations"]["huescar"]["blocks"]["muslim"]
    assert len(muslims) == 5 and all("id" not in b for b in muslims)
    assert "K49" in {b["id"] for b in view_c["boxes"]["eliminated"]}
    view_m = g.view(s, "muslim")
    assert all("id" not in b for b in view_m["locations"]["ubeda"]["blocks"]["christian"])


@pytest.mark.rule("8.5.2")
def test_an_undeployed_block_lost_is_revealed() -> None:
    s = blank()
    place(s, "huescar", "W16", "W17")
    place(s, "huescar", "K20")
    came(s, "huescar", "christian", "ubeda")
    give(s, "muslim", "M22")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    act(s, "christian", "finish")                  # nothing deployed
    deploy(s, "muslim", "M22", "K20")
    act(s, "christian", "pass")
    act(s, "muslim", "finish")
    act(s, "christian", "lose", block="W17")       # the defeat: a block that was not deployed
    assert s["blocks"]["W17"]["loc"] == "eliminated" and s["blocks"]["W17"]["revealed"]
    assert "W17" in s["known"]["muslim"]
    assert s["blocks"]["W16"]["loc"] == "ubeda" and not s["blocks"]["W16"]["revealed"]


@pytest.mark.rule("8.1")
def test_illegal_orders_are_refused_without_telling_hidden_things() -> None:
    import engine.granada as g
    from engine.api import RuleError

    s = challenge_setup(muslim_cards=("M51", "M22"))
    s = g.apply(s, "christian", {"type": "play", "card": "C25"})
    s = g.apply(s, "christian", {"type": "deploy", "block": "W26"})
    secrets = ("M51", "M22", "K20", "K21")
    # the Christian acts out of turn, naming a concealed Muslim block
    with pytest.raises(RuleError) as e1:
        g.apply(s, "christian", {"type": "lose", "block": "K20"})
    # the Muslim tries a card he does not hold: he is told his own choices only
    with pytest.raises(RuleError) as e2:
        g.apply(s, "muslim", {"type": "challenge", "card": "M52"})
    text1 = str(e1.value) + " ".join(e1.value.allowed or [])
    assert all(x not in text1 for x in secrets if x != "K20")    # K20: his own words only
    text2 = " ".join(e2.value.allowed or [])
    assert "M51" in text2                                          # his own card
    assert all(x not in text2 for x in ("C32", "C60", "W27", "W04"))   # nothing of the Christian's


# ---------------------------------------------------------------- reaction prompts (8.4, 10.1-10.5)

def _twins(build: Any, side: str, step: str, cards: tuple[str, str]) -> None:
    """Two states differing only in one card of the reacting player's hand: he is asked in
    both, and his opponent's view is the same."""
    import engine.granada as g

    views = []
    for card in cards:
        s = build(card)
        assert st.active_roles(s) == [side] and top(s)["step"] == step, (card, top(s)["step"])
        assert g.actions(s, side)
        views.append(g.view(s, st.other(side)))
    assert views[0] == views[1]


@pytest.mark.rule("8.4.1")
def test_the_morale_prompt_tells_nothing_about_the_hand() -> None:
    def build(card: str) -> dict[str, Any]:
        s = challenge_setup(muslim_cards=(card,))
        deploy(s, "christian", "C25", "W26")
        return s

    _twins(build, "muslim", "morale", ("M51", "M22"))       # Morale Challenge / Zegries card


@pytest.mark.rule("8.4.1", "10.1")
def test_the_answer_to_a_challenge_is_asked_whatever_the_hand() -> None:
    def build(card: str) -> dict[str, Any]:
        s = blank()
        place(s, "huescar", "W26", "W04")
        place(s, "huescar", "K20")
        give(s, "christian", "C25", card)
        give(s, "muslim", "M51")
        battle.start_battle(s, "huescar", "christian")
        act(s, "muslim", "fight")
        deploy(s, "christian", "C25", "W26")
        act(s, "muslim", "challenge", card="M51")
        return s

    _twins(build, "christian", "respond", ("C60", "C07"))   # Commander / a Castile card
    s = build("C07")
    assert [a["type"] for a in legal(s, "christian")] == ["concede"]


@pytest.mark.rule("10.1", "10.3")
def test_the_pre_battle_prompt_and_the_watchtower_tell_nothing_about_the_hand() -> None:
    def build(card: str) -> dict[str, Any]:
        s = blank()
        place(s, "velez_malaga", "W04")
        place(s, "velez_malaga", "K20", "K21")
        give(s, "muslim", card)
        battle.start_battle(s, "velez_malaga", "christian")
        return s

    _twins(build, "muslim", "avoid", ("M57", "M22"))        # Watchtower / Zegries card
    _twins(build, "muslim", "avoid", ("M55", "M22"))        # Commander / Zegries card
    # the Watchtower card waits for the defender's initiative, after the attacker's first
    # deployment (8.2, RULINGS_BATTLE 4)
    assert "watchtower" not in {a["type"] for a in legal(build("M57"), "muslim")}


@pytest.mark.rule("10.5", "10.1", "8.7.5")
def test_the_besieged_side_is_asked_whatever_its_hand() -> None:
    def build(card: str) -> dict[str, Any]:
        s = blank()
        place(s, "loja", "K17", inside=True)
        place(s, "loja", "W25", "W24")
        give(s, "christian", "C21", "C25")
        give(s, "muslim", card)
        battle.start_battle(s, "loja", "christian")
        act(s, "muslim", "stay_inside")
        return s

    # before the siege: surrender the castle (the cards are public) or a Commander retreat
    _twins(build, "muslim", "avoid", ("M55", "M22"))

    def fire(card: str) -> dict[str, Any]:
        s = build(card)
        act(s, "muslim", "fight")
        act(s, "christian", "assault")
        deploy(s, "christian", "C21", "W25")
        return s

    # during the assault: the artillery of the castle (M01: Andalusies with a trumpet)
    _twins(fire, "muslim", "fire", ("M01", "M22"))


@pytest.mark.rule("8.4.1")
def test_a_morale_prompt_is_a_reaction_only_for_the_player_asked() -> None:
    import engine.granada as g

    s = challenge_setup(muslim_cards=("M22",))
    deploy(s, "christian", "C25", "W26")
    v = g.view(s, "muslim")
    assert v["reaction"] is True and [a["type"] for a in v["actions"] if a.get("pass")] == ["pass"]
    assert g.view(s, "christian")["reaction"] is False and g.view(s, None)["reaction"] is False
    s = g.apply(s, "muslim", next(a for a in v["actions"] if a.get("pass")))
    assert top(s)["step"] == "deploy" and g.view(s, "muslim")["reaction"] is False


# ---------------------------------------------------------------- small choice lists

def _reach(s: dict[str, Any], role: str, target: dict[str, Any]) -> dict[str, Any]:
    """Apply ``target`` after finding it in the list offered: every legal action at once,
    however many (paging a long list is the front end's, engine/api.py)."""
    import engine.granada as g

    offered = g.actions(s, role)
    found = next((a for a in offered if all(a.get(k) == v for k, v in target.items())), None)
    if found is None:
        raise AssertionError(f"{target} is offered nowhere")
    return g.apply(s, role, found)


@pytest.mark.rule("8.2.2", "10.1")
def test_a_huge_stack_is_deployed_from_one_list_of_every_block() -> None:
    import engine.granada as g

    s = blank()
    whites = [b for b, blk in sorted(B.items()) if blk.side == "christian" and blk.colour == "white"
              and not blk.fleet and not blk.optional and not blk.leader][:30]
    assert len(whites) == 30
    place(s, "huescar", *whites)
    place(s, "huescar", "K20")
    came(s, "huescar", "christian", "ubeda")
    give(s, "christian", "C60")
    battle.start_battle(s, "huescar", "christian")
    s = g.apply(s, "muslim", {"type": "fight", "pass": True})
    s = _reach(s, "christian", {"type": "play", "card": "C60"})
    last = whites[-1]
    s = _reach(s, "christian", {"type": "deploy", "block": last})
    assert top(s)["deployed"]["christian"][0]["blocks"] == [last]


@pytest.mark.rule("10.2")
def test_bombardment_placements_anywhere_through_lists_of_25_at_most() -> None:
    import engine.granada as g

    s = blank()
    locs = [x for x in sorted(st.data().locations) if x not in ("huescar", "oran")][:30]
    whites = [b for b, blk in sorted(B.items()) if blk.side == "christian" and blk.colour == "white"
              and not blk.fleet and not blk.optional and not blk.gun and b != "W04"][:30]
    for loc, b in zip(locs, whites):
        place(s, loc, b)
    place(s, "huescar", "W04")
    place(s, "huescar", "K20")
    for gun in ("W06", "W13"):
        s["blocks"][gun]["loc"] = "eliminated"
    give(s, "christian", "C62")
    battle.start_battle(s, "huescar", "christian")
    s = g.apply(s, "muslim", {"type": "fight", "pass": True})
    s = _reach(s, "christian", {"type": "bombard", "card": "C62"})
    s = _reach(s, "christian", {"type": "place", "block": "W06"})
    assert len(battle.actions(s, "christian", top(s))) == 31      # the battle's own + 30 others
    far = locs[-1]
    s = _reach(s, "christian", {"type": "place_at", "loc": far})
    assert s["blocks"]["W06"]["loc"] == far
    s = _reach(s, "christian", {"type": "place", "block": "W13"})
    # 10.2: "up to 2 locations": the second may go anywhere as well
    s = _reach(s, "christian", {"type": "place_at", "loc": "huescar"})
    assert s["blocks"]["W13"]["loc"] == "huescar"
    assert top(s)["pending"] is None and s["battle_discard"]["christian"] == ["C62"]
