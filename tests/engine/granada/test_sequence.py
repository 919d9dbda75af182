"""The yearly cycle: turn order bids (6.2), turns (6.3), reinforcements (6.4), turn marker
(6.5), and the setup that starts it (5.x)."""

from __future__ import annotations

import pytest

import engine.granada as g
from engine.granada import sequence
from engine.granada import state as st
from tests.engine.granada.core_helpers import D, act, choices, clear_board, legal_choices, new_game, top


def biddable(s, side):
    return sorted((c for c in s["hands"][side] if D.cards[c].bid is not None),
                  key=lambda c: (D.cards[c].bid, c))


def with_bids(s, high: str):
    """Give ``high`` a higher bid card than the other side's only bid card."""
    low = st.other(high)
    cards = sorted((c for c in D.cards if D.cards[c].deck in ("christian", "muslim")
                    and D.cards[c].bid is not None), key=lambda c: D.cards[c].bid)
    lo = next(c for c in cards if D.cards[c].deck == low)
    hi = next(c for c in reversed(cards) if D.cards[c].deck == high)
    assert D.cards[hi].bid > D.cards[lo].bid
    for side, card in ((high, hi), (low, lo)):
        for pile in ("decks", "discards"):
            if card in s[pile][side]:
                s[pile][side].remove(card)
        if card not in s["hands"][side]:
            s["hands"][side].append(card)
    s["hands"][low] = [c for c in s["hands"][low] if D.cards[c].bid is None or c == lo]
    return hi, lo


def pass_phase(s, side):
    s = act(s, side, type="buy", level="none")
    return act(s, side, type="end_movement")


@pytest.mark.rule("6.2")
def test_bids_are_secret_until_both_chose_then_the_higher_chooses_the_first_player():
    s = new_game()
    hi, lo = with_bids(s, "muslim")
    assert set(g.active(s)) == {"christian", "muslim"}
    s = act(s, "christian", type="bid", card=lo)
    assert g.active(s) == ["muslim"]
    assert g.actions(s, "christian") == []
    seen = g.view(s, "muslim")
    assert seen["bids"]["christian"] == "placed"
    assert lo not in str({k: v for k, v in seen.items() if k != "actions"}).replace("'", "")
    assert g.view(s, "christian")["bids"]["christian"] == lo
    s = act(s, "muslim", type="bid", card=hi)
    assert g.active(s) == ["muslim"] and top(s)["phase"] == "order"
    assert hi in s["discards"]["muslim"] and lo in s["discards"]["christian"]
    s = act(s, "muslim", type="first", side="christian")
    assert s["first"] == "christian"
    assert top(s)["kind"] == "movement" and top(s)["side"] == "christian"


@pytest.mark.rule("6.2")
def test_only_cards_with_a_bid_number_can_bid():
    s = new_game()
    for a in choices(s, "christian"):
        assert a["card"] is not None and D.cards[a["card"]].bid is not None
    s["hands"]["christian"] = [c for c in s["hands"]["christian"] if D.cards[c].bid is None]
    assert choices(s, "christian") == [{"type": "bid", "card": None,
                                           "label": "Bid nothing (no card with a bid number)"}]


@pytest.mark.rule("6.2")
def test_a_tie_lets_the_muslim_choose_in_1482():
    s = new_game()
    s["hands"]["christian"] = [c for c in s["hands"]["christian"] if D.cards[c].bid is None]
    s["hands"]["muslim"] = [c for c in s["hands"]["muslim"] if D.cards[c].bid is None]
    s = act(s, "christian", type="bid", card=None)
    s = act(s, "muslim", type="bid", card=None)
    assert g.active(s) == ["muslim"]


