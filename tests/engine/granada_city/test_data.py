"""The reconstructed components: the file states it is a reconstruction, and the load-time check
refuses a file that breaks any fact the rulebook's text fixes."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from engine.granada_city.data import CATALOG, DATA_FILE, CityDataError, check

pytestmark = pytest.mark.rule("granada_city:game-components")


def _raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return data


def test_the_shipped_file_is_marked_reconstructed_and_obeys_the_book() -> None:
    raw = _raw()
    assert raw["reconstructed"] is True and "Reconstructed" in raw["note"]
    assert CATALOG.reconstructed and len(CATALOG.tiles) == 54 and len(CATALOG.money) == 108
    names = [CATALOG.type_names[t] for t in CATALOG.types]
    assert names == ["Arena", "Bath House", "Library", "Hostel", "Hospital", "Market", "Park", "School", "District"]
    faces = Counter(f.type for t in CATALOG.tiles.values() for f in (t.even, t.odd))
    assert set(faces.values()) == {12}
    assert all(len(t.moats) <= 3 for t in CATALOG.tiles.values())
    assert len(CATALOG.colours) == 6 and CATALOG.scoring_cards == ("A", "B")


def _broken(change: Any) -> dict[str, Any]:
    raw = _raw()
    change(raw)
    return raw


@pytest.mark.parametrize("what, change", [
    ("reconstructed", lambda r: r.update(reconstructed=False)),
    ("9 building types", lambda r: r["building_types"].pop()),
    ("4 currencies", lambda r: r["currencies"].append("silver")),
    ("values 1 to 9", lambda r: r["money"].update(copies=2)),
    ("scoring cards", lambda r: r.update(scoring_cards=["A"])),
    ("different currency", lambda r: r["yard_spaces"][1].update(currency=r["yard_spaces"][0]["currency"])),
    ("six player colours", lambda r: r["player_colours"].pop()),
    ("without moats", lambda r: r["starting_tiles"][0].update(moats=["n"])),
    ("up to three", lambda r: r["tiles"][0].update(moats=["n", "e", "s", "w"])),
    ("next odd value", lambda r: r["tiles"][0]["odd"].update(price=r["tiles"][0]["even"]["price"] + 3)),
    ("two different building types", lambda r: r["tiles"][0]["odd"].update(type=r["tiles"][0]["even"]["type"])),
    ("54 building tiles", lambda r: r["tiles"].pop()),
    ("valued 2 to 13", lambda r: r["tiles"][0]["even"].update(type=r["tiles"][2]["even"]["type"])),
])
def test_a_file_breaking_a_stated_fact_is_refused(what: str, change: Any) -> None:
    with pytest.raises(CityDataError, match=what):
        check(_broken(change))
