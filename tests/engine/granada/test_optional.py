"""Section 11 optional rules as game options (options.py, extras.py): each off by default,
"all" plays every one; their pieces enter the game only with their option."""

from __future__ import annotations

from typing import Any

import pytest

import engine.granada as g
from engine.api import RuleError
from engine.granada import extras
from engine.granada import state as st
from tests.engine.granada.core_helpers import D, act, at_movement, clear_board, land_blocks, put, top
from tests.engine.granada.test_battle_impacts import act as step
from tests.engine.granada.test_battle_impacts import blank, deploy, give, legal, place
from tests.engine.granada.test_siege import besieged

OPTIONAL_CARDS = set(D.optional_cards)
OPTIONAL_BLOCKS = {b for b, blk in D.blocks.items() if blk.optional}


def in_play_cards(s: dict[str, Any]) -> set[str]:
    return {c for pile in (*s["decks"].values(), *s["hands"].values()) for c in pile}


def of_kind(kind: str) -> list[str]:
    return sorted(c for c in OPTIONAL_CARDS if D.cards[c].kind == kind)


# ---------------------------------------------------------------- the options themselves

def test_every_option_is_off_by_default_and_the_basic_game_holds_no_optional_piece() -> None:
    assert set(g.OPTIONS) == {"all", "mercenaries", "papal_bull", "general_mobilization",
                              "boabdil_captured_card", "sortie", "naval_bombardment", "out_of_supply",
                              "pioneers"}
    for spec in g.OPTIONS.values():
        assert spec["default"] in (False, "off") and spec["help"]
    s = g.setup(3, {})
    assert not in_play_cards(s) & OPTIONAL_CARDS
    assert {s["blocks"][b]["loc"] for b in OPTIONAL_BLOCKS} == {"aside"}
    assert s["papal_bull"] is None
    v = g.view(s, None)["optional"]
    assert v == {"rules": [], "mercenaries": {}, "crusaders": [], "papal_bull": None, "removed_cards": [],
                 "out_of_supply": {}, "pioneers": {}}


def test_all_turns_every_option_on_and_each_option_brings_only_its_pieces() -> None:
    s = g.setup(3, {"all": True})
    assert g.view(s, None)["optional"]["rules"] == [
        "boabdil_captured_card", "general_mobilization", "mercenaries", "naval_bombardment",
        "out_of_supply", "papal_bull", "pioneers", "sortie"]
    # every optional card but the Papal Bull (beside the board, 11.2) is in a deck or a hand
    assert in_play_cards(s) & OPTIONAL_CARDS == OPTIONAL_CARDS - set(of_kind("papal_bull"))
    alone = g.setup(3, {"sortie": True})
    assert in_play_cards(alone) & OPTIONAL_CARDS == set(of_kind("sortie"))
    assert {alone["blocks"][b]["loc"] for b in OPTIONAL_BLOCKS} == {"aside"}
    mob = g.setup(3, {"general_mobilization": True})
    assert in_play_cards(mob) & OPTIONAL_CARDS == set(of_kind("general_mobilization"))


def test_unknown_options_and_values_are_refused() -> None:
    with pytest.raises(RuleError):
        g.setup(1, {"pioneer": True})                    # no such option
    with pytest.raises(RuleError):
        g.setup(1, {"mercenaries": "yes"})
    with pytest.raises(RuleError):
        g.setup(1, {"sortie": "on"})


# ---------------------------------------------------------------- 11.1 Mercenaries

def at_reinforcement(opts: dict[str, Any], year: int = 2, c_cards: tuple[str, ...] = (),
                     m_cards: tuple[str, ...] = ()) -> dict[str, Any]:
    """The Reinforcement Step of ``year`` once both players have discarded (6.4)."""
    s = clear_board(g.setup(1, opts))
    root = s["stack"][0]
    s["stack"] = [root]
    s["year"], s["turn"] = year, 2
    for side, cards in (("christian", c_cards), ("muslim", m_cards)):
        s["decks"][side].extend(s["hands"][side])
        s["hands"][side] = []
        give(s, side, *cards)
    root.update(phase="reinforce", step=0, owed={"christian": 0, "muslim": 0})
    g.run(s)
    return s


