"""Overruns (7.4) with the book's example."""

from __future__ import annotations

import pytest

from engine.granada import overrun
from tests.engine.granada.core_helpers import (
    act,
    at_movement,
    buy,
    clear_board,
    land_blocks,
    locs_of,
    new_game,
    put,
    top,
)


def setup_example():
    """The defender has 1 block in a location; the active player has two stacks of 2."""
    s = clear_board(new_game())
    m = land_blocks("muslim", 1)
    c = land_blocks("christian", 4)
    put(s, "ecija", *m)
    s["control"]["ecija"] = "muslim"
    put(s, "cordoba", c[0], c[1])
    put(s, "sevilla", c[2], c[3])
    s = at_movement(s, "christian")
    return buy(s, "christian", "total"), m, c


@pytest.mark.rule("7.4")
def test_overrun_example_from_the_book():
    s, m, c = setup_example()
    # first stack of 2 enters: 2 < 4 x 1, it must stop (battle pending)
    s = act(s, "christian", type="activate", loc="cordoba")
    s = act(s, "christian", type="take_all")
    s = act(s, "christian", type="step", to="ecija")
    assert top(s)["mstack"] is None and s["blocks"][m[0]]["loc"] == "ecija"
    # second stack of 2 enters from Sevilla: now 4 >= 4 x 1, the defender is overrun
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take_all")
    hand = len(s["hands"]["muslim"])
    s = act(s, "christian", type="step", to="ecija")
    assert s["blocks"][m[0]]["loc"] == "eliminated" and s["blocks"][m[0]]["revealed"]
    assert locs_of(s, *c) == ["ecija"] * 4               # the victor loses nothing
    assert len(s["hands"]["muslim"]) == hand              # 1 block lost: no card (8.8)
    # the active stack may continue its move; the first stack may not move again
    assert top(s)["mstack"] is not None
    assert s["blocks"][c[0]]["moved"] and s["blocks"][c[1]]["moved"]
    assert s["control"]["ecija"] == "christian"


@pytest.mark.rule("7.4", "4.3")
def test_units_controlling_a_castle_cannot_be_overrun():
    s = clear_board(new_game())
    m = land_blocks("muslim", 1)
    c = land_blocks("christian", 4)
    put(s, "loja", *m)
    put(s, "loja", *c)
    assert s["castle"]["loja"] == "muslim"
    assert not overrun.resolve(s, "loja", "christian")


@pytest.mark.rule("7.4", "4.4")
def test_blocks_controlling_a_watchtower_cannot_be_overrun_but_a_lone_tower_can():
    s = clear_board(new_game())
    m = land_blocks("muslim", 1)
    c = land_blocks("christian", 4)
    put(s, "montefrio", *m)
    put(s, "montefrio", *c)
    assert not overrun.resolve(s, "montefrio", "christian")
    # a lone round tower: the moving block takes it and goes on
    s = clear_board(new_game())
    a = land_blocks("christian", 1)[0]
    put(s, "alcala_la_real", a)
    s = at_movement(s, "christian")
    s = buy(s, "christian", "total")
    s = act(s, "christian", type="activate", loc="alcala_la_real")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="step", to="montefrio")
    assert s["control"]["montefrio"] == "christian" and top(s)["mstack"] is not None


@pytest.mark.rule("7.4")
def test_forces_inside_a_castle_help_overrun_besiegers():
    s = clear_board(new_game())
    inside = land_blocks("muslim", 2)
    arriving = land_blocks("muslim", 2, exclude=tuple(inside))
    c = land_blocks("christian", 1)
    put(s, "loja", *inside, inside=True)
    put(s, "loja", *c)
    s["castle"]["loja"] = "muslim"
    put(s, "loja", *arriving)
    assert overrun.resolve(s, "loja", "muslim")
    assert s["blocks"][c[0]]["loc"] == "eliminated"


@pytest.mark.rule("7.4", "8.8")
def test_retreat_path_overrun_counts_friends_already_there_and_draws_a_card_per_two_losses():
    s = clear_board(new_game())
    foes = land_blocks("muslim", 2)
    friends = land_blocks("christian", 8)
    put(s, "ecija", *foes)
    s["control"]["ecija"] = "christian"
    put(s, "ecija", *friends[:5])            # already there
    put(s, "ecija", *friends[5:])            # retreating in: 8 >= 4 x 2
    hand = len(s["hands"]["muslim"])
    assert overrun.resolve(s, "ecija", "christian")
    assert locs_of(s, *foes) == ["eliminated", "eliminated"]
    assert len(s["hands"]["muslim"]) == hand + 1


@pytest.mark.rule("7.4")
def test_three_to_one_is_not_enough():
    s = clear_board(new_game())
    put(s, "ecija", *land_blocks("muslim", 1))
    put(s, "ecija", *land_blocks("christian", 3))
    assert not overrun.can_overrun(s, "ecija", "christian")


@pytest.mark.rule("7.4", "8.7.4")
def test_a_disk_inside_its_castle_counts_towards_an_overrun_of_the_besiegers():
    s = clear_board(new_game())
    c = land_blocks("christian", 1)
    put(s, "malaga", *c)                      # besieging El Zegri in Málaga castle
    assert s["castle"]["malaga"] == "muslim"
    arriving = land_blocks("muslim", 3)
    put(s, "malaga", *arriving)
    assert overrun.can_overrun(s, "malaga", "muslim")          # 3 blocks + the disk = 4
    s["blocks"][arriving[0]]["loc"] = "bag:muslim"
    assert not overrun.can_overrun(s, "malaga", "muslim")      # 2 + 1 < 4
