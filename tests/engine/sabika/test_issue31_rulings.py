"""The review's rule findings of issue 31: tribute and Rest at 0 PP, two-branch bonuses, and
Yusuf's Minor Construction, Poem colours and tribute (RULINGS.md quotes the book for each)."""

from __future__ import annotations

from typing import Any

import pytest

import engine.sabika as sabika
from engine.sabika import rules
from engine.sabika.data import DATA, MINORS, POEMS
from engine.sabika.names import describe_bonus, describe_effect
from engine.sabika.scoring import wish_count, wish_points
from engine.sabika.state import push_bonus, ring
from engine.sabika.yusuf import yusuf_major_poem_points, yusuf_step
from tests.engine.sabika.helpers import blank, kinds, step, turn_of
from tests.engine.sabika.test_solo import after_setup, yusuf_card

B = "blue"
Y = "yusuf"


def tribute_of(s: dict[str, Any], owed_space: int = 1) -> dict[str, Any]:
    """Run the narrator and tribute steps from Narrator space ``owed_space`` (tribute 2 at space 2)."""
    s["narrator"] = owed_space
    s["wishes"] = {"2": "A1", "4": "C1", "6": "B2"}  # A1 scores nothing here
    s["stack"] = []
    s["phase"] = "end"
    s["steps"] = ["narrator", "tribute"]
    rules._advance(s)
    s["stack"] = [d for d in s["stack"] if d["role"] == B]
    return s


@pytest.mark.rule("sabika:narrator", "sabika:parias")
def test_at_0_pp_the_tribute_falls_on_the_other_means_and_is_never_paid_by_pp() -> None:
    s = blank()
    s["players"][B].update(parias=0, dinars=2, seals=0, pp=0)
    s = tribute_of(s)
    assert [a["means"] for a in rules.actions(s, B)] == ["dinars"]
    s = step(s, B, "paria", means="dinars")
    p = s["players"][B]
    assert (p["dinars"], p["pp"]) == (0, 0) and kinds(s) != "tribute"
    assert any(e["text"] == "Blue pays the tribute of 2 Parias: 1 by Dinars, 1 unpaid (no Paria, Dinars, Seal or "
               "PP left to pay with)." for e in s["log"])


@pytest.mark.rule("sabika:narrator", "sabika:parias")
def test_a_player_with_no_means_at_all_pays_nothing_and_is_not_asked() -> None:
    s = blank(dinars=1)
    s["players"][B].update(parias=0, seals=0, pp=0)
    s = tribute_of(s)
    assert not any(d["kind"] == "tribute" for d in s["stack"])
    assert any(e["text"].startswith("Blue pays the tribute of 2 Parias: 2 unpaid") for e in s["log"])


@pytest.mark.rule("sabika:narrator", "sabika:parias")
def test_pp_pays_the_tribute_while_there_is_pp() -> None:
    s = blank(dinars=0)
    s["players"][B].update(parias=0, seals=0, pp=1)
    s = tribute_of(s)
    assert [a["means"] for a in rules.actions(s, B)] == ["pp"]
    s = step(s, B, "paria", means="pp")
    assert s["players"][B]["pp"] == 0
    assert any(e["text"].startswith("Blue pays the tribute of 2 Parias: 1 by PP, 1 unpaid") for e in s["log"])


@pytest.mark.rule("sabika:phases-of-the-game")
def test_at_0_pp_rest_is_not_offered_while_a_worker_can_move() -> None:
    s = blank()
    s["players"][B]["pp"] = 0
    s["players"][B]["workers"]["poet"]["at"] = 2
    turn_of(s, B)
    s = step(s, B, "worker", worker="poet")
    assert "rest" not in [a["type"] for a in rules.actions(s, B)]
    s["players"][B]["pp"] = 1
    assert "rest" in [a["type"] for a in rules.actions(s, B)]


@pytest.mark.rule("sabika:phases-of-the-game")
def test_at_0_pp_a_player_whose_workers_cannot_move_rests_without_losing_pp() -> None:
    s = blank(dinars=0)
    p = s["players"][B]
    p["pp"] = 0
    for w in p["workers"].values():
        w["up"] = False
    p["workers"]["poet"].update(up=True, at=2)
    squares = ring(s["n"], "inner")
    s["sultan"]["inner"] = [sq for sq in squares for _ in range(3)]  # every square crowded: nowhere to go
    turn_of(s, B)
    s = step(s, B, "worker", worker="poet")
    assert [a["type"] for a in rules.actions(s, B)] == ["rest", "back"]
    s = step(s, B, "rest")
    assert (s["players"][B]["dinars"], s["players"][B]["pp"]) == (3, 0)
    assert s["log"][-1]["text"] == "Blue has no PP to lose (none of his Workers could move)."


