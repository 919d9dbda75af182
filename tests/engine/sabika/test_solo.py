"""Solo mode: Yusuf, run by the engine (never a role)."""

from __future__ import annotations

import pytest

import engine.sabika as sabika
from engine.sabika import names as N
from engine.sabika import rules
from engine.sabika.data import MAJORS, MINORS, STOREHOUSES
from engine.sabika.round_end import _step_income
from engine.sabika.state import order
from engine.sabika.turn import move_cost
from engine.sabika.yusuf import yusuf_final, yusuf_major_poem_points, yusuf_step, yusuf_turn
from tests.engine.sabika.helpers import kinds

B = "blue"
Y = "yusuf"


def solo(seed: int = 1, **options: int) -> dict:  # type: ignore[type-arg]
    return sabika.setup(seed, {"players": 1, **options})


def after_setup(seed: int = 1) -> dict:  # type: ignore[type-arg]
    s = solo(seed)
    s = sabika.apply(s, B, sabika.actions(s, B)[0])
    while s["stack"] and s["stack"][-1]["kind"] != "turn":
        s = sabika.apply(s, B, sabika.actions(s, B)[0])
    return s


def yusuf_card(s: dict, worker: str, card: str, stand: bool = True) -> dict:  # type: ignore[type-arg]
    """Put ``card`` on top of Yusuf's ``worker`` deck and ``worker`` on top of his tile pile, then let him play."""
    y = s[Y]
    for deck in y["decks"].values():
        if card in deck:
            deck.remove(card)
    for pile in y["discards"].values():
        if card in pile:
            pile.remove(card)
    y["decks"][worker].append(card)
    if worker in y["pile"]:
        y["pile"].remove(worker)
    y["pile"].append(worker)
    for w, info in y["workers"].items():
        if w.rstrip("12") == worker and stand:
            info["up"] = True
    s["stack"] = []
    s["turn"] = Y  # after his turn, the player's
    yusuf_turn(s)
    rules._advance(s)
    return s


@pytest.mark.rule("sabika:solo-mode", "sabika:solo-game-setup")
def test_solo_is_set_up_as_for_two_players_with_yusuf_beside_the_player() -> None:
    s = solo()
    assert sabika.roles({"players": 1}) == [B] and s["seats"] == [B, Y]
    assert s["board"] == "small" and len(s["poem_display"]) == 3 and len(s["majors"]["2"]) == 9
    assert len(s["major_poems"]) == 4
    assert sabika.active(s) == [B]


@pytest.mark.rule("sabika:solo-main-board-setup")
def test_major_poem_f1_is_removed_before_the_major_poems_are_placed() -> None:
    for seed in range(1, 40):
        assert "F1" not in solo(seed)["major_poems"]


@pytest.mark.rule("sabika:solo-each-player")
def test_yusuf_starts_consolidated_in_the_nearest_trade_city_and_is_starting_player() -> None:
    s = solo(3)
    s["trade"] = "t3"  # the Near East: Cairo (Granada-Tlemcen-Tunis-Cairo, 6) before Constantinople (7)
    s = sabika.apply(s, B, sabika.actions(s, B)[0])
    assert s["start"] == Y and order(s) == [Y, B]
    assert s["cities"]["cairo"]["right"] == [Y] and s[Y]["seals"] == 1 and s[Y]["ships"] == 8
    s = solo(3)
    s["trade"] = "t7"  # blue Cities: Barcelona and Fez, both 1 from Granada
    for c, info in s["cities"].items():
        info["tile"] = "c1" if c in ("barcelona", "fez") else "c2"
    s = sabika.apply(s, B, sabika.actions(s, B)[0])
    assert kinds(s) == "yusuf_city"  # equidistant: the player decides
    assert sorted(a["city"] for a in sabika.actions(s, B)) == ["barcelona", "fez"]
    s = sabika.apply(s, B, {"type": "yusuf_city", "city": "fez"})
    assert s["cities"]["fez"]["right"] == [Y] and s[Y]["seals"] == 1
    assert s[Y]["pp"] == 5 and s[Y]["storehouses"] == [] and "row" not in s[Y]  # no Storehouses, no Balance card
    assert "Starting Dinars by turn order: blue 4." in [e["text"] for e in s["log"]]  # second in turn order


@pytest.mark.rule("sabika:difficulty")
def test_a_harder_yusuf_starts_with_10_pp() -> None:
    assert solo(yusuf_pp=10)[Y]["pp"] == 10
    with pytest.raises(ValueError, match="yusuf_pp"):
        solo(yusuf_pp=7)