@pytest.mark.rule("6.3", "6.1")
def test_1482_has_only_turn_two_then_the_reinforcement_step():
    s = new_game()
    assert (s["year"], s["turn"]) == (0, 2)
    hi, lo = with_bids(s, "christian")
    s = act(s, "christian", type="bid", card=hi)
    s = act(s, "muslim", type="bid", card=lo)
    s = act(s, "christian", type="first", side="muslim")
    order = []
    for _ in range(2):
        side = top(s)["side"]
        order.append(side)
        s = pass_phase(s, side)
    assert order == ["muslim", "christian"]
    assert top(s)["phase"] == "reinforce" and (s["year"], s["turn"]) == (0, 2)


@pytest.mark.rule("6.3")
def test_the_first_player_of_turn_one_is_first_in_turn_two():
    s = clear_board(new_game())
    root = s["stack"][0]
    s["year"], s["turn"], s["first"] = 3, 1, "muslim"
    root.update(phase="turn", step=0)
    from engine.granada import run

    run(s)
    order = []
    for _ in range(4):
        side = top(s)["side"]
        order.append((s["turn"], side))
        s = pass_phase(s, side)
    assert order == [(1, "muslim"), (1, "christian"), (2, "muslim"), (2, "christian")]


def at_reinforcement(hands: dict[str, int]):
    s = new_game()
    for side, n in hands.items():
        pool = s["hands"][side] + s["decks"][side]
        s["hands"][side] = pool[:n]
        s["decks"][side] = pool[n:]
    root = s["stack"][0]
    sequence._start_reinforcement(s, root)
    return s


@pytest.mark.rule("6.4")
def test_discard_half_rounded_down_example_seven_cards_discard_three():
    s = at_reinforcement({"christian": 7, "muslim": 4})
    assert top(s)["owed"] == {"christian": 3, "muslim": 2}
    hand = sorted(s["hands"]["christian"])
    s = act(s, "christian", type="discard", card=hand[0])
    s = act(s, "christian", type="discard", card=hand[1])
    s = act(s, "christian", type="discard", card=hand[2])
    assert len(s["hands"]["christian"]) == 4
    assert g.active(s) == ["muslim"]


@pytest.mark.rule("6.4", "4.2", "4.3", "4.9")
def test_six_cards_plus_one_for_most_castles_blocks_plus_one_for_most_resources():
    s = at_reinforcement({"christian": 1, "muslim": 1})
    castles = sequence.castle_counts(s)
    resources = sequence.resource_counts(s)
    assert castles["muslim"] > castles["christian"]
    assert resources["muslim"] != resources["christian"]
    more_res = max(resources, key=lambda k: resources[k])
    box = {side: sum(1 for r in s["blocks"].values() if r["loc"] == f"recruit:{side}")
           for side in st.SIDES}
    hands = {side: len(s["hands"][side]) for side in st.SIDES}
    s["year"] = 1
    assert top(s)["owed"] == {"christian": 0, "muslim": 0}      # hands of 1: nothing to discard
    from engine.granada import run

    top(s)["owed"] = {"christian": 0, "muslim": 0}
    run(s)
    assert len(s["hands"]["christian"]) == hands["christian"] + 6
    assert len(s["hands"]["muslim"]) == hands["muslim"] + 7          # most castles
    for side in st.SIDES:
        got = sum(1 for r in s["blocks"].values() if r["loc"] == f"recruit:{side}") - box[side]
        assert got == 3 + (1 if side == more_res else 0)             # 1483-1484: 3 blocks
    assert (s["year"], s["turn"]) == (2, 1) and top(s)["phase"] == "bid"   # 6.5


@pytest.mark.rule("6.4")
def test_tie_in_resources_gives_no_extra_block():
    s = at_reinforcement({"christian": 0, "muslim": 0})
    res = [loc for loc, L in D.locations.items() if L.resource]
    for i, loc in enumerate(res):
        s["control"][loc] = "christian" if i % 2 == 0 else "muslim"
    if len(res) % 2:
        s["control"][res[-1]] = None
    box = sum(1 for r in s["blocks"].values() if r["loc"] == "recruit:muslim")
    from engine.granada import run

    run(s)
    assert sum(1 for r in s["blocks"].values() if r["loc"] == "recruit:muslim") == box + 2


