"""Granada's battle board (render.granada_extra.draw_battle): each deployment is drawn once
with the card that deployed it, and what deployed blocks without a card ("leader, no card")
is written inside its own slot, not under the next block (ISSUE 12).

The view is a real one (the stored siege, where Isabella deployed without a card) with a
second Christian deployment added: a Double Castile card that brought in two blocks."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from render import common as C
from render import granada, granada_extra
from render import granada_pieces as P
from render.granada_extra import NOTE_SIZE, deploy_slots
from render.granada_layout import overlaps
from render.granada_scene import scene
from tests.render.cases import BY_NAME, load_views


def _view() -> dict[str, Any]:
    view = copy.deepcopy(load_views(BY_NAME["granada_battle_siege"])[0])
    deployed = view["battle"]["deployed"]["christian"]
    assert deployed and deployed[0]["card"] is None, "the stored siege starts with a deployment without a card"
    deployed.append({"blocks": [{"fights": True, "id": "W13", "impacts": 2}, {"fights": True, "id": "W22", "impacts": 1}],
                     "card": {"factions": ["castile", "castile"], "id": "C18", "kind": "faction",
                              "name": "Double Castile", "trumpet": False}, "special": ""})
    return view


def test_a_card_is_drawn_once_for_all_the_blocks_it_deployed(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []
    real = P.card_sprite

    def counting(card_id: str, *args: Any, **kwargs: Any) -> Any:
        drawn.append(card_id)
        return real(card_id, *args, **kwargs)

    monkeypatch.setattr(P, "card_sprite", counting)
    granada.battle(_view())
    assert drawn.count("C18") == 1, drawn


def test_the_note_of_a_deployment_without_card_fits_its_slot() -> None:
    b = scene(_view()).battle
    assert b is not None
    slots, hidden = deploy_slots(b.deployed["christian"], 36, 312, 600)
    assert hidden == 0 and len(slots) == 2
    assert [len(s.blocks) for s in slots] == [1, 2]
    note = slots[0]
    assert note.deployment.card is None and note.note, "the leader's deployment has a note in place of a card"
    f = C.font(NOTE_SIZE, True, "condensed")
    width = note.card[2] - note.card[0]
    assert all(f.getlength(line) <= width - 4 for line in note.note), (note.note, width)
    assert len(note.note) * NOTE_SIZE * 1.2 <= note.card[3] - note.card[1]
    for r in slots[1].blocks + [slots[1].card]:
        assert not overlaps(note.card, r), "the note runs under the next deployment"


def test_slots_never_overlap_in_a_crowded_battle() -> None:
    view = _view()
    extra = view["battle"]["deployed"]["christian"][-1]
    view["battle"]["deployed"]["christian"] += [copy.deepcopy(extra) for _ in range(6)]
    b = scene(view).battle
    assert b is not None
    slots, hidden = deploy_slots(b.deployed["christian"], 36, 312, granada_extra.DEPLOY_BLOCK * 10)
    rects = [(n, r) for n, s in enumerate(slots) for r in s.blocks + [s.card]]
    for i, (n, r) in enumerate(rects):
        assert all(not overlaps(r, q) for m, q in rects[i + 1:] if m != n)
    assert hidden == len(b.deployed["christian"]) - len(slots) > 0