@pytest.mark.rule("sabika:solo-phase-1-action", "sabika:solo-actions")
def test_yusuf_reveals_a_tile_then_a_card_moves_acts_top_to_bottom_and_scores() -> None:
    s = after_setup()
    s["wishes"] = {"2": "A1", "4": "B1", "6": "C1"}  # the Sultan desires Palaces and Gardens
    before = s[Y]["pp"]
    s = yusuf_card(s, "builder", "Y12")  # storehouse then minor; square 5; discard icon
    texts = [e["text"] for e in s["log"]]
    assert any(t.startswith("Yusuf reveals a Worker tile: Master Builder") for t in texts)
    assert any(t == f"Yusuf reveals a {N.yusuf_card('Y12')}." for t in texts)
    i_store = next(i for i, t in enumerate(texts) if t.startswith("Yusuf takes a Storehouse of"))
    i_minor = next(i for i, t in enumerate(texts) if t.startswith("Yusuf takes a ") and " on " in t)
    assert i_store < i_minor
    assert s[Y]["pp"] == before  # Y12: 0 PP
    assert "builder" in s[Y]["revealed"] and "Y12" in s[Y]["discards"]["builder"]
    assert s["players"][B]["pp"] == 5


@pytest.mark.rule("sabika:solo-movement")
def test_yusuf_moves_free_lays_down_discards_the_secondary_and_picks_the_closest_builder() -> None:
    s = after_setup()
    s["raw_squares"]["2"] = "sugar"  # raw square 2 joins outer square 5 and middle square 3
    s[Y]["workers"]["builder1"]["at"] = 4
    s[Y]["workers"]["builder2"]["at"] = 6
    pp = s[Y]["pp"]
    s = yusuf_card(s, "builder", "Y12")  # square 5: builder1 is 1 step away, builder2 7 steps
    assert s[Y]["workers"]["builder1"] == {"at": 5, "up": False}
    assert s["raw_squares"]["2"] is None and s["discard_goods"]["sugar"] >= 1
    assert s[Y]["pp"] == pp  # no movement cost, nothing paid
    # the other Master Builder would join builder1 on square 5: the card is discarded unresolved
    s[Y]["workers"]["builder2"].update(at=2, up=True)  # builder1 lies on square 5
    s[Y]["pile"] = ["builder"]
    s = yusuf_card(s, "builder", "Y8", stand=False)
    texts = [e["text"] for e in s["log"]]
    assert any(f"his {N.yusuf_card('Y8')} is discarded unresolved" in t for t in texts)
    assert s[Y]["workers"]["builder2"]["at"] != 5


@pytest.mark.rule("sabika:solo-movement")
def test_yusufs_workers_make_the_players_squares_dearer() -> None:
    s = after_setup()
    s[Y]["workers"]["merchant"]["at"] = 2
    s["sultan"] = {"outer": [], "middle": [], "inner": []}
    assert move_cost(s, B, "merchant", 2) == 1


@pytest.mark.rule("sabika:solo-master-builder", "sabika:solo-major-construction-action")
def test_yusuf_takes_the_highest_numbered_major_of_the_desired_type_without_bonus() -> None:
    s = after_setup()
    s["wishes"] = {"2": "A2", "4": "B1", "6": "C1"}  # Fountains and Towers
    dinars = s["players"][B]["dinars"]
    s = yusuf_card(s, "builder", "Y1")
    fountains = [t for t, d in MAJORS.items() if d["era"] == 1 and d["type"] == "fountain"]
    assert s[Y]["majors"] == [max(fountains, key=lambda t: MAJORS[t]["num"])]
    assert s[Y]["favour"] == 1 and s["players"][B]["dinars"] == dinars
    s["majors"]["1"] = [t for t in s["majors"]["1"] if MAJORS[t]["type"] != "fountain"]
    s[Y]["pile"] = ["builder"]
    s[Y]["workers"]["builder1"]["at"] = None
    s[Y]["workers"]["builder2"]["at"] = None
    s = yusuf_card(s, "builder", "Y3")
    assert s[Y]["majors"][-1] == max(s["majors"]["1"] + [s[Y]["majors"][-1]], key=lambda t: MAJORS[t]["num"])


