"""Components and setup for 2 to 4 players."""

from __future__ import annotations

import json

import pytest

import engine.sabika as sabika
from engine.sabika import data, rules
from engine.sabika.parias import paria_leader
from engine.sabika.setup import new_state
from engine.sabika.state import WORKERS, capacity, order, ring
from tests.engine.sabika.helpers import started


@pytest.mark.rule("sabika:components")
def test_component_counts_of_the_box_are_checked_at_load() -> None:
    assert len(data.MINORS) == 36 and len(data.POEMS) == 22 and len(data.MAJOR_POEMS) == 20
    assert len(data.TRADE) == 8 and len(data.BALANCES) == 4
    assert len(data.STOREHOUSES) == 24 and len(data.MAJORS) == 21 and len(data.CITY_TILES) == 12
    assert len(data.WISHES) == 9 and len(data.STARTING) == 10 and len(data.CITIES) == 9
    assert 36 + 4 + 22 + 20 + 8 == 90  # the 90 cards


@pytest.mark.rule("sabika:components")
@pytest.mark.parametrize(("path", "change", "message"), [
    (("minors", "cards"), lambda v: v[:-1], "36 Minor Construction"),
    (("majors", "tiles"), lambda v: v[:-1], "21 Major Constructions"),
    (("wishes", "tiles"), lambda v: v[:-1], "9 Sultan's Wishes"),
    (("storehouses", "tiles"), lambda v: v[:-1], "24 Storehouses"),
])
def test_a_file_that_breaks_a_stated_count_does_not_load(tmp_path, path, change, message) -> None:  # type: ignore[no-untyped-def]
    raw = json.loads(data.DATA_FILE.read_text(encoding="utf-8"))
    raw[path[0]][path[1]] = change(raw[path[0]][path[1]])
    bad = tmp_path / "sabika.json"
    bad.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(data.SabikaDataError, match=message):
        data.load(bad)


@pytest.mark.rule("sabika:components")
def test_every_section_is_marked_reconstructed_with_what_fixed_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    raw = json.loads(data.DATA_FILE.read_text(encoding="utf-8"))
    assert "RECONSTRUCTED" in raw["note"]
    del raw["map"]["fixed_by"]
    bad = tmp_path / "sabika.json"
    bad.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(data.SabikaDataError, match="fixed_by"):
        data.load(bad)


@pytest.mark.rule("sabika:game-setup")
def test_roles_follow_the_players_option() -> None:
    assert sabika.roles({}) == ["blue", "yellow"]
    assert sabika.roles({"players": 4}) == ["blue", "yellow", "pink", "green"]
    assert sabika.OPTIONS["players"]["choices"] == [1, 2, 3, 4]
    assert sabika.roles({"players": 1}) == ["blue"]  # Yusuf is never a role
    with pytest.raises(ValueError, match="players"):
        sabika.setup(1, {"players": 5})
    with pytest.raises(ValueError, match="unknown option"):
        sabika.setup(1, {"colour": "red"})


@pytest.mark.rule("sabika:rondel-setup")
@pytest.mark.parametrize("n", [2, 3, 4])
def test_rondel_setup_squares_sultans_workers_raw_materials_and_marble(n: int) -> None:
    s = new_state(3, n)
    four = n == 4
    assert len(ring(n, "outer")) == 8 + four and len(ring(n, "inner")) == 4 + four  # covered squares
    sultans = sum(len(v) for v in s["sultan"].values())
    assert sultans == {2: 5, 3: 3, 4: 0}[n]
    assert len(s["raw_squares"]) == 4 + four and all(t is not None for t in s["raw_squares"].values())
    assert sum(s["bag"].values()) == 24 - len(s["raw_squares"])
    assert all(s["marble_squares"].values()) and len(s["marble_squares"]) == 2 + four


