"""Advanced mode: the Events (and the harder solo settings)."""

from __future__ import annotations

import json

import pytest

import engine.sabika as sabika
from engine.sabika import rules
from engine.sabika.data import EVENTS
from engine.sabika.inner import carve_cost
from engine.sabika.middle import route_cost
from engine.sabika.outer import buy_price
from engine.sabika.state import event_is
from engine.sabika.turn import move_cost, secondary_cost
from engine.sabika.yusuf import yusuf_step
from tests.engine.sabika.helpers import blank, step, turn_of, work

B, Y = "blue", "yellow"


def with_event(effect: str, n: int = 2) -> dict:  # type: ignore[type-arg]
    s = blank(n)
    s["event"] = next(e for e, d in EVENTS.items() if d["effect"] == effect)
    return s


@pytest.mark.rule("sabika:advanced-mode")
@pytest.mark.parametrize(("mode", "positives"), [("mixed", 1), ("negative", 0)])
def test_three_face_down_events_one_positive_and_two_negative_or_three_negative(mode: str, positives: int) -> None:
    for seed in range(1, 15):
        s = sabika.setup(seed, {"players": 3, "events": mode})
        assert len(s["event_stack"]) == 3 and s["event"] is None
        assert sum(EVENTS[e]["polarity"] == "positive" for e in s["event_stack"]) == positives
        v = sabika.view(s, "blue")
        assert v["events"] == {"mode": mode, "active": None, "face_down": 3, "text": None}
        assert not any(f'"{e}"' in json.dumps(v) for e in s["event_stack"])
        r = sabika.redeal(s, "blue", seed)
        assert sum(EVENTS[e]["polarity"] == "positive" for e in r["event_stack"]) == positives
        assert sabika.view(r, "blue") == v
    assert sabika.setup(1, {"players": 2})["event_stack"] == []
    with pytest.raises(ValueError, match="events"):
        sabika.setup(1, {"players": 2, "events": "all"})


@pytest.mark.rule("sabika:advanced-mode", "sabika:narrator")
def test_the_narrator_changes_the_active_event_on_spaces_2_3_and_4() -> None:
    s = blank(2)
    s["event_stack"] = ["ev6", "ev13", "ev2"]  # ev2 on top
    s["events"] = "mixed"
    seen = []
    for narrator in range(1, 6):
        s["narrator"] = narrator
        s["stack"], s["steps"], s["phase"] = [], ["narrator", "tribute", "event"], "end"
        rules._advance(s)
        while s["stack"]:
            r = s["stack"][-1]["role"]
            s = rules.apply(s, r, rules.actions(s, r)[0])
        seen.append(s["event"])
    assert seen == ["ev2", "ev13", "ev6", "ev6", "ev6"]
    assert any(e["text"] == f"An Event (negative) is now active: {EVENTS['ev13']['text']}" for e in s["log"])


@pytest.mark.rule("sabika:advanced-mode")
def test_event_effects_change_the_numbers_of_the_actions() -> None:
    s = with_event("quarry_plus")
    turn_of(s, B)
    s["players"][B]["stores"][0]["tiles"] = ["s24", "s23"]
    s = work(s, B, "builder1", 0)
    assert s["stack"][-4:] == [{"kind": "pickmat", "role": B, "of": ["gypsum", "wood"]}] * 4
    for effect, left in (("market_plus", 3), ("lean_market", 1)):
        s = with_event(effect)
        turn_of(s, B)
        s = work(s, B, "builder1", 2)
        assert s["stack"][-1]["left"] == left
    s = blank()
    base = route_cost(s, B, "genoa")
    assert route_cost(with_event("closed_ports"), B, "genoa") == base + 1
    assert route_cost(with_event("export_discount"), B, "genoa") == base - 1
    p = s["players"][B]
    assert carve_cost(p, "red", "costly_carving") == 3 and carve_cost(p, "grey", "patron") == 3
    s = with_event("dear_materials")
    assert buy_price(s, B, "marble") == 3 and buy_price(s, B, "raw") == 2
    s = with_event("toll")
    assert secondary_cost(s, B, "marble", "middle") == 3
    s = with_event("long_roads")
    s["players"][B]["workers"]["builder1"]["at"] = 0
    assert move_cost(s, B, "builder1", 2) == 1
    s = with_event("crowds")
    s["players"][Y]["workers"]["builder1"]["at"] = 2
    assert move_cost(s, B, "builder2", 2) == 2


@pytest.mark.rule("sabika:advanced-mode")
def test_event_effects_on_rest_major_constructions_and_tribute() -> None:
    s = with_event("weary")
    turn_of(s, B)
    s = step(s, B, "worker", worker="poet")
    s = step(s, B, "rest")
    assert s["players"][B]["dinars"] == 12
    s = with_event("sultan_grace")
    s["stack"] = [{"kind": "scaffold", "role": B, "mode": "major", "used": ["gypsum"], "base_of": ["gypsum"],
                   "extra_of": [], "extras": 0}]
    s = step(s, B, "done")
    assert s["players"][B]["pp"] == 5 + 1 + 2
    s = with_event("heavy_tribute")
    s["narrator"], s["stack"], s["steps"], s["phase"] = 2, [], ["tribute"], "end"
    rules._advance(s)
    assert [d["total"] for d in s["stack"]] == [3, 3]  # 2 + 1 for both players


@pytest.mark.rule("sabika:difficulty")
def test_yusuf_ignores_events_and_the_harder_settings_combine() -> None:
    s = sabika.setup(4, {"players": 1, "events": "negative", "yusuf_pp": 10})
    assert s["yusuf"]["pp"] == 10 and len(s["event_stack"]) == 3
    s["event"] = next(e for e, d in EVENTS.items() if d["effect"] == "heavy_tribute")
    assert not event_is(s, "yusuf", "heavy_tribute") and event_is(s, B, "heavy_tribute")
    s["yusuf"]["parias"] = 5
    yusuf_step(s, {"kind": "yusuf", "role": B, "step": "tribute", "owed": 2})
    assert s["yusuf"]["parias"] == 3  # the usual tribute, not the Event's
