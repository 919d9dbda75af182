"""Issue 38's findings, one test each: the English helpers, 1212's unit choices, Granada's
movement heading and Palace Guard line, and one accented spelling between text and picture."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import engine
from engine.text import noun, plural, role_name, sentence
from tests.engine.games import random_game

# ---------------------------------------------------------------- engine/text.py


def test_plural_writes_the_noun_in_the_number_of_its_count() -> None:
    assert plural(1, "block") == "1 block"
    assert plural(2, "block") == "2 blocks"
    assert plural(0, "action point") == "0 action points"
    assert plural(1, "Paria") == "1 Paria" and plural(3, "Paria") == "3 Parias"
    assert plural(2, "box") == "2 boxes" and plural(2, "match") == "2 matches"
    assert plural(2, "zone of the battlefield", "zones of the battlefield") == "2 zones of the battlefield"
    assert noun(1, "line") == "line" and noun(-1, "point") == "point" and noun(5, "line") == "lines"


def test_role_names_and_lines_begin_with_a_capital() -> None:
    assert role_name("christian") == "Christian"
    assert role_name("yusuf") == "Yusuf"
    assert role_name("deSoto") == "DeSoto"  # the rest as written
    assert sentence("blue takes clay to the workshop.") == "Blue takes clay to the workshop."
    assert sentence("") == ""


# ---------------------------------------------------------------- 1212


def _alike(state: dict[str, Any], uid: str) -> tuple[Any, ...]:
    """What tells two units' part in a combat or a move apart (the id does not)."""
    from engine.navas.core import unit

    u = unit(uid)
    rec = state["units"][uid]
    return (u.name, u.icons, u.star, u.immobile, rec["power"], rec["exhausted"])


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_1212_unit_menus_offer_each_distinct_group_once(seed: int) -> None:
    """``Attack with ...`` listed every subset of three identical knights (7 entries)."""
    module = engine.get("navas")
    twice = []
    for step, state in enumerate(random_game("navas", seed, {"advanced": seed % 2 == 0}, 500)):
        if module.result(state) is not None:
            continue
        for role in module.active(state):
            groups = [tuple(sorted(_alike(state, u) for u in a["units"]))
                      for a in module.actions(state, role) if a["type"] == "units"]
            if len(groups) != len(set(groups)):
                twice.append((step, role, [g for g, n in Counter(groups).items() if n > 1][:1]))
    assert not twice, twice[:3]


def test_1212_units_of_one_name_say_which_is_an_archer() -> None:
    """``Flip Council Militia (c04)`` against ``(c06)``: only the picture showed the archer."""
    from engine.navas.core import CATALOG, unit_text

    assert unit_text("c04") == "Council Militia (archer, c04)"
    assert unit_text("c06") == "Council Militia (c06)"
    by_name: dict[str, set[tuple[str, ...]]] = {}
    for u in CATALOG.units.values():
        by_name.setdefault(u.name, set()).add(u.icons)
    for u in CATALOG.units.values():
        if len(by_name[u.name]) > 1:
            assert all(icon in unit_text(u.id) for icon in u.icons), u.id
    assert unit_text("c10") == "López de Haro (c10)"  # a name of one kind: no icon added


# ---------------------------------------------------------------- Granada


@pytest.mark.parametrize("seed", [1, 2, 3, 5])
def test_granada_movement_heading_matches_its_menu(seed: int) -> None:
    """``Movement Phase: 0 activation(s) left; activate a location or sea zone.`` stood above a
    list of discards."""
    module = engine.get("granada")
    wrong = []
    for step, state in enumerate(random_game("granada", seed, {}, 900)):
        if module.result(state) is not None:
            continue
        for role in module.active(state):
            prompt = str(module.view(state, role)["prompt"])
            if not prompt.startswith("Movement Phase"):
                continue
            kinds = {a["type"] for a in module.actions(state, role)}
            if ("activate a location" in prompt) != bool(kinds & {"activate", "activate_sea"}):
                wrong.append((step, prompt, sorted(kinds)))
            if ("discard cards" in prompt) != ("exchange" in kinds):
                wrong.append((step, prompt, sorted(kinds)))
    assert not wrong, wrong[:3]


def test_granada_palace_guard_line_and_view_agree() -> None:
    """When the log says the Nasrid Palace Guard appears in Granada, the view the pictures are
    drawn from shows those blocks there and the box empty (seeds 12 and 61 reach the line,
    by a battle declared at Granada and by a retreat into it)."""
    module = engine.get("granada")
    seen = 0
    for seed in (12, 61):
        states = random_game("granada", seed, {}, 200)
        for before, after in zip(states, states[1:]):
            new = [e["text"] for e in after["log"][len(before["log"]):]]
            line = next((t for t in new if "Nasrid Palace Guard (" in t and "appears in Granada" in t), None)
            if line is None:
                continue
            seen += 1
            n = int(line.split("(")[1].split(" ")[0])
            assert line.startswith(f"The Nasrid Palace Guard ({plural(n, 'block')}) appears")
            for role in ("christian", "muslim", None):
                view_before, view_after = module.view(before, role), module.view(after, role)
                in_granada = [len(v["locations"]["granada"]["blocks"].get("muslim", []))
                              for v in (view_before, view_after)]
                assert in_granada[1] == in_granada[0] + n, (seed, role, in_granada)
                assert view_after["boxes"]["palace"] == []
                assert len(view_before["boxes"]["palace"]) == n
    assert seen == 2


# ---------------------------------------------------------------- one spelling


def test_granada_faction_names_are_spelt_alike_in_text_and_picture() -> None:
    """``Andalusies`` in the text, ``Andalusíes`` in the picture: the accented one everywhere."""
    from engine.granada import components
    from engine.granada.state import data
    from render.common import FACTIONS

    for faction, name in components.FACTION_NAMES.items():
        assert FACTIONS[faction].name == name, faction
    unaccented = {"Andalusies", "Zegries", "Aragon", "Leon"}
    for card in data().cards.values():
        assert not set(card.name.replace("-", " ").replace("(", " ").split()) & unaccented, card.name


def test_1212_names_are_spelt_alike_in_text_and_picture() -> None:
    """``Lopez de Haro`` in the menu, ``López de Haro`` in the picture; ``Aragon``/``Aragón``."""
    from engine.navas.core import CATALOG
    from render.navas import SHORT_NAMES

    names = {u.name for u in CATALOG.units.values()}
    assert set(SHORT_NAMES) <= names, set(SHORT_NAMES) - names
    assert {"López de Haro", "Jiménez de Rada"} <= names
    assert {s.name for s in CATALOG.specials.values()} >= {"López de Haro", "Jiménez de Rada"}
    assert CATALOG.kingdoms["aragon"]["name"] == "Aragón"