@pytest.mark.rule("sabika:main-board-setup")
@pytest.mark.parametrize("n", [2, 3, 4])
def test_main_board_setup(n: int) -> None:
    s = new_state(5, n)
    assert s["narrator"] == 1 and s["round"] == 1
    assert sorted(s["wishes"]) == ["2", "4", "6"] and sorted(w[0] for w in s["wishes"].values()) == ["A", "B", "C"]
    assert len(s["majors"]["1"]) == 9 and len(s["majors"]["2"]) == (9 if n == 2 else 12)
    assert all(len(v) == 2 for v in s["store_display"].values()) and all(len(v) == 10 for v in s["store_piles"].values())
    assert len(s["minor_display"]) == 4 and len(s["minor_deck"]) == 32
    assert len(s["poem_display"]) == {2: 3, 3: 4, 4: 5}[n]
    letters = [c[0] for c in s["major_poems"]]
    assert len(letters) == 2 * n and len(set(letters)) == len(letters)  # each Major Poem a different letter
    tiles = [c["tile"] for c in s["cities"].values()]
    assert len(set(tiles)) == 9 and all(c["seal"] for c in s["cities"].values())
    assert s["trade"] in data.TRADE


@pytest.mark.rule("sabika:player-setup")
def test_player_setup_workshop_workers_tokens_ships_and_two_starting_tiles() -> None:
    s = new_state(2, 3)
    balances = set()
    for p in s["players"].values():
        assert [capacity(p, i) for i in range(4)] == [1, 1, 1, 1]
        assert p["workers"] == {w: {"at": None, "up": True} for w in WORKERS}
        assert (p["pp"], p["parias"], p["favour"], p["ships"]) == (5, 0, 0, 9)
        assert len(p["offer"]) == 2 and p["row"][0] in data.BALANCES
        balances.add(p["row"][0])
    assert len(balances) == 3
    assert sorted(rules.active(s)) == sorted(s["roles"])  # simultaneous secret choice


@pytest.mark.rule("sabika:player-setup")
def test_starting_tiles_are_secret_until_all_chose_then_the_highest_starts() -> None:
    s = sabika.setup(11, {"players": 3})
    blue_offer = s["players"]["blue"]["offer"]
    s = sabika.apply(s, "blue", sabika.actions(s, "blue")[1])
    v = sabika.view(s, "yellow")
    assert v["players"]["blue"]["start_tile"] is None and "offer" not in v["players"]["blue"]
    assert v["players"]["blue"]["start_tile_chosen"] is True
    assert not any(t in json.dumps(v["log"]) for t in blue_offer)
    assert sabika.actions(s, "blue") == []
    s = sabika.apply(s, "yellow", sabika.actions(s, "yellow")[0])
    s = sabika.apply(s, "pink", sabika.actions(s, "pink")[0])
    chosen = {r: s["players"][r]["start_tile"] for r in s["roles"]}
    best = max(chosen, key=lambda r: data.STARTING[chosen[r]]["num"])
    assert s["start"] == best and s["phase"] == "actions"
    assert sabika.view(s, "yellow")["players"]["blue"]["start_tile"] == chosen["blue"]
    seats = order(s)
    assert paria_leader(s) == seats[0]  # starting player's Paria token on top of the pile


@pytest.mark.rule("sabika:player-setup")
def test_starting_dinars_follow_turn_order() -> None:
    s = new_state(11, 4)
    for r in s["roles"]:
        s["players"][r]["offer"] = [s["players"][r]["offer"][0]] * 2
    bonus_dinars = {}
    for r in s["roles"]:
        tile = s["players"][r]["offer"][0]
        bonus_dinars[r] = sum(e["n"] for e in data.STARTING[tile]["bonus"] if e["k"] == "dinars")
        s = rules.apply(s, r, rules.actions(s, r)[0])
    while s["stack"][-1]["kind"] != "turn":  # the other bonuses (materials...) are settled in turn order
        r = s["stack"][-1]["role"]
        s = rules.apply(s, r, rules.actions(s, r)[0])
    for pos, r in enumerate(order(s)):
        assert s["players"][r]["dinars"] == [3, 4, 5, 6][pos] + bonus_dinars[r]


@pytest.mark.rule("sabika:game-setup")
def test_setup_is_deterministic_in_the_seed() -> None:
    assert json.dumps(new_state(9, 3), sort_keys=True) == json.dumps(new_state(9, 3), sort_keys=True)
    assert new_state(9, 3)["minor_deck"] != new_state(10, 3)["minor_deck"]
    s = started(3, 9)
    assert s["phase"] == "actions" and s["stack"][-1] == {"kind": "turn", "role": s["start"]}
