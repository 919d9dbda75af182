"""Typed orders: how a player's words are matched to legal actions (the service's,
bot/service/orders.py), and Granada's shorthand (its ``parse_order``, an engine capability)."""

from __future__ import annotations

import pytest

import engine
from bot.service import orders
from bot.service.orders import OrderRefused
from engine.api import RuleError

LEGAL = [{"type": "activate", "label": "Activate Alcalá la Real"}, {"type": "activate", "label": "Activate Alhama"},
         {"type": "take", "label": "Take Leon 2-shield crossbow (W41)"},
         {"type": "take_all", "label": "Take all 2 movable blocks"}, {"type": "step", "label": "Step to Valladolid"}]


def test_words_must_begin_words_of_the_label() -> None:
    assert orders.match(LEGAL, "alcala")["label"] == "Activate Alcalá la Real"  # accents and case aside
    assert orders.match(LEGAL, "take all")["type"] == "take_all"  # "all" does not fit "Valladolid"
    assert orders.match(LEGAL, "ACTIVATE  alhama!")["label"] == "Activate Alhama"
    with pytest.raises(OrderRefused, match="fits several orders"):
        orders.match(LEGAL, "activate")
    with pytest.raises(RuleError, match="not a legal order") as refused:
        orders.match(LEGAL, "sail away")
    assert "Step to Valladolid" in refused.value.allowed


@pytest.mark.rule("7.3.1")
def test_granada_move_along_a_path() -> None:
    assert orders.parts_of(engine.get("granada"), "move Loja > Moclín > Granada") == [
        "activate Loja", "?take all", "step to Moclín", "step to Granada", "?end this stack"]
    assert orders.parts_of(engine.get("granada"), "move Alcalá la Real to Moclín") == [
        "activate Alcalá la Real", "?take all", "step to Moclín", "?end this stack"]


@pytest.mark.rule("7.2", "8.2.2")
def test_granada_muster_and_deploy_shorthands() -> None:
    assert orders.parts_of(engine.get("granada"), "muster Zegries at Ronda") == [
        "?muster from the recruitment box", "muster Zegries blocks", "muster at Ronda"]
    assert orders.parts_of(engine.get("granada"), "deploy Zegries cavalry with Cavalry Charge") == [
        "play Cavalry Charge", "deploy Zegries cavalry"]
    # Other games, and plain chains, split on ">".
    assert orders.parts_of(engine.get("navas"), "zone B4 > move to B5") == ["zone B4", "move to B5"]
    assert orders.parts_of(engine.get("granada"), "Activate Loja") == ["Activate Loja"]
