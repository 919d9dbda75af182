"""A picture tells a player nothing his view does not: his board (and hand, battle board)
PNG is byte-for-byte the same for any ``redeal`` of what he cannot see. The spectator's
picture is unchanged by a redeal for either player."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.api import State
from tests.render import cases

SEEDS = (1, 2, 3)


def _same_under_redeal(module: Any, state: State, draw: Callable[[dict[str, Any]], bytes]) -> None:
    for role in ("christian", "muslim"):
        for viewer in (role, None):
            reference = draw(module.view(state, viewer))
            for k in SEEDS:
                other = module.redeal(state, role, k)
                assert draw(module.view(other, viewer)) == reference, (
                    f"{viewer or 'spectator'} picture changed under redeal({role}, {k})")


def test_navas_board_and_hand_leak_nothing() -> None:
    from render import navas

    module = cases.game("navas")
    state = cases.navas_state()
    _same_under_redeal(module, state, navas.board)
    _same_under_redeal(module, state, navas.hand)


@pytest.mark.parametrize("which", ["midgame", "battle", "siege", "naval_battle"])
def test_granada_board_leaks_nothing(which: str) -> None:
    from render import granada

    module = cases.game("granada")
    state = {"midgame": cases.granada_state, "battle": lambda: cases.granada_battle_state("battle"),
             "siege": lambda: cases.granada_battle_state("siege"),
             "naval_battle": lambda: cases.granada_battle_state("naval_battle")}[which]()
    _same_under_redeal(module, state, granada.board)
    if which != "midgame":
        _same_under_redeal(module, state, granada.battle)


def test_granada_hand_and_closeup_leak_nothing() -> None:
    from render import granada

    module = cases.game("granada")
    state = cases.granada_state()
    _same_under_redeal(module, state, granada.hand)
    _same_under_redeal(module, state, lambda v: granada.closeup(v, "granada"))


def test_opponent_blocks_are_plain_in_the_picture_model() -> None:
    """The scene built from a player's view gives no face to an unrevealed enemy block."""
    from render.granada_scene import scene as scene_from_view

    module = cases.game("granada")
    state = cases.granada_state()
    sc = scene_from_view(module.view(state, "christian"))
    enemy = [p for ps in sc.stacks.values() for p in ps if p.colour == "black"]
    assert enemy, "the seeded game has Muslim blocks on the map"
    for p in enemy:
        assert (p.face is None) == (not p.revealed)
    own = [p for ps in sc.stacks.values() for p in ps if p.colour == "white"]
    assert own and all(p.face is not None for p in own)


def test_granada_naval_secret_choice_stays_secret() -> None:
    """Once one side has chosen its naval card (9.1), the other side's and the spectator's
    battle board and map are unchanged by any redeal; the chooser sees his own choice."""
    from engine.players import choose
    from render import granada

    module = cases.game("granada")
    state = cases.granada_battle_state("naval_battle")
    chooser = module.active(state)[0]
    state = module.apply(state, chooser, choose(module, state, chooser, 5))
    b = module.view(state, chooser)["battle"]
    assert b is not None and b["kind"] == "naval_battle"
    _same_under_redeal(module, state, granada.battle)
    _same_under_redeal(module, state, granada.board)


def test_granada_optional_rules_leak_nothing() -> None:
    """With every optional rule on, the board (Out of Supply markers, Pioneers tiles riding
    on concealed stacks, Mercenaries, the strip), the hand and a siege with a Pioneers tile
    and a Sortie card are unchanged by any redeal of what the viewer cannot see."""
    from render import granada

    module = cases.game("granada")
    state = cases.granada_options_state()
    _same_under_redeal(module, state, granada.board)
    _same_under_redeal(module, state, granada.hand)
    siege = cases.granada_options_battle_state("sortie")
    _same_under_redeal(module, siege, granada.battle)
    _same_under_redeal(module, siege, granada.board)