@pytest.mark.rule("sabika:phases-of-the-game")
def test_a_blue_rest_poem_lets_a_player_at_0_pp_rest() -> None:
    s = blank()
    p = s["players"][B]
    p["pp"] = 0
    p["blue"] = [next(c for c, d in POEMS.items() if d["blue"] == "rest")]
    p["workers"]["poet"]["at"] = 2
    turn_of(s, B)
    s = step(s, B, "worker", worker="poet")
    assert "rest" in [a["type"] for a in rules.actions(s, B)]


@pytest.mark.rule("sabika:minor-construction-action", "sabika:export-action")
def test_a_two_branch_bonus_offers_only_the_branch_that_can_be_carried_out() -> None:
    s = blank()
    s["stack"] = []
    s["phase"] = "actions"
    s["turn"] = B
    push_bonus(s, B, DATA["balances"]["bonus"]["green"], "green Architectural Balance")
    s["stack"].insert(0, {"kind": "turn", "role": B})  # the turn goes on afterwards
    rules._advance(s)
    assert kinds(s) == "or"
    labels = [a["label"] for a in rules.actions(s, B)]
    assert labels == ["1 Raw Material, 1 Good"]  # no Good to export: the Export branch is not offered


@pytest.mark.rule("sabika:minor-construction-action", "sabika:export-action")
def test_a_two_branch_bonus_with_no_possible_branch_is_lost_and_said_so() -> None:
    s = blank()
    s["stack"] = [{"kind": "turn", "role": B}]
    s["phase"] = "actions"
    s["turn"] = B
    for sq in s["raw_squares"]:
        s["raw_squares"][sq] = None
    push_bonus(s, B, DATA["balances"]["bonus"]["green"], "green Architectural Balance")
    rules._advance(s)
    assert kinds(s) == "turn"
    assert "can carry out no part of the bonus" in s["log"][-1]["text"]


@pytest.mark.rule("sabika:minor-construction-action")
def test_the_bonus_labels_read_an_export_and_a_carve_poem() -> None:
    green = describe_bonus(DATA["balances"]["bonus"]["green"])
    blue = describe_bonus(DATA["balances"]["bonus"]["blue"])
    assert green.endswith("OR an Export Action") and blue.endswith("OR a Carve Poem Action")
    assert describe_effect({"k": "action", "a": "artisanal"}) == "an Artisanal Labour Action"


@pytest.mark.rule("sabika:solo-minor-construction-action")
def test_yusuf_takes_the_lowest_numbered_desired_minor_not_the_rightmost() -> None:
    s = after_setup()
    s["wishes"] = {"2": "A3", "4": "B1", "6": "C1"}  # Doors and Windows
    windows = sorted((c for c, d in MINORS.items() if d["type"] == "window"), key=lambda c: MINORS[c]["num"])
    garden = next(c for c, d in MINORS.items() if d["type"] == "garden")
    s["minor_display"] = [garden, windows[0], garden, windows[5]]
    s = yusuf_card(s, "builder", "Y4")
    assert s[Y]["minors"] == [windows[0]] and s["minor_display"][1] is None


@pytest.mark.rule("sabika:solo-end-of-game", "sabika:the-sultans-wishes")
def test_yusufs_minor_poems_count_as_blue_or_red_only_for_major_poem_a3() -> None:
    s = after_setup()
    s[Y].update(poems=["p1", "p2"], grey=["A3"])
    assert wish_count(s, Y, "blue_poem") == 0 and wish_count(s, Y, "red_poem") == 0
    assert wish_points(s, Y, "C1") == 0 and wish_points(s, Y, "C2") == 0
    assert wish_count(s, Y, "poem") == 3
    assert yusuf_major_poem_points(s, "A1") == 0 and yusuf_major_poem_points(s, "A2") == 0
    assert yusuf_major_poem_points(s, "A3") == 5


@pytest.mark.rule("sabika:solo-end-of-game", "sabika:narrator")
def test_yusuf_pays_the_tribute_in_the_usual_manner_track_then_seals_then_pp() -> None:
    s = after_setup()
    s[Y].update(parias=1, seals=1, pp=5)
    yusuf_step(s, {"kind": "yusuf", "role": B, "step": "tribute", "owed": 3})
    assert (s[Y]["parias"], s[Y]["seals"], s[Y]["pp"]) == (0, 0, 4)
    assert s["log"][-1]["text"] == "Yusuf pays the tribute of 3 Parias: 1 by Paria track, 1 by Seals, 1 by PP."
    s[Y].update(parias=0, seals=0, pp=1)
    yusuf_step(s, {"kind": "yusuf", "role": B, "step": "tribute", "owed": 2})
    assert s[Y]["pp"] == 0 and "1 unpaid" in s["log"][-1]["text"]


def test_rules_version_says_what_changed() -> None:
    assert sabika.RULES_VERSION >= 2 and "tribute" in sabika.CHANGELOG[2]
    assert "Master Builders" in sabika.CHANGELOG[3]
