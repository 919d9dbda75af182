"""The reconstructed components against every count and fact the rulebook text states."""

from __future__ import annotations

import copy
import json
import re
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from engine.navas.data import CATALOG, DATA_FILE, NavasDataError, distance, parse

BOOK = Path(__file__).resolve().parents[4] / "shared" / "rulebooks" / "1212-las-navas-de-tolosa.en.txt"
RAW = json.loads(DATA_FILE.read_text(encoding="utf-8"))


def book_text() -> str:
    if not BOOK.is_file():  # the rulebook is not part of the repository (a lone clone)
        pytest.skip(f"the rulebook's text is not beside this clone ({BOOK})")
    return BOOK.read_text(encoding="utf-8")


@pytest.mark.rule("Components")
def test_component_counts_match_the_components_list() -> None:
    text = book_text()
    stated = {
        "unit_markers": int(re.search(r"(\d+) Unit markers", text).group(1)),  # type: ignore[union-attr]
        "combat_cards": int(re.search(r"(\d+) Combat cards", text).group(1)),  # type: ignore[union-attr]
        "reference_cards": int(re.search(r"(\d+) Reference cards", text).group(1)),  # type: ignore[union-attr]
        "special_cards": int(re.search(r"(\d+) Special cards", text).group(1)),  # type: ignore[union-attr]
    }
    assert stated == {"unit_markers": 54, "combat_cards": 9, "reference_cards": 6, "special_cards": 12}
    assert CATALOG.components == stated
    assert len(CATALOG.units) == 54
    assert Counter(u.side for u in CATALOG.units.values()) == {"christian": 27, "muslim": 27}
    assert len(CATALOG.cards) == 9
    assert len(CATALOG.specials) == 12
    assert {side: len(ids) for side, ids in CATALOG.special_order.items()} == {"christian": 6, "muslim": 6}
    assert set(CATALOG.reference) == {"christian", "muslim"}


@pytest.mark.rule("Components")
def test_the_file_says_it_is_a_reconstruction() -> None:
    assert RAW["reconstructed"] is True
    assert "Reconstructed" in RAW["note"] and "owner of the physical game" in RAW["note"]


@pytest.mark.rule("Components")
@pytest.mark.parametrize("breakage, message", [
    (lambda d: d["units"].pop(), "54 unit markers"),
    (lambda d: d["units"][0].update(deploy="D9"), "not on the board"),
    (lambda d: d["units"][0].update(deploy="A4"), "must deploy in the muslim area"),
    (lambda d: d["units"][3].update(deploy="A1"), "over the limit of 3 per zone"),
    (lambda d: d["units"][0].update(icons=["bow"]), "icons must be"),
    (lambda d: d["units"][1].update(id="m01"), "duplicate id"),
    (lambda d: d["units"][3].update(kind="jund"), "exactly one al-Nasir"),
    (lambda d: d["combat_cards"].pop(), "9 cards"),
    (lambda d: d["combat_cards"][0].update(muslim=7), "from 1 to 6"),
    (lambda d: d["combat_cards"][0].update(arms="leon"), "coat of arms"),
    (lambda d: d["special_cards"][0].update(unit_kind="elephant"), "no muslim unit of kind"),
    (lambda d: d["special_cards"].pop(), "12 special cards"),
    (lambda d: d["board"].update(rows=[1, 2, 3, 4, 5]), "18 zones"),
    (lambda d: d["board"].update(camp="B5"), "camp"),
    (lambda d: d["reference_cards"]["muslim"]["archers"].pop("cost"), "missing key 'cost'"),
    (lambda d: d["units"][0].update(star="yes"), "must be bool"),
])
def test_bad_component_data_is_refused_with_a_clear_message(breakage, message) -> None:  # type: ignore[no-untyped-def]
    broken = copy.deepcopy(RAW)
    breakage(broken)
    with pytest.raises(NavasDataError, match=re.escape(message)):
        parse(broken)