@pytest.mark.rule("11.1")
def test_mercenaries_are_hired_at_the_reinforcement_step_for_a_trumpet_card() -> None:
    s = at_reinforcement({"mercenaries": "both"}, c_cards=("C01", "C07"))
    assert {s["blocks"][b]["loc"] for b in ("O1", "O2")} == {"mercenaries:christian"}
    assert {s["blocks"][b]["loc"] for b in ("O5", "O6")} == {"mercenaries:muslim"}
    assert top(s)["module"] == "extras" and g.active(s) == ["christian"]
    hires = [a for a in g.legal_actions(s, "christian") if a["type"] == "hire"]
    assert {(a["block"], a["loc"]) for a in hires} == {
        (b, x) for b in ("O1", "O2") for x in ("cartagena", "gibraltar")}
    s = act(s, "christian", type="hire", block="O1", loc="cartagena")
    # only a Special Attack card (with a trumpet) pays: C01 yes, C07 (no trumpet) no
    assert {a.get("card") for a in g.legal_actions(s, "christian")} == {"C01", None}
    s = act(s, "christian", type="pay", card="C01")
    assert s["blocks"]["O1"]["loc"] == "cartagena" and "C01" in s["discards"]["christian"]
    assert "O1" in s["known"]["muslim"] and s["blocks"]["O1"]["fresh"]
    # no trumpet card left: the Christian may only go on
    assert [a["type"] for a in g.legal_actions(s, "christian")] == ["done"]
    s = act(s, "christian", type="done")
    # the Muslim is asked too, though he holds no trumpet card (his hand stays secret)
    assert g.active(s) == ["muslim"] and [a["type"] for a in g.legal_actions(s, "muslim")] == ["done"]
    s = act(s, "muslim", type="done")
    assert top(s)["phase"] == "bid" and s["year"] == 3              # draws done, next year


@pytest.mark.rule("11.1")
def test_mercenaries_never_enter_an_enemy_controlled_location_and_die_for_good() -> None:
    s = clear_board(g.setup(1, {"mercenaries": "both"}))
    s["control"]["gibraltar"] = "muslim"
    assert extras.mercenary_entries(s, "christian") == ["cartagena"]
    s["control"]["cartagena"] = "muslim"
    assert extras.mercenary_entries(s, "christian") == [] and "christian" not in extras.needed(s)
    put(s, "huescar", "O2")
    st.eliminate(s, "O2")
    assert s["blocks"]["O2"]["loc"] == "removed"       # "removed from the game" (11.1)


@pytest.mark.rule("11.1")
def test_mercenaries_deploy_with_any_faction_card_are_morale_immune_and_count_each_other() -> None:
    s = blank()
    s["options"] = {"mercenaries": "both"}
    place(s, "huescar", "O1", "O2")
    place(s, "huescar", "K20")
    give(s, "christian", "C07", "C25")                 # a Castile and an Aragón card
    give(s, "muslim", "M22")
    from engine.granada import battle

    battle.start_battle(s, "huescar", "christian")
    step(s, "muslim", "fight")
    deploy(s, "christian", "C25", "O2")                # 2 shields, no challenge (immune)
    assert top(s)["step"] == "deploy"
    step(s, "muslim", "finish")
    deploy(s, "christian", "C07", "O1")                # 2 + 1 for the other Mercenaries
    assert [d["impacts"] for d in top(s)["deployed"]["christian"]] == [[2], [3]]


@pytest.mark.rule("11.1.1")
def test_only_one_coalition_with_mercenaries() -> None:
    s = at_reinforcement({"mercenaries": "christian"}, c_cards=("C01",), m_cards=("M01",))
    assert {s["blocks"][b]["loc"] for b in ("O5", "O6")} == {"aside"}
    assert g.active(s) == ["christian"]
    s = act(s, "christian", type="done")
    assert top(s)["phase"] == "bid"                    # the Muslim has nothing to hire
    v = g.view(s, None)["optional"]
    assert set(v["mercenaries"]) == {"christian"} and v["rules"] == ["mercenaries"]
    m = g.setup(1, {"mercenaries": "muslim"})
    assert {m["blocks"][b]["loc"] for b in ("O1", "O2")} == {"aside"}
    assert {m["blocks"][b]["loc"] for b in ("O5", "O6")} == {"mercenaries:muslim"}