@pytest.mark.rule("6.5", "2.2")
def test_the_game_ends_after_turn_one_of_1491_1492():
    s = clear_board(new_game())
    root = s["stack"][0]
    s["year"], s["turn"], s["first"] = 6, 1, "christian"
    root.update(phase="turn", step=0)
    from engine.granada import run

    run(s)
    s = pass_phase(s, "christian")
    assert g.result(s) is None
    s = pass_phase(s, "muslim")
    res = g.result(s)
    assert res is not None and "2.2" in res["reason"] and g.active(s) == []


@pytest.mark.rule("8.1")
def test_combat_phase_declares_every_battle_one_at_a_time():
    s = clear_board(new_game())
    from tests.engine.granada.core_helpers import land_blocks, put

    c = land_blocks("christian", 2)
    m = land_blocks("muslim", 2)
    put(s, "ecija", c[0])
    put(s, "ecija", m[0])
    put(s, "jerez", c[1])
    put(s, "jerez", m[1])
    assert set(sequence.pending_battles(s, "christian")) == {"ecija", "jerez"}
    sequence.start_combat(s, "christian")
    assert {a["loc"] for a in choices(s, "christian")} == {"ecija", "jerez"}
    s = act(s, "christian", type="battle", loc="ecija")
    assert s["stack"][1]["done"] == ["ecija"]


@pytest.mark.rule("8.7.2")
def test_no_combat_where_the_phasing_player_stays_inside_his_besieged_castle():
    s = clear_board(new_game())
    from tests.engine.granada.core_helpers import land_blocks, put

    put(s, "loja", *land_blocks("muslim", 1), inside=True)
    put(s, "loja", *land_blocks("christian", 2))
    assert sequence.pending_battles(s, "muslim") == []
    assert sequence.pending_battles(s, "christian") == ["loja"]


@pytest.mark.rule("6.4")
def test_the_player_chooses_which_half_of_his_hand_he_discards():
    s = at_reinforcement({"christian": 5, "muslim": 3})
    hand = set(s["hands"]["christian"])
    assert {a["card"] for a in legal_choices(s, "christian")} == hand
    last = sorted(hand)[-1]
    s = act(s, "christian", type="discard", card=last)
    assert last in s["discards"]["christian"] and last not in s["hands"]["christian"]
    s = act(s, "christian", type="discard", card=sorted(hand)[0])
    assert g.actions(s, "christian") == []                   # 5 // 2 = 2 discarded


@pytest.mark.rule("6.4")
def test_no_seventh_card_when_castles_are_tied():
    s = at_reinforcement({"christian": 0, "muslim": 0})
    castles = sorted(s["castle"])
    for i, loc in enumerate(castles):
        s["castle"][loc] = "christian" if i % 2 == 0 else "muslim"
    if len(castles) % 2:
        s["castle"][castles[-1]] = None
    assert sequence.castle_counts(s)["christian"] == sequence.castle_counts(s)["muslim"]
    from engine.granada import run

    run(s)
    assert len(s["hands"]["christian"]) == len(s["hands"]["muslim"]) == 6


@pytest.mark.rule("6.2", "6.3")
def test_the_bid_winner_may_let_the_other_player_move_first_in_both_turns():
    s = clear_board(new_game())
    root = s["stack"][0]
    s["year"], s["turn"] = 3, 1
    root.update(phase="bid")
    hi, lo = with_bids(s, "christian")
    s = act(s, "christian", type="bid", card=hi)
    s = act(s, "muslim", type="bid", card=lo)
    assert g.active(s) == ["christian"]
    s = act(s, "christian", type="first", side="muslim")
    order = []
    for _ in range(4):
        side = top(s)["side"]
        order.append((s["turn"], side))
        s = pass_phase(s, side)
    assert order == [(1, "muslim"), (1, "christian"), (2, "muslim"), (2, "christian")]