@pytest.mark.rule("Game board")
def test_board_has_18_zones_in_two_areas_of_9() -> None:
    assert len(CATALOG.zones) == 18
    assert set(CATALOG.zones) == {f"{c}{r}" for c in "ABC" for r in range(1, 7)}
    muslim = [z for z in CATALOG.zones if int(z[1:]) in CATALOG.muslim_rows]
    christian = [z for z in CATALOG.zones if int(z[1:]) in CATALOG.christian_rows]
    assert len(muslim) == 9 and len(christian) == 9
    assert CATALOG.muslim_rows == (1, 2, 3)
    assert CATALOG.camp == "B1"


@pytest.mark.rule("Game board", "For the King")
def test_the_three_columns_are_the_three_kingdoms_left_to_right() -> None:
    assert CATALOG.column_kingdoms == {"A": "aragon", "B": "castile", "C": "navarre"}
    assert CATALOG.kingdoms["navarre"]["king"] == "Sancho VII" and CATALOG.kingdoms["navarre"]["position"] == "right"
    assert CATALOG.kingdoms["aragon"]["position"] == "left"


@pytest.mark.rule("Units")
def test_units_power_icons_arms_and_deployment() -> None:
    per_zone = Counter(u.deploy for u in CATALOG.units.values())
    assert set(per_zone) == set(CATALOG.zones)
    assert all(n == 3 for n in per_zone.values())  # three markers in every zone
    for u in CATALOG.units.values():
        assert set(u.icons) <= {"archer", "cavalry"}
        rows = CATALOG.muslim_rows if u.side == "muslim" else CATALOG.christian_rows
        assert int(u.deploy[1:]) in rows
    # Coat of arms: a Christian unit belongs to the column (king) it deploys in.
    assert CATALOG.units["c07"].name == "Peter II" and CATALOG.units["c07"].column == "A"
    assert CATALOG.units["c16"].name == "Alfonso VIII" and CATALOG.units["c16"].column == "B"
    assert CATALOG.units["c25"].name == "Sancho VII" and CATALOG.units["c25"].column == "C"
    # Both attack icons exist on both sides.
    for side in ("christian", "muslim"):
        icons = {i for u in CATALOG.units.values() if u.side == side for i in u.icons}
        assert icons == {"archer", "cavalry"}


@pytest.mark.rule("Units", "Advanced variant")
def test_stars_mark_exactly_the_units_related_to_special_cards() -> None:
    related = {(c.side, c.unit_kind) for c in CATALOG.specials.values()}
    for u in CATALOG.units.values():
        assert u.star == ((u.side, u.kind) in related), u.id


@pytest.mark.rule("Special Muslim units", "Muslim movement")
def test_al_nasir_and_the_black_guard_are_in_b1_and_immobile_volunteers_in_b3() -> None:
    camp = [u for u in CATALOG.units.values() if u.deploy == "B1"]
    assert sorted(u.kind for u in camp) == ["al-nasir", "black-guard", "black-guard"]
    assert all(u.immobile for u in camp)
    assert [u for u in CATALOG.units.values() if u.immobile] == camp
    volunteers = [u for u in CATALOG.units.values() if u.kind == "jihad"]
    assert len(volunteers) == 3 and {u.deploy for u in volunteers} == {"B3"}  # "her three units" (10-7 example)


@pytest.mark.rule("Combat cards")
def test_nine_cards_with_asymmetric_green_and_red_numbers() -> None:
    pairs = sorted((c.muslim, c.christian) for c in CATALOG.cards.values())
    assert pairs == [(1, 6), (2, 4), (2, 5), (3, 3), (3, 4), (4, 2), (4, 3), (5, 2), (6, 1)]
    assert sum(1 for m, c in pairs if m != c) == 8
    arms = Counter(c.arms for c in CATALOG.cards.values())
    assert arms == {"aragon": 3, "castile": 3, "navarre": 3}
    # The examples need these cards: a green 3 and a red 3 (initiative tie), a red 4 (action
    # points), a card giving 6 to the Christians and 1 to the Muslims (the 10-7 attack).
    assert any(c.muslim == 3 for c in CATALOG.cards.values())
    assert any(c.christian == 3 for c in CATALOG.cards.values())
    assert any(c.christian == 4 for c in CATALOG.cards.values())
    assert any(c.christian == 6 and c.muslim == 1 for c in CATALOG.cards.values())