# ---------------------------------------------------------------- 11.2 Papal Bull

def few_castles(s: dict[str, Any], keep: tuple[str, ...]) -> None:
    for loc in s["castle"]:
        if s["castle"][loc] == "christian" and loc not in keep:
            s["castle"][loc] = "muslim"


@pytest.mark.rule("11.2")
def test_papal_bull_from_1487_1488_with_six_castles_or_fewer_brings_the_crusaders() -> None:
    def bull(year: int, castles: tuple[str, ...]) -> dict[str, Any]:
        s = clear_board(g.setup(1, {"papal_bull": True}))
        few_castles(s, castles)
        root = s["stack"][0]
        s["stack"] = [root]
        s["year"] = year
        root.update(phase="reinforce", step=0, owed={"christian": 0, "muslim": 0})
        return s

    six = ("cordoba", "jaen", "sevilla", "antequera", "cartagena", "gibraltar")
    assert sum(1 for o in g.setup(1, {})["castle"].values() if o == "christian") > 6
    s = bull(3, six)                                   # 1486: too early
    assert not extras.bull_playable(s) and g.view(s, None)["optional"]["papal_bull"]["playable_now"] is False
    s = bull(4, (*six, "lorca"))                       # 7 castles: too many
    assert extras.christian_castles(s) == 7 and not extras.bull_playable(s)
    s = bull(4, six)
    v = g.view(s, None)["optional"]
    assert v["papal_bull"] == {"card": "CX1", "playable_now": True, "from_year": "1487-1488",
                               "max_castles": 6, "christian_castles": 6}
    assert [b["id"] for b in v["crusaders"]] == ["O3", "O4"]
    put(s, "antequera", land_blocks("muslim", 1)[0])   # besieged: no Crusaders there
    g.run(s)
    assert g.active(s) == ["christian"]
    s = act(s, "christian", type="papal_bull", card="CX1")
    assert {a["loc"] for a in g.legal_actions(s, "christian")} == set(six) - {"antequera"}
    s = act(s, "christian", type="place", loc="cordoba")
    s = act(s, "christian", type="place", loc="cordoba")   # both together is allowed
    assert {s["blocks"][b]["loc"] for b in ("O3", "O4")} == {"cordoba"}
    assert s["papal_bull"] is None and s["removed_cards"] == ["CX1"]
    v = g.view(s, "muslim")["optional"]
    assert v["papal_bull"]["card"] is None and [c["id"] for c in v["removed_cards"]] == ["CX1"]
    assert not extras.bull_playable(s)                 # played once


# ---------------------------------------------------------------- 11.3 General Mobilization

@pytest.mark.rule("11.3")
def test_general_mobilization_gives_total_movement_without_discarding_and_leaves_the_game() -> None:
    card = of_kind("general_mobilization")[0]
    s = clear_board(g.setup(1, {"general_mobilization": True}))
    for side in st.SIDES:
        for pile in (s["decks"][side], s["discards"][side]):
            if card in pile:
                pile.remove(card)
    s["hands"]["christian"] = [c for c in s["hands"]["christian"] if c != card][:1] + [card]
    s = at_movement(s, "christian")
    assert {"type": "mobilize", "card": card} in [
        {k: v for k, v in a.items() if k != "label"} for a in g.legal_actions(s, "christian")]
    hand = list(s["hands"]["christian"])
    s = act(s, "christian", type="mobilize", card=card)
    f = top(s)
    assert f["level"] == "total" and f["acts"] is None and f["muster"] == 1 and f["pay"] == 0
    assert s["hands"]["christian"] == [c for c in hand if c != card]
    assert s["removed_cards"] == [card] and card not in s["discards"]["christian"]
    assert [c["id"] for c in g.view(s, None)["optional"]["removed_cards"]] == [card]


# ---------------------------------------------------------------- 11.5 Sortie

