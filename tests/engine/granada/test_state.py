"""State helpers: cards (3.3), control pieces (4.1-4.5), pieces (3.2, 3.4), frames."""

from __future__ import annotations

import pytest

import engine.granada as g
from engine.api import RuleError
from engine.granada import state as st
from tests.engine.granada.core_helpers import D, clear_board, land_blocks, new_game, put


@pytest.mark.rule("3.3")
def test_exhausted_draw_pile_reshuffles_the_discard_pile():
    s = new_game()
    deck = s["decks"]["muslim"]
    s["discards"]["muslim"] = deck[:-2]
    s["decks"]["muslim"] = deck[-2:]
    hand = len(s["hands"]["muslim"])
    drawn = st.draw_cards(s, "muslim", 5)
    assert len(drawn) == 5 and len(s["hands"]["muslim"]) == hand + 5
    assert s["discards"]["muslim"] == []
    assert any("shuffled" in e["text"] for e in s["log"])


@pytest.mark.rule("3.3")
def test_discards_are_public():
    s = new_game()
    card = s["hands"]["christian"][0]
    st.discard_cards(s, "christian", [card], "(test)")
    assert st.card_name(card) in g.view(s, "muslim")["log"][-1]["text"]
    assert card in s["discards"]["christian"]


@pytest.mark.rule("4.1")
def test_last_player_moving_through_a_location_free_of_enemies_controls_it():
    s = clear_board(new_game())
    st.pass_through(s, "ecija", "muslim", False)
    assert s["control"]["ecija"] == "muslim"
    put(s, "jerez", land_blocks("muslim", 1)[0])
    st.pass_through(s, "jerez", "christian", False)       # enemies there: no change
    assert s["control"]["jerez"] == "christian"


@pytest.mark.rule("4.3")
def test_castle_control_first_occupant_and_natural_alignment_when_empty():
    s = clear_board(new_game())
    c = land_blocks("christian", 1)[0]
    put(s, "loja", c)
    st.settle_location(s, "loja")
    assert s["castle"]["loja"] == "christian"
    m = land_blocks("muslim", 1)[0]
    put(s, "loja", m)
    st.settle_location(s, "loja")
    assert s["castle"]["loja"] == "christian"          # the side there first keeps it
    s["blocks"][c]["loc"] = "bag:christian"
    s["blocks"][m]["loc"] = "bag:muslim"
    st.settle_location(s, "loja")
    assert s["castle"]["loja"] == "muslim"              # natural alignment again


@pytest.mark.rule("4.3", "8.7.1")
def test_during_a_siege_castle_and_location_have_different_owners():
    s = clear_board(new_game())
    put(s, "loja", land_blocks("muslim", 1)[0], inside=True)
    put(s, "loja", land_blocks("christian", 2)[0])
    st.settle_location(s, "loja")
    assert s["castle"]["loja"] == "muslim" and s["control"]["loja"] == "christian"


@pytest.mark.rule("4.4")
def test_watchtower_control_is_the_location_control():
    s = new_game()
    assert s["control"]["zahara"] == "muslim" and D.locations["zahara"].watchtower


@pytest.mark.rule("4.5")
def test_each_port_gives_one_sea_zone_and_each_zone_has_one_port():
    ports = {L.port: loc for loc, L in D.locations.items() if L.port}
    assert len(ports) == 9 == len(D.sea_zones)
    for zone, z in D.sea_zones.items():
        assert ports[zone] == z.port


@pytest.mark.rule("3.2", "10.12.1")
def test_grey_blocks_are_played_by_the_christians():
    grey = next(b for b, blk in D.blocks.items() if blk.colour == "grey")
    assert st.owner(grey) == "christian"


@pytest.mark.rule("3.4", "8.7.4")
def test_disks_are_muslim_units_inside_their_castle():
    s = clear_board(new_game())
    assert st.units_at(s, "malaga", "muslim") == 1 and st.disks_at(s, "malaga") == ["el_zegri"]
    assert st.enemy_units_at(s, "baza", "christian") == 1


def test_reveal_bumps_the_reveal_counter_and_remembers():
    s = new_game()
    b = land_blocks("muslim", 1)[0]
    n = s["reveals"]
    st.reveal(s, b)
    assert s["reveals"] == n + 1 and b in s["known"]["christian"] and s["blocks"][b]["revealed"]
    st.conceal(s)
    assert not s["blocks"][b]["revealed"] and b in s["known"]["christian"]


@pytest.mark.rule("8.1", "8.6.6")
def test_frames_finish_into_the_frame_below():
    s = new_game()
    st.push_frame(s, {"module": "sequence", "kind": "combat", "side": "christian", "done": []})
    st.push_frame(s, {"module": "special", "kind": "x"})
    st.push_frame(s, {"module": "special", "kind": "y"})
    st.finish_frame(s, {"kind": "battle", "loc": "alhama"})      # e.g. after a retreat
    st.finish_frame(s, {"kind": "battle", "loc": "loja"})
    assert s["stack"][-1]["returns"] == [{"kind": "battle", "loc": "loja"}]
    assert s["stack"][-1]["done"] == ["alhama", "loja"]           # neither declared again
    with pytest.raises(RuleError):
        st.handler({"module": "no_such_module", "kind": "x"})


def test_apply_does_not_change_its_input_and_refuses_made_up_orders():
    s = new_game()
    before = repr(s)
    with pytest.raises(RuleError):
        g.apply(s, "christian", {"type": "teleport"})
    with pytest.raises(RuleError):
        g.apply(s, "christian", {"type": "bid", "card": "N01"})
    card = g.actions(s, "christian")[0]
    g.apply(s, "christian", card)
    assert repr(s) == before
