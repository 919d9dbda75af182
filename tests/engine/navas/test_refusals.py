"""One source of legality: what a zone's menu lists is exactly what ``apply`` accepts, and a
refused order is told the rule that refuses it, never a generic or a wrong reason."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import RuleError
from engine.api import find_action
from engine.navas import actions, active, apply, result, setup
from engine.navas.data import CATALOG
from engine.navas.rules import actions_and_orders

from .helpers import deployed_except, do, turn_state

pytestmark = pytest.mark.rule("Available actions")


def zone_menus(seed: int, options: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    """States of a random legal game in which the player to act has a zone's menu open."""
    rng = random.Random(seed)
    s = setup(seed, options)
    found = []
    while result(s) is None and len(found) < limit:
        role = rng.choice(active(s))
        if s["pending"] is not None and s["pending"]["kind"] == "zone":
            found.append(s)
        legal = actions(s, role)
        zones = [a for a in legal if a["type"] == "zone"]
        pick = rng.choice(zones) if zones and rng.random() < 0.5 else rng.choice(legal)
        s = apply(s, role, pick)
    return found


def every_order(zone: str) -> list[dict[str, Any]]:
    """Any order one might type in a zone's menu, legal or not."""
    orders: list[dict[str, Any]] = [{"type": "move", "to": z} for z in CATALOG.zones]
    for kind in ("archers", "attack", "charge"):
        for target in CATALOG.zones:
            orders.append({"type": kind, "target": target})
            orders += [{"type": kind, "target": target, "card": c} for c in ("sancho", "lopez", "black-guard")]
    orders += [{"type": "rally", "unit": u} for u in CATALOG.unit_order]
    return orders


@pytest.mark.parametrize("options", [{}, {"advanced": True}])
def test_the_menu_is_exactly_what_apply_accepts_and_refusals_name_their_rule(options: dict[str, Any]) -> None:
    checked = 0
    for seed in (21, 22):
        for s in zone_menus(seed, options, 12):
            role = s["pending"]["role"]
            legal = actions(s, role)
            for order in every_order(s["pending"]["zone"]):
                listed = find_action(legal, order) is not None
                try:
                    apply(s, role, order)
                except RuleError as error:
                    assert not listed, (order, str(error))
                    assert str(error).startswith("Cannot "), (order, str(error))  # a reason, not a shrug
                    plain = {k: v for k, v in order.items() if k != "card"}
                    if "card" in order and find_action(legal, plain) is not None:
                        # the order is legal without the card: the card is the reason
                        name = CATALOG.specials[order["card"]].name
                        assert name in str(error) or "special card" in str(error), (order, str(error))
                        assert error.rule.startswith("Advanced variant"), (order, error.rule)
                    checked += 1
                else:
                    assert listed, order
    assert checked > 1000


@pytest.mark.rule("Rally", "Exhaustion")
def test_a_refused_rally_says_why() -> None:
    s = turn_state("muslim", "g4r2", deployed_except({}), powers={"m22": 1, "m23": 1})
    s["units"]["m23"]["exhausted"] = True
    s = do(s, "muslim", type="zone", zone="B3")
    with pytest.raises(RuleError, match="exhausted") as err:
        apply(s, "muslim", {"type": "rally", "unit": "m23"})
    assert err.value.rule == "Exhaustion"
    with pytest.raises(RuleError, match="already on its 2-Power face") as err:
        apply(s, "muslim", {"type": "rally", "unit": "m24"})
    assert err.value.rule == "Rally"
    with pytest.raises(RuleError, match="is not in B3"):
        apply(s, "muslim", {"type": "rally", "unit": "m01"})


@pytest.mark.parametrize("options", [{}, {"advanced": True}])
def test_the_orders_the_player_rates_are_those_each_zones_menu_lists(options: dict[str, Any]) -> None:
    """``actions_and_orders`` works out every zone's orders once for the turn menu and the
    built-in player: they must be what opening that zone offers, and the menu must be
    ``actions`` itself; outside the turn menu there are none."""
    menus = 0
    for seed in (31, 32):
        rng = random.Random(seed)
        s = setup(seed, options)
        while result(s) is None:
            role = rng.choice(active(s))
            legal, by_zone = actions_and_orders(s, role)
            assert legal == actions(s, role)
            opened = [a["zone"] for a in legal if a["type"] == "zone"]
            if by_zone is None:
                assert not opened
            else:
                menus += 1
                held = {s["units"][u]["zone"] for u in CATALOG.unit_order if CATALOG.units[u].side == role} - {None}
                assert set(by_zone) == held
                assert opened == [z for z in CATALOG.zones if by_zone.get(z)]
                for zone in held:
                    inside = actions(apply(s, role, {"type": "zone", "zone": zone}), role) if zone in opened else []
                    assert by_zone[zone] == [a for a in inside if a["type"] != "back"], zone
            s = apply(s, role, rng.choice(legal))
    assert menus > 50


@pytest.mark.rule("Attack limitations", "Exhaustion")
def test_an_order_refused_for_several_reasons_is_told_the_first_in_the_books_order() -> None:
    # The menu checks the turn's limits once per kind of action and the target once per zone;
    # a typed order still hears the reasons in one order: limits, target, units, reach.
    s = do(turn_state("muslim", "g4r2", deployed_except({})), "muslim", type="zone", zone="B3")
    for uid in ("m22", "m23", "m24"):  # B3's Jihad Volunteers, as if they had attacked
        s["units"][uid]["exhausted"] = True
    with pytest.raises(RuleError, match="not occupied by the opponent"):
        apply(s, "muslim", {"type": "attack", "target": "B2"})  # own zone, and every unit exhausted
    with pytest.raises(RuleError, match="every unit in B3 is exhausted"):
        apply(s, "muslim", {"type": "attack", "target": "C6"})  # out of reach too
    s["turn"]["combats"] = 2
    with pytest.raises(RuleError, match="at most 2 combat actions") as err:
        apply(s, "muslim", {"type": "attack", "target": "B2"})
    assert err.value.rule == "Attack limitations"


@pytest.mark.parametrize("options", [{}, {"advanced": True}])
def test_apply_accepts_exactly_the_turn_menu_though_it_works_out_only_the_zone_named(options: dict[str, Any]) -> None:
    """At the turn menu ``apply`` looks an order up among the named zone's entry or the
    card-wide ones (turn.menu_find): it must accept what the whole menu lists and nothing else."""
    tried = 0
    for seed in (41, 42):
        rng = random.Random(seed)
        s = setup(seed, options)
        while result(s) is None:
            role = rng.choice(active(s))
            legal = actions(s, role)
            if legal[-1]["type"] == "end_turn":
                typed: list[dict[str, Any]] = [{"type": "zone", "zone": z} for z in CATALOG.zones]
                typed += [{"type": "switch", "shield": b} for b in (False, True)]
                typed += [{"type": "special", "card": c} for c in CATALOG.specials]
                typed += [{"type": "end_turn"}, {"type": "zone"}, {"type": "zone", "zone": 7}, {"type": "fly"}]
                typed += [dict(a) for a in legal]  # labels and all, Peter II's moves included
                for order in typed:
                    listed = find_action(legal, order) is not None
                    try:
                        apply(s, role, order)
                    except RuleError:
                        assert not listed, order
                    else:
                        assert listed, order
                    tried += 1
            s = apply(s, role, rng.choice(legal))
    assert tried > 1000