@pytest.mark.rule("11.5", "8.7.5")
def test_a_sortie_takes_impacts_off_the_assault_of_a_besieged_muslim_castle() -> None:
    three = of_kind("sortie")[1]
    assert [D.cards[c].name for c in of_kind("sortie")] == ["Sortie -2", "Sortie -3"]

    def siege(sortie: bool) -> dict[str, Any]:
        s = besieged("loja", ("K17",), ("W25", "W24"), ("C21", "C25"), (three,) if sortie else ("M22",))
        step(s, "christian", "assault")
        deploy(s, "christian", "C21", "W25")           # Aragón artillery + trumpet: 3 + 2
        if sortie:
            assert {a["type"] for a in legal(s, "muslim")} >= {"sortie", "hold_fire"}
            step(s, "muslim", "sortie", card=three)
            assert top(s)["impacts"]["muslim"] == 3 and top(s)["step"] == "fire"
        step(s, "muslim", "hold_fire")
        deploy(s, "christian", "C25", "W24")           # Aragón 3 + 1: 9 in all
        step(s, "muslim", "hold_fire")
        step(s, "christian", "finish")
        step(s, "muslim", "hold_fire")
        return s

    plain = siege(False)                               # 9 against 7 (artillery): 1 loss
    assert plain["blocks"]["K17"]["loc"] == "eliminated"
    helped = siege(True)                               # 9 - 3 = 6: no loss
    assert helped["blocks"]["K17"]["loc"] == "loja"
    assert three in helped["discards"]["muslim"]       # battle discard, then replenished (8.8)


@pytest.mark.rule("11.5")
def test_no_sortie_in_a_field_combat_nor_for_the_besieger() -> None:
    two = of_kind("sortie")[0]
    s = blank()
    place(s, "huescar", "W04")
    place(s, "huescar", "K20")
    give(s, "christian", "C07")
    give(s, "muslim", two, "M22")
    from engine.granada import battle

    battle.start_battle(s, "huescar", "christian")
    step(s, "muslim", "fight")
    deploy(s, "christian", "C07", "W04")
    step(s, "muslim", "pass")
    assert top(s)["initiative"] == "muslim"
    assert {a["type"] for a in legal(s, "muslim")} == {"play", "finish"}     # no sortie in the open
    # a Muslim besieging a Christian castle has no use for it either
    s = blank()
    place(s, "lorca", "W04", inside=True)
    place(s, "lorca", "K20", "K21")
    give(s, "muslim", two, "M22")
    battle.start_battle(s, "lorca", "muslim")
    while top(s)["step"] in ("castle", "avoid"):
        step(s, "christian", "stay_inside" if top(s)["step"] == "castle" else "fight")
    if top(s)["step"] == "besiege" and any(a["type"] == "assault" for a in legal(s, "muslim")):
        step(s, "muslim", "assault")
    assert all(a["type"] != "sortie" for a in legal(s, "muslim"))


# ---------------------------------------------------------------- 11.4 Boabdil Is Captured in Combat

BOABDIL = next(b for b, blk in D.blocks.items() if blk.special == "boabdil")


def beat_boabdil(opts: dict[str, Any], c_cards: tuple[str, ...] = ("C07",), captures: int = 0
                 ) -> dict[str, Any]:
    """The Christians win a field combat at Huéscar in which the black Boabdil deployed."""
    from engine.granada import battle

    s = blank()
    s["options"] = opts
    s["boabdil"]["captures"] = captures
    place(s, "huescar", "W04")
    place(s, "huescar", BOABDIL, "K20", "K21")
    give(s, "christian", *c_cards)
    battle.start_battle(s, "huescar", "christian")
    step(s, "muslim", "fight")
    deploy(s, "christian", "C07", "W04")               # 3
    step(s, "muslim", "pass")
    step(s, "muslim", "deploy_leader", block=BOABDIL)  # 2: still behind
    step(s, "muslim", "finish")
    step(s, "christian", "finish")
    if top(s)["step"] == "loss":
        step(s, "muslim", "lose", block="K20")
    return s