@pytest.mark.rule("sabika:solo-minor-construction-action")
def test_yusuf_takes_the_first_desired_minor_from_the_right_else_the_rightmost() -> None:
    s = after_setup()
    s["wishes"] = {"2": "A3", "4": "B1", "6": "C1"}  # Doors and Windows
    garden = [c for c, d in MINORS.items() if d["type"] == "garden"]
    window = next(c for c, d in MINORS.items() if d["type"] == "window")
    s["minor_display"] = [window, garden[0], garden[1], garden[2]]
    s = yusuf_card(s, "builder", "Y4")
    assert s[Y]["minors"] == [window] and s["minor_display"][0] is None
    s["minor_display"] = [garden[3], garden[4], garden[5], garden[6]]
    s[Y]["pile"] = ["builder"]
    s = yusuf_card(s, "builder", "Y5")
    assert s[Y]["minors"][-1] == garden[6]


@pytest.mark.rule("sabika:solo-storehouse-action")
def test_yusuf_takes_the_storehouse_with_most_boxes_closest_on_ties_else_the_other_side() -> None:
    s = after_setup()
    one = [t for t, d in STOREHOUSES.items() if d["boxes"] == 1]
    three = [t for t, d in STOREHOUSES.items() if d["boxes"] == 3]
    s["store_display"] = {"left": [one[0], three[0]], "right": [three[1], three[2]]}
    s = yusuf_card(s, "builder", "Y7")  # left square
    assert s[Y]["storehouses"] == [three[0]]
    s["store_display"]["left"] = [None, None]
    s[Y]["pile"] = ["builder"]
    s[Y]["workers"]["builder1"]["at"] = None  # off the square, so that the card is resolved
    s = yusuf_card(s, "builder", "Y7")
    assert s[Y]["storehouses"][-1] == three[1]  # the other side, closest of equal tiles


@pytest.mark.rule("sabika:solo-merchant", "sabika:solo-export-action")
def test_yusuf_exports_to_the_nearest_sealed_trade_city_without_city_bonus() -> None:
    s = after_setup()
    s["trade"] = "t2"  # the Maghreb
    for info in s["cities"].values():
        info.update(left=[], right=[], seal=True)
    s["cities"]["fez"]["seal"] = False
    s[Y]["seals"] = 0
    s = yusuf_card(s, "merchant", "Y13")
    assert s["cities"]["tlemcen"]["left"] == [Y] and s[Y]["seals"] == 1
    assert not any("City Bonus of Tlemcen" in e["text"] for e in s["log"])
    s[Y]["pile"] = ["merchant"]
    s = yusuf_card(s, "merchant", "Y14")
    # from Tlemcen: Tunis (2) ; Fez has no Seal any more
    assert s["cities"]["tunis"]["left"] == [Y]


@pytest.mark.rule("sabika:solo-end-of-game")
def test_yusuf_no_income_seals_only_leftovers_and_major_poems_a3_c3() -> None:
    s = after_setup()
    y = s[Y]
    s["cities"]["fez"].update(tile="c9", right=[Y])  # a blue City: no income for Yusuf
    y.update(poems=["p1", "p2", "p3", "p4"], grey=["A3", "C3"], minors=["m1", "m2", "m3"], seals=2)
    trios = min(2, 4 // 2)
    assert yusuf_major_poem_points(s, "A3") == trios * 5
    assert yusuf_major_poem_points(s, "C3") == 3 * 3  # each Minor Construction a balance
    pp = y["pp"]
    s["stack"] = []
    _step_income(s)
    assert s["stack"] == []
    s["trade"] = "t7"  # blue Cities with presence: Fez
    yusuf_final(s)
    assert s[Y]["pp"] == pp + 10 + 9 + 2 + 2


@pytest.mark.rule("sabika:solo-end-of-game")
def test_yusuf_pays_parias_from_his_track_then_with_pp_when_he_has_no_seal() -> None:
    s = after_setup()
    s[Y]["parias"], s[Y]["pp"], s[Y]["seals"] = 1, 5, 0
    yusuf_step(s, {"kind": "yusuf", "role": B, "step": "tribute", "owed": 3})
    assert s[Y]["parias"] == 0 and s[Y]["pp"] == 3


@pytest.mark.rule("sabika:solo-mode")
def test_whole_solo_games_run_yusuf_on_his_own() -> None:
    for seed in (1, 2, 3):
        s = solo(seed)
        while sabika.result(s) is None:
            assert sabika.active(s) == [B]
            s = sabika.apply(s, B, sabika.choose(s, B, seed))
        result = sabika.result(s)
        assert result is not None and set(result["score"]) == {B, Y}
        assert sum(1 for e in s["log"] if e["text"].startswith("Yusuf reveals a Worker tile")) == 20