@pytest.mark.rule("List of units")
def test_every_unit_named_in_the_list_of_units_exists() -> None:
    text = book_text()
    block = text[text.index("List of units"):text.index("• 1212 • Las Navas de Tolosa\n\nIn 1212")]
    names = set(re.findall(r"<p>(.*?)</p>", block))
    assert names == {"Jund Infantry", "Al-Nasir & the Black Guard", "Kurdish Cavalry", "Jihad Volunteers",
                     "Council Militia", "Peter II", "Lopez de Haro", "Jimenez de Rada", "Alfonso VIII", "Sancho VII"}
    # the game writes the Spanish names with their accents (López de Haro), the English
    # rulebook without: compared without accents (issue 38)
    ours = {_plain(u.name) for u in CATALOG.units.values()}
    for name in names:
        for part in name.split(" & the "):
            assert _plain(part) in ours, part


def _plain(name: str) -> str:
    """A name lower-cased and without its accents."""
    return "".join(c for c in unicodedata.normalize("NFD", name.lower()) if not unicodedata.combining(c))


def _quick_reference(side_heading: str, next_heading: str | None) -> dict[str, list[str]]:
    text = book_text()
    start = text.index("\n" + side_heading + "\n", text.index("WWW.DRACOIDEAS.COM"))
    end = text.index("\n" + next_heading + "\n", start + 1) if next_heading else len(text)
    rows = {}
    for line in text[start:end].splitlines():
        cells = line.split("\t")
        if len(cells) >= 2:
            rows[re.sub(r"</?i>", "", cells[0]).strip()] = [c.strip() for c in cells[1:]]
    return rows


@pytest.mark.rule("Quick reference")
def test_reference_card_costs_and_modifiers_match_the_quick_reference() -> None:
    for side, heading, nxt in (("muslim", "Muslims", "Christians"), ("christian", "Christians", None)):
        rows = _quick_reference(heading, nxt)
        ref = CATALOG.reference[side]
        assert int(rows["Archers"][0]) == ref["archers"]["cost"]
        assert f"{ref['archers']['damage']} automatic damage" in rows["Archers"][-1]
        assert int(rows["Standard attack"][0]) == ref["standard"]["cost"]
        assert rows["Standard attack"][-1] == f"{ref['standard']['modifier']:+d} attack power"
        assert int(rows["Cavalry charge"][0]) == ref["charge"]["cost"]
        assert rows["Cavalry charge"][-1] == f"{ref['charge']['modifier']:+d} attack power"
        assert int(rows["Movement"][0]) == ref["move"]["cost"]
        assert int(rows["Rally"][0]) == ref["rally"]["cost"]
        assert int(rows["Switch cards"][0]) == ref["switch"]["cost"]
        if side == "muslim":
            assert rows["Karr wa-l-farr"][0] == ""  # free
            assert rows["Karr wa-l-farr"][-1] == f"{ref['karr']['modifier']:+d} attack power"
        else:
            assert "costs 2 if the empty zone is in Muslim area" in rows["Movement"][-1]
            assert ref["move"]["cost"] + ref["move"]["empty_muslim_area_extra"] == 2
    assert "+1 attack power" in book_text().split("For the King:")[-1]
    assert CATALOG.reference["christian"]["for_the_king"]["modifier"] == 1


@pytest.mark.rule("Historical context")
def test_deployment_follows_the_historical_order_of_battle() -> None:
    # "Alfonso VIII of Castile led the central column, Peter II of Aragon the left one, and
    # Sancho VII of Navarre the right column."
    kings = {u.name: u.column for u in CATALOG.units.values() if u.name in ("Alfonso VIII", "Peter II", "Sancho VII")}
    assert kings == {"Alfonso VIII": "B", "Peter II": "A", "Sancho VII": "C"}
    # "At the front of the army ... were the Jihad Volunteers": row 3 faces the Christians.
    front = max(CATALOG.muslim_rows)
    assert all(int(u.deploy[1:]) == front for u in CATALOG.units.values() if u.kind == "jihad")
    # al-Nasir's camp is at the very back, farthest from the Christian lines.
    assert int(CATALOG.camp[1:]) == min(CATALOG.muslim_rows)
    assert distance("B1", "B6") == 5