@pytest.mark.rule("11.4", "10.12.1")
def test_the_capture_card_takes_boabdil_after_a_won_battle_he_deployed_in() -> None:
    card = of_kind("boabdil_captured")[0]
    s = beat_boabdil({"boabdil_captured_card": True}, ("C07", card))
    assert top(s)["step"] == "boabdil_card" and g.active(s) == ["christian"]
    assert g.view(s, "christian")["reaction"] is True
    step(s, "christian", "capture", card=card)
    assert s["blocks"][BOABDIL]["loc"] == "captured" and s["boabdil"]["captures"] == 1
    assert s["removed_cards"] == [card] and s["boabdil"]["pending"] == "place"
    assert top(s)["step"] == "retreat" and g.active(s) == ["muslim"]   # his army retreats alone
    step(s, "muslim", "retreat", to=legal(s, "muslim")[0]["to"])
    assert s["blocks"]["K21"]["loc"] != "huescar" and s["blocks"][BOABDIL]["loc"] == "captured"


@pytest.mark.rule("11.4")
def test_the_capture_question_is_asked_whatever_the_hand_and_only_when_it_applies() -> None:
    s = beat_boabdil({"boabdil_captured_card": True})
    assert top(s)["step"] == "boabdil_card"
    assert [(a["type"], a.get("pass")) for a in legal(s, "christian")] == [("no_capture", True)]
    step(s, "christian", "no_capture")
    assert s["blocks"][BOABDIL]["loc"] != "captured" and s["boabdil"]["captures"] == 0
    assert top(beat_boabdil({}))["step"] == "retreat"                   # option off: no question
    # Boabdil captured in an earlier turn: the card no longer applies (11.4)
    assert top(beat_boabdil({"boabdil_captured_card": True}, captures=1))["step"] == "retreat"


@pytest.mark.rule("11.4")
def test_after_a_first_capture_the_card_is_discarded_and_replaced_when_drawn() -> None:
    card = of_kind("boabdil_captured")[0]
    s = g.setup(1, {"boabdil_captured_card": True})
    for side_piles in (s["decks"]["christian"], s["hands"]["christian"]):
        if card in side_piles:
            side_piles.remove(card)
    s["boabdil"]["captures"] = 1
    s["decks"]["christian"].append(card)                 # on top: drawn next
    hand = len(s["hands"]["christian"])
    st.draw_cards(s, "christian", 1)
    assert card not in s["hands"]["christian"] and card in s["discards"]["christian"]
    assert len(s["hands"]["christian"]) == hand + 1


# ---------------------------------------------------------------- 11.6 Naval Bombardment

@pytest.mark.rule("11.6")
def test_naval_bombardment_adds_two_or_three_impacts_in_a_coastal_field_combat() -> None:
    from engine.granada import battle
    from tests.engine.granada.core_helpers import fleets

    cx, mx = of_kind("naval_bombardment")
    assert (D.cards[cx].deck, D.cards[mx].deck) == ("christian", "muslim")

    def field(loc: str, n_fleets: int) -> dict[str, Any]:
        s = blank()
        s["options"] = {"naval_bombardment": True}
        place(s, loc, "W04")
        place(s, loc, "K20")
        zone = D.coast_zone.get(loc)
        for f in fleets("christian", n_fleets):
            place(s, f"sea:{zone}", f)
        give(s, "christian", cx)
        battle.start_battle(s, loc, "christian")
        step(s, "muslim", "fight")
        return s

    assert D.coast_zone["velez_malaga"] == "bay_of_malaga"            # coastal, no port
    assert all(a["type"] != "naval_bombard" for a in legal(field("velez_malaga", 0), "christian"))
    assert all(a["type"] != "naval_bombard" for a in legal(field("huescar", 0), "christian"))
    for n, value in ((1, 2), (2, 3), (3, 3)):
        s = field("velez_malaga", n)
        step(s, "christian", "naval_bombard", card=cx)
        assert top(s)["impacts"]["christian"] == value and top(s)["naval"] == {"christian": value}
        assert cx in s["battle_discard"]["christian"] and top(s)["initiative"] == "muslim"
        assert g.view(s, None)["battle"]["naval"] == {"christian": value}


