"""Views against a plain reading of the state, and views that share nothing with it.

Issue 13 made ``view`` several times cheaper: printed faces tabled once, one pass over the
location index, log lines filtered from the last view's, the victory-point breakdown and the
Out of Supply markers remembered by what they are computed from. These tests read the state
the slow, obvious way (block by block, line by line) along random games, every optional rule
on and off, and compare; and they check that a caller may edit a view (or keep it) without
touching the state or another view, which is what lets a front end skip a copy.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import engine.granada as g
from engine.api import visible_log
from engine.granada import state as st
from engine.granada import supply, victory
from tests.engine.granada.core_helpers import D, new_game, random_states

ROLES = ("christian", "muslim", None)


def states(seed: int, options: dict[str, Any], steps: int = 1500) -> list[dict[str, Any]]:
    return random_states(seed, options, steps)


def knows(state: dict[str, Any], bid: str, role: str | None) -> bool:
    """Whether ``role`` may see the identity of a block: his own, a fleet or a grey block
    (always face up), a revealed one, every one once the game is over."""
    b = D.blocks[bid]
    return (st.owner(bid) == role or b.fleet or b.colour == "grey"
            or bool(state["blocks"][bid]["revealed"]) or state.get("result") is not None)


def expected_stack(state: dict[str, Any], ids: list[str], role: str | None) -> tuple[list[str], list[tuple]]:
    """The ids ``role`` sees of some blocks, and what he sees of the others."""
    seen = sorted(b for b in ids if knows(state, b, role))
    hidden = sorted((D.blocks[b].colour, state["blocks"][b]["inside"], state["blocks"][b]["moved"])
                    for b in ids if not knows(state, b, role))
    return seen, hidden


def check_stack(state: dict[str, Any], shown: list[dict[str, Any]], ids: list[str], role: str | None,
                side: str, place: str) -> None:
    seen, hidden = expected_stack(state, ids, role)
    visible = [x for x in shown if "id" in x]
    opaque = [x for x in shown if "id" not in x]
    assert [x["id"] for x in visible] == seen
    for x in visible:
        rec = state["blocks"][x["id"]]
        b = D.blocks[x["id"]]
        assert (x["side"], x["colour"], x["shields"], x["fleet"]) == (st.owner(x["id"]), b.colour, b.shields, b.fleet)
        assert (x["inside"], x["revealed"], x["moved"], x["fresh"]) == (
            rec["inside"], rec["revealed"], rec["moved"], rec["fresh"])
    assert sorted((x["colour"], x["inside"], x["moved"]) for x in opaque) == hidden
    assert [x["key"] for x in opaque] == [f"{side}:{place}:{n}" for n in range(1, len(opaque) + 1)]
    assert shown == visible + opaque, "the visible blocks first, then the concealed ones"


def check_view(state: dict[str, Any], role: str | None, v: dict[str, Any]) -> None:
    where: dict[str, list[str]] = {}
    for bid, rec in state["blocks"].items():
        where.setdefault(rec["loc"], []).append(bid)
    disks = {loc: [d for d in st.DISKS if state["disks"].get(d) == loc] for loc in D.locations}
    assert list(v["locations"]) == list(D.locations)
    contested = []
    for loc, L in D.locations.items():
        entry = v["locations"][loc]
        assert entry["control"] == state["control"].get(loc)
        assert ("castle" in entry) == L.castle
        if L.castle:
            assert entry["castle"] == state["castle"].get(loc)
        assert entry["disks"] == disks[loc]
        here = where.get(loc, [])
        for side in st.SIDES:
            check_stack(state, entry["blocks"][side], [b for b in here if st.owner(b) == side], role, side, loc)
        chris = [b for b in here if st.owner(b) == "christian"]
        mus = [b for b in here if st.owner(b) == "muslim"]
        if chris and not mus and not disks[loc] and loc == "granada" and where.get("palace"):
            contested.append({"loc": loc, "siege": False})          # 10.10
        elif chris and (mus or disks[loc]):
            inside = any(state["blocks"][b]["inside"] for b in here)
            contested.append({"loc": loc, "siege": inside or (bool(disks[loc]) and not mus)})
    assert v["contested"] == contested
    for zone in D.sea_zones:
        afloat = where.get(f"sea:{zone}", [])
        fleets = [b for b in afloat if D.blocks[b].fleet]
        assert [f["id"] for f in v["seas"][zone]["fleets"]] == fleets
        for f in v["seas"][zone]["fleets"]:
            aboard = [b for b in afloat if state["blocks"][b]["carried_by"] == f["id"]]
            check_stack(state, f["carrying"], aboard, role, st.owner(f["id"]), f"{zone}:{f['id']}")
    over = state.get("result") is not None
    for side in st.SIDES:
        recruits = where.get(f"recruit:{side}", [])
        if role == side or over:
            assert [x["id"] for x in v["boxes"]["recruit"][side]] == recruits
        else:
            assert v["boxes"]["recruit"][side] == {"count": len(recruits)}
        assert v["boxes"]["bag"][side] == len(where.get(f"bag:{side}", []))
    for box in ("palace", "boabdil_box", "eliminated", "captured"):
        assert [x["id"] for x in v["boxes"][box]] == where.get(box, [])
    assert [x["id"] for x in v["boxes"]["aside"]] == [b for b in where.get("aside", []) if not D.blocks[b].optional]
    assert v["log"] == visible_log(state["log"], role)
    score = victory.score(state)
    assert {s: v["vp"][s]["points"] for s in st.SIDES} == score
    if "out_of_supply" in v["optional"]["rules"]:
        assert v["optional"]["out_of_supply"] == supply._out_of_supply(state, st.by_location(state))
    assert v["result"] == state.get("result")


@pytest.mark.rule("3.1", "3.3", "2.2", "11.8")
@pytest.mark.parametrize("seed,options", [(1, {}), (4, {}), (5, {"all": True}),
                                          (8, {"out_of_supply": True, "mercenaries": "muslim"})])
def test_views_along_random_games_read_the_state_as_it_is(seed: int, options: dict[str, Any]) -> None:
    """Every 5th state of a random game, each role and a spectator: the map, the fleets, the
    boxes, the log, the victory points and the supply markers of the view are what a plain
    reading of the state gives (the views in game order, as a front end asks for them, so the
    log and the remembered answers are reused from view to view)."""
    game = states(seed, options)
    assert len(game) > 200
    for state in game[::5] + [game[-1]]:
        for role in ROLES:
            check_view(state, role, g.view(state, role))


def containers(value: Any, out: dict[int, str], path: str = "") -> dict[int, str]:
    """Every list and dict inside ``value`` by id, with where it is."""
    if isinstance(value, (dict, list)):
        out[id(value)] = path
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for k, v in items:
            containers(v, out, f"{path}/{k}")
    return out


def scribble(value: Any) -> None:
    """Edit every list and dict of a view in place, as a careless front end might."""
    if isinstance(value, dict):
        for v in list(value.values()):
            scribble(v)
        value["scribbled"] = True
    elif isinstance(value, list):
        for v in value:
            scribble(v)
        value.append("scribbled")


@pytest.mark.parametrize("seed,options", [(2, {}), (6, {"all": True})])
def test_a_view_shares_no_list_or_dict_with_the_state_or_another_view(seed: int, options: dict[str, Any]) -> None:
    """A front end may keep or edit a view (docs/architecture.md: views are plain values): editing every
    part of it changes neither the state nor the next view of that state."""
    game = states(seed, options, steps=2000)
    assert g.result(game[-1]) is not None
    for state in game[::40] + [game[-1]]:
        inside = containers(state, {})
        for role in ROLES:
            first = g.view(state, role)
            second = g.view(state, role)
            assert first == second
            shared = [path for key, path in containers(first, {}).items() if key in inside]
            assert not shared, f"the view shares {shared[:3]} with the state"
            between = set(containers(first, {})) & set(containers(second, {}))
            assert not between, "two views share a list or dict"
            before = json.dumps(state, sort_keys=True)
            scribble(first)
            assert json.dumps(state, sort_keys=True) == before
            assert g.view(state, role) == second


@pytest.mark.rule("3.3")
def test_log_lines_follow_the_state_whatever_view_came_before() -> None:
    """The log of a view is the state's, line for line, whatever was viewed before: a later
    state of the same game, an earlier one, another branch, a copy read back from storage, a
    state whose log a test edited in place."""
    game = states(3, {}, steps=400)
    late, early = game[-1], game[len(game) // 2]
    for role in ROLES:
        assert g.view(late, role)["log"] == visible_log(late["log"], role)
        assert g.view(early, role)["log"] == visible_log(early["log"], role)
    # a branch from the early state: another order, the same log up to it
    role = next(r for r in g.active(early) if g.legal_actions(early, r))
    branches = [g.apply(early, role, a) for a in g.legal_actions(early, role)[:3]]
    for branch in [*branches, json.loads(json.dumps(late))]:
        for reader in ROLES:
            assert g.view(branch, reader)["log"] == visible_log(branch["log"], reader)
    # lines edited in place after a view (a test arranging a position does this)
    s = json.loads(json.dumps(early))
    for reader in ROLES:
        g.view(s, reader)
    st.log_private(s, "muslim", "A line for the Muslim player only.")
    st.log(s, "A public line.")
    assert g.view(s, "muslim")["log"][-2:] == [
        {"text": "A line for the Muslim player only.", "to": ["muslim"]}, {"text": "A public line."}]
    assert g.view(s, "christian")["log"][-1] == {"text": "A public line."}
    del s["log"][-2:]
    s["log"][0] = {"text": "Rewritten.", "to": ["christian"]}
    for reader in ROLES:
        assert g.view(s, reader)["log"] == visible_log(s["log"], reader)


@pytest.mark.rule("3.3")
def test_log_lines_of_games_viewed_in_turn() -> None:
    """A server draws the views of many games in turn (each role's log lines are remembered
    per game): every view's log is its own game's, line for line, however the views of the
    games interleave, and two games that share their first lines still read their own."""
    games = [states(seed, {}, steps=300) for seed in (4, 5, 6)]
    twin = json.loads(json.dumps(games[0][150]))  # the first game's position, read back
    order = random.Random(9)
    for step in range(0, 300, 7):
        for game in order.sample(games, len(games)):
            state = game[min(step, len(game) - 1)]
            for role in order.sample(ROLES, len(ROLES)):
                assert g.view(state, role)["log"] == visible_log(state["log"], role)
        assert g.view(twin, "muslim")["log"] == visible_log(twin["log"], "muslim")


@pytest.mark.rule("2.2", "11.8")
def test_points_and_supply_markers_follow_control_changed_in_place() -> None:
    """The breakdown of the victory points and the Out of Supply markers are remembered by
    the control pieces and block locations they were computed from: a position edited in
    place between two views is read afresh."""
    s = new_game(1)
    s["options"] = {"out_of_supply": True}
    before = g.view(s, None)
    castle = next(loc for loc, L in D.locations.items() if L.castle and s["castle"].get(loc) == "muslim")
    s["castle"][castle] = "christian"
    s["control"][castle] = "christian"
    after = g.view(s, None)
    assert after["vp"]["christian"]["castles"] == before["vp"]["christian"]["castles"] + 1
    assert {side: after["vp"][side]["points"] for side in st.SIDES} == victory.score(s)
    for loc in D.locations:          # every location Christian: Muslim stacks are cut off
        s["control"][loc] = "christian"
    cut = g.view(s, None)["optional"]["out_of_supply"]
    assert cut == supply._out_of_supply(s, st.by_location(s))
    assert cut["muslim"], "Muslim stacks on Christian ground with no line to their territory"
    assert cut != after["optional"]["out_of_supply"]


@pytest.mark.rule("3.1", "3.3")
def test_views_of_games_viewed_in_turn_are_those_drawn_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """The drawings of the map and of the boxes are remembered by what they read, for every
    game at once, in two generations (views._Memo): views of several games drawn in turn,
    through memos so small that their generations turn over every view or two, are the views
    drawn with nothing remembered, and each still reads its own state; a position edited in
    place between two views (a block revealed) is drawn afresh."""
    from engine.granada import views

    games = [states(seed, {}, steps=200) for seed in (3, 7)]
    order = random.Random(11)
    seen = []
    monkeypatch.setattr(views, "_DRAWN", views._Memo(30))
    monkeypatch.setattr(views, "_BOXES", views._Memo(4))
    for step in range(0, 200, 9):
        for game in order.sample(games, len(games)):
            state = game[min(step, len(game) - 1)]
            for role in order.sample(ROLES, len(ROLES)):
                seen.append((state, role, json.dumps(g.view(state, role))))
    for state, role, text in seen:
        monkeypatch.setattr(views, "_DRAWN", views._Memo(30))
        monkeypatch.setattr(views, "_BOXES", views._Memo(4))
        assert json.dumps(g.view(state, role)) == text
        check_view(state, role, json.loads(text))
    monkeypatch.setattr(views, "_DRAWN", views._Memo(8192))
    s = json.loads(json.dumps(games[0][120]))
    hidden = next(bid for bid, rec in s["blocks"].items()
                  if rec["loc"] in D.locations and st.owner(bid) == "muslim" and not rec["revealed"]
                  and D.blocks[bid].colour != "grey")
    before = g.view(s, "christian")
    assert hidden not in json.dumps(before["locations"])
    s["blocks"][hidden]["revealed"] = True
    after = g.view(s, "christian")
    assert hidden in json.dumps(after["locations"]), "drawn afresh: the block is face up now"
    check_view(s, "christian", after)