@pytest.mark.rule("11.6", "8.7.5")
def test_naval_bombardment_of_a_besieged_side_takes_impacts_off_the_besieger() -> None:
    from tests.engine.granada.core_helpers import fleets

    mx = of_kind("naval_bombardment")[1]
    s = besieged("malaga", ("K17",), ("W25", "W24"), ("C21", "C25"), (mx,))
    s["options"] = {"naval_bombardment": True}
    for f in fleets("muslim", 2):
        place(s, "sea:bay_of_malaga", f)
    step(s, "christian", "assault")
    deploy(s, "christian", "C21", "W25")
    labels = [a["label"] for a in legal(s, "muslim") if a["type"] == "naval_bombard"]
    assert labels and "-3 impacts" in labels[0]
    step(s, "muslim", "naval_bombard", card=mx)
    assert top(s)["impacts"]["muslim"] == 3 and top(s)["step"] == "fire"
    assert all(a["type"] != "naval_bombard" for a in legal(s, "muslim"))      # once a battle


# ---------------------------------------------------------------- 11.8 Out of Supply

@pytest.mark.rule("11.8")
def test_stacks_cut_off_from_their_own_territory_carry_an_out_of_supply_marker() -> None:
    from engine.granada import supply
    from tests.engine.granada.core_helpers import fleets

    s = clear_board(g.setup(1, {"out_of_supply": True}))
    a, b, c = land_blocks("christian", 3)
    put(s, "guadix", a)          # next to Huelma, Christian and outside the kingdom: supplied
    put(s, "baza", b)            # Muslim locations all around: cut off
    put(s, "tabernas", c)        # cut off ... until the port of Almería supplies it
    assert supply.out_of_supply(s) == {"christian": ["baza", "tabernas"], "muslim": []}
    assert g.view(s, None)["optional"]["out_of_supply"] == {"christian": ["baza", "tabernas"], "muslim": []}
    # another isolated friendly stack supplies nothing; a port with a friendly fleet does
    put(s, "almeria", land_blocks("christian", 4)[3])
    assert "tabernas" in supply.out_of_supply(s)["christian"]
    put(s, "sea:gulf_of_almeria", fleets("christian", 1)[0])
    assert supply.out_of_supply(s)["christian"] == ["baza"]
    # the option off: no marker anywhere
    s["options"] = {}
    assert supply.out_of_supply(s) == {"christian": [], "muslim": []}
    assert g.view(s, None)["optional"]["out_of_supply"] == {}


@pytest.mark.rule("11.8", "8.5.1")
def test_an_out_of_supply_stack_loses_a_block_per_five_impacts_in_a_field_combat() -> None:
    from engine.granada import battle

    def fight(loc: str) -> dict[str, Any]:
        s = blank()
        s["options"] = {"out_of_supply": True}
        place(s, loc, "W04", "W16", "W17", "W21")
        place(s, loc, "K20", "K28")
        give(s, "muslim", "M22", "M23")
        battle.start_battle(s, loc, "muslim")
        step(s, "christian", "fight")
        deploy(s, "muslim", "M22", "K20")
        step(s, "christian", "pass")
        step(s, "christian", "finish")
        deploy(s, "muslim", "M23", "K28")
        step(s, "christian", "pass")
        step(s, "muslim", "finish")
        return s

    cut, fed = fight("tabernas"), fight("vera")
    impacts = top(fed)["impacts"]["muslim"]
    assert 5 <= impacts < 7 and top(cut)["impacts"]["muslim"] == impacts
    assert top(fed)["to_lose"]["christian"] == 0 + 1             # 8.5.1: the defeat only
    assert top(cut)["to_lose"]["christian"] == 1 + 1             # 11.8: one per 5 impacts
    assert "out of supply" in " ".join(e["text"] for e in cut["log"][-3:])


@pytest.mark.rule("11.8", "8.7.5")
def test_an_out_of_supply_castle_falls_faster() -> None:
    from engine.granada import siege

    s = blank()
    s["options"] = {"out_of_supply": True}
    place(s, "sevilla", "K17", inside=True)
    place(s, "sevilla", "W25", "W24")
    s["castle"]["sevilla"] = "muslim"
    frame = {"loc": "sevilla", "attacker": "christian", "defender": "muslim",
             "deployed": {"christian": [], "muslim": []}}
    assert siege.threshold(s, frame) == 7                       # 9 + 1 (port) in supply (8.7.5)
    frame["deployed"]["christian"] = [{"blocks": ["W25"], "card": "C21", "special": "artillery",
                                       "out": []}]
    assert siege.threshold(s, frame) == 5                       # 7 + 1 in supply
    s["options"] = {}
    assert siege.threshold(s, frame) == 8


# ---------------------------------------------------------------- 11.7 Pioneers

@pytest.mark.rule("11.7")
def test_pioneers_start_on_three_stacks_and_travel_with_them() -> None:
    s = g.setup(1, {"pioneers": True})
    assert g.view(s, "muslim")["optional"]["pioneers"] == {"P1": "cordoba", "P2": "ubeda", "P3": "cartagena"}
    assert g.view(g.setup(1, {}), None)["optional"]["pioneers"] == {}
    # the whole Cartagena stack marches to Lorca: the tile goes along, counted by no one
    s = at_movement(s, "christian")
    s = act(s, "christian", type="buy", level="minimal")
    s = act(s, "christian", type="activate", loc="cartagena")
    s = act(s, "christian", type="take_all")
    s = act(s, "christian", type="step", to="lorca")
    s = act(s, "christian", type="end_move")
    assert g.view(s, None)["optional"]["pioneers"]["P3"] == "lorca"
    # what the Muslim cannot see is re-dealt: the tiles stay where they are
    for k in range(3):
        assert g.view(g.redeal(s, "muslim", k), "muslim") == g.view(s, "muslim")


@pytest.mark.rule("11.7")
def test_a_pioneers_tile_is_lost_only_with_the_last_block_of_its_stack() -> None:
    s = clear_board(g.setup(1, {"pioneers": True}))
    s["pioneers"] = {"P1": "W04"}
    put(s, "huescar", "W04", "W16")
    st.eliminate(s, "W04")
    assert s["pioneers"] == {"P1": "W16"} and g.view(s, None)["optional"]["pioneers"] == {"P1": "huescar"}
    st.eliminate(s, "W16")
    assert g.view(s, None)["optional"]["pioneers"] == {"P1": "eliminated"}


@pytest.mark.rule("11.7", "8.7.5", "8.2.3")
def test_one_pioneers_tile_adds_an_impact_to_a_castle_siege_before_any_card() -> None:
    s = blank()
    s["options"] = {"pioneers": True}
    s["pioneers"] = {"P1": "W25", "P2": "W24"}
    place(s, "loja", "K17", inside=True)
    place(s, "loja", "W25", "W24")
    give(s, "christian", "C21", "C25")
    from engine.granada import battle

    battle.start_battle(s, "loja", "christian")
    if top(s)["step"] == "castle":
        step(s, "muslim", "stay_inside")
    if top(s)["step"] == "avoid":
        step(s, "muslim", "fight")
    step(s, "christian", "assault")
    tiles = [a["tile"] for a in legal(s, "christian") if a["type"] == "deploy_pioneer"]
    assert tiles == ["P1", "P2"]
    step(s, "christian", "deploy_pioneer", tile="P1")
    assert top(s)["impacts"]["christian"] == 1 and g.view(s, None)["battle"]["pioneer"] == "P1"
    assert all(a["type"] != "deploy_pioneer" for a in legal(s, "christian"))     # one per siege
    deploy(s, "christian", "C21", "W25")
    assert top(s)["impacts"]["christian"] == 1 + 5

    # never in a field combat
    f = blank()
    f["options"] = {"pioneers": True}
    f["pioneers"] = {"P1": "W04"}
    place(f, "huescar", "W04")
    place(f, "huescar", "K20")
    battle.start_battle(f, "huescar", "christian")
    step(f, "muslim", "fight")
    assert all(a["type"] != "deploy_pioneer" for a in legal(f, "christian"))
