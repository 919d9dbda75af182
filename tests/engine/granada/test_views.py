"""Views hide what they must (3.1, 3.3, docs/architecture.md) and redeal re-draws it invisibly."""

from __future__ import annotations

import json
import random
import re

import pytest

import engine.granada as g
from engine.api import RuleError
from engine.granada import state as st
from engine.players import choose
from tests.engine.granada.core_helpers import (
    D,
    act,
    at_movement,
    buy,
    clear_board,
    land_blocks,
    new_game,
    put,
)


def dump(v) -> str:
    return json.dumps(v, sort_keys=True)


def played(seed: int, steps: int):
    """States along a game played by the built-in player."""
    s = new_game(seed)
    out = [s]
    for k in range(steps):
        if g.result(s) is not None:
            break
        role = g.active(s)[0]
        s = g.apply(s, role, choose(g, s, role, seed * 1000 + k))
        out.append(s)
    return out


@pytest.mark.rule("3.1")
def test_opponent_blocks_are_colour_and_place_only_under_opaque_keys():
    s = new_game()
    v = g.view(s, "christian")
    text = dump(v)
    hidden = [b for b, r in s["blocks"].items() if st.owner(b) == "muslim" and not r["revealed"]
              and not D.blocks[b].fleet]
    for b in hidden:
        assert f'"{b}"' not in text
    granada = v["locations"]["granada"]["blocks"]["muslim"]
    assert granada and all(set(x) == {"key", "side", "colour", "inside", "moved"} for x in granada)
    assert [x["key"] for x in granada] == [f"muslim:granada:{i}" for i in range(1, len(granada) + 1)]
    mine = v["locations"]["cordoba"]["blocks"]["christian"]
    assert all("faction" in x and x["key"] == x["id"] for x in mine)


@pytest.mark.rule("3.3")
def test_hands_deck_orders_bags_are_hidden_and_the_spectator_sees_the_common_part():
    s = new_game()
    spect = g.view(s, None)
    assert spect["hand"] == [] and spect["actions"] == [] and "prefs" not in spect
    text = dump(spect)
    for side in st.SIDES:
        for c in s["hands"][side]:
            assert f'"{c}"' not in text
    mus = dump(g.view(s, "muslim"))
    for c in s["hands"]["christian"] + s["decks"]["christian"][-3:]:
        assert f'"{c}"' not in mus
    v = g.view(s, "christian")
    assert {c["id"] for c in v["hand"]} == set(s["hands"]["christian"])
    assert v["boxes"]["recruit"]["muslim"]["count"] == 3
    assert isinstance(v["boxes"]["recruit"]["christian"], list)


@pytest.mark.rule("3.1", "3.3")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_redeal_leaves_the_role_view_unchanged(seed):
    for s in played(seed, 300)[::20]:
        for role in st.SIDES:
            before = dump(g.view(s, role))
            for k in range(3):
                assert dump(g.view(g.redeal(s, role, k), role)) == before


@pytest.mark.rule("3.1")
def test_redeal_really_redraws_the_opponent_identities_but_keeps_what_was_shown():
    s = clear_board(new_game())
    ids = land_blocks("muslim", 2, faction="andalusies")
    for b in ids:
        s["blocks"][b]["loc"] = "recruit:muslim"
    put(s, "loja", *land_blocks("muslim", 2, exclude=tuple(ids)))     # unseen ones
    s = at_movement(s, "muslim")
    s = buy(s, "muslim", "total")
    s = act(s, "muslim", type="muster")
    s = act(s, "muslim", type="muster_faction", faction="andalusies")
    s = act(s, "muslim", type="muster_at", loc="velez_malaga")
    s = act(s, "muslim", type="bring", block=ids[0])
    s = act(s, "muslim", type="bring", block=ids[1])
    changed = False
    for k in range(5):
        r = g.redeal(s, "christian", k)
        assert [r["blocks"][b]["loc"] for b in ids] == ["velez_malaga"] * 2   # shown at muster
        where = {b: r["blocks"][b]["loc"] for b in r["blocks"]}
        if where != {b: s["blocks"][b]["loc"] for b in s["blocks"]}:
            changed = True
        assert sorted(r["hands"]["muslim"] + r["decks"]["muslim"]) == \
            sorted(s["hands"]["muslim"] + s["decks"]["muslim"])
        assert r["hands"]["christian"] == s["hands"]["christian"]
    assert changed


@pytest.mark.rule("6.2")
def test_redeal_keeps_a_secret_bid_secret_and_biddable():
    s = new_game()
    card = next(a["card"] for a in g.actions(s, "muslim"))
    s = act(s, "muslim", type="bid", card=card)
    for k in range(5):
        r = g.redeal(s, "christian", k)
        assert D.cards[r["bids"]["muslim"]].bid is not None
        assert dump(g.view(r, "christian")) == dump(g.view(s, "christian"))


def test_view_keys_documented_for_front_ends():
    v = g.view(new_game(), "muslim")
    for key in ("prompt", "actions", "log", "locations", "seas", "boxes", "hand", "hand_sizes",
                "vp", "year_label", "turn_label", "first", "boabdil", "pending_battles", "battle",
                "contested", "disks", "surrender", "bids", "result"):
        assert key in v
    assert v["locations"]["malaga"]["disks"] == ["el_zegri"]
    assert v["locations"]["granada"]["castle"] == "muslim"
    assert "castle" not in v["locations"]["olvera"]


@pytest.mark.rule("3.3")
def test_private_log_lines_stay_private():
    s = new_game()
    mine = [e["text"] for e in g.view(s, "christian")["log"]]
    theirs = [e["text"] for e in g.view(s, "muslim")["log"]]
    assert any(t.startswith("You draw") for t in mine)
    drawn = [st.card_name(c) for c in s["hands"]["christian"]]
    assert not any(n in t for t in theirs for n in drawn)


def test_views_of_a_random_game_are_json():
    for s in played(4, 200)[::25]:
        for role in ("christian", "muslim", None):
            json.dumps(g.view(s, role))


@pytest.mark.rule("10.12.2", "3.1")
def test_grey_blocks_are_always_face_up():
    s = clear_board(new_game())
    grey = [b for b, blk in D.blocks.items() if blk.colour == "grey"]
    put(s, "guadix", *grey)
    v = g.view(s, "muslim")
    assert sorted(x["id"] for x in v["locations"]["guadix"]["blocks"]["christian"]) == sorted(grey)


# ---------------------------------------------------------------- hidden-information audit

_ID = re.compile(r"\b([WKG]\d{1,2}|O\d|[CMN]\d{2}|[CM]S\d)\b")
_PUBLIC = ("eliminated", "palace", "boabdil_box", "aside", "captured", "removed")
_OPAQUE_KEYS = {"key", "side", "colour", "inside", "moved"}


def unknown_blocks(s, role):
    """Block ids ``role`` may not identify now (role None: a spectator, who knows only what
    both players know)."""
    out = set()
    for b, r in s["blocks"].items():
        blk = D.blocks[b]
        owner = st.owner(b)
        if owner == role or blk.fleet or blk.colour == "grey" or r["revealed"] or r["loc"] in _PUBLIC:
            continue
        if b in s["known"][st.other(owner)]:
            continue        # shown to the opponent (muster, declared leader...): both know it
        out.add(b)
    return out


def secret_cards(s, role):
    """Cards whose place ``role`` may not know: the opponents' unseen hands and secret bids."""
    out = set()
    for side in st.SIDES:
        if side == role:
            continue
        out |= {c for c in s["hands"][side] if c not in s["hand_known"][side]}
        if s["bids"][side] not in (None, "none"):
            out.add(s["bids"][side])
    return out


def opaque_entries(v):
    for loc in v["locations"].values():
        for side_blocks in loc["blocks"].values():
            yield from (x for x in side_blocks if "id" not in x)
    for zone in v["seas"].values():
        for fleet in zone["fleets"]:
            yield from (x for x in fleet["carrying"] if "id" not in x)


@pytest.mark.rule("3.1", "3.3", "6.2")
@pytest.mark.parametrize("seed", [5, 6, 7])
def test_views_and_log_lines_of_random_games_leak_nothing(seed):
    """Along whole random games: no view (log aside) names a block its role cannot identify,
    a card of an opponent's unseen hand or a secret bid; opposing concealed blocks carry only
    colour, place and state under an opaque key; no new log line a role reads names such a
    block or card."""
    from engine.granada import choose

    rnd = random.Random(seed)
    s = new_game(seed)
    for step in range(3000):
        if g.result(s) is not None:
            break
        if step % 4 == 0:
            for role in ("christian", "muslim", None):
                v = g.view(s, role)
                text = dump({k: x for k, x in v.items() if k != "log"})
                named = set(_ID.findall(text))
                assert not named & unknown_blocks(s, role), (step, role)
                assert not named & secret_cards(s, role), (step, role)
                for x in opaque_entries(v):
                    assert set(x) == _OPAQUE_KEYS and x["key"] not in D.blocks
        role = g.active(s)[0]
        pick = rnd.choice(g.actions(s, role)) if seed % 2 else choose(s, role, seed * 1000 + step)
        t = g.apply(s, role, pick)
        for e in t["log"][len(s["log"]):]:
            named = set(_ID.findall(e["text"]))
            for reader in ("christian", "muslim", None):
                if "to" in e and reader not in e["to"]:
                    continue
                assert not named & unknown_blocks(t, reader), (step, reader, e["text"])
                assert not named & secret_cards(t, reader), (step, reader, e["text"])
        s = t
    assert g.result(s) is not None


@pytest.mark.rule("6.2")
def test_a_secret_bid_appears_nowhere_for_the_opponent_or_a_spectator():
    s = new_game()
    card = next(a["card"] for a in g.actions(s, "christian"))
    s = act(s, "christian", type="bid", card=card)
    for role in ("muslim", None):
        v = g.view(s, role)
        assert f'"{card}"' not in dump(v) and st.card_name(card) not in dump(v)
        assert v["bids"]["christian"] == "placed"
    with pytest.raises(RuleError) as err:
        act(s, "muslim", type="bid", card=card)          # the Christian's card
    assert card not in str(err.value.explain()).replace(f"card={card}", "")


@pytest.mark.rule("7.2", "6.4")
def test_recruits_drawn_and_mustered_unseen_are_named_only_to_their_owner():
    s = clear_board(new_game())
    b = land_blocks("muslim", 1, faction="zegries")[0]
    s["blocks"][b]["loc"] = "recruit:muslim"
    s = at_movement(s, "muslim")
    s = buy(s, "muslim", "total")
    s = act(s, "muslim", type="muster")
    s = act(s, "muslim", type="muster_single", block=b)
    s = act(s, "muslim", type="muster_at", loc="velez_malaga")
    for role in ("christian", None):
        text = dump(g.view(s, role))
        assert f'"{b}"' not in text and f"({b})" not in text
    assert any(f"({b})" in e["text"] for e in g.view(s, "muslim")["log"])


# ---------------------------------------------------------------- the final reveal

def _shown_ids(v):
    ids = set()
    for loc in v["locations"].values():
        for side_blocks in loc["blocks"].values():
            ids |= {x["id"] for x in side_blocks if "id" in x}
    for zone in v["seas"].values():
        for fleet in zone["fleets"]:
            ids.add(fleet["id"])
            ids |= {x["id"] for x in fleet["carrying"] if "id" in x}
    return ids


@pytest.mark.rule("2.1", "2.2", "3.1")
@pytest.mark.parametrize("seed", [1, 2])
def test_the_final_reveal_shows_every_block_to_everyone_only_once_the_game_is_over(seed):
    """The game over, every view (both players' and a spectator's) shows every block's
    identity, so that one view draws the final reveal; until then the opponent's concealed
    blocks keep their opaque keys. redeal then has nothing left to hide for blocks."""
    states = played(seed, 5000)
    before, end = states[-2], states[-1]
    assert g.result(before) is None and g.result(end) is not None
    for role in st.SIDES:
        v = g.view(before, role)
        hidden = list(opaque_entries(v))
        assert hidden and all(x["side"] == st.other(role) for x in hidden)
        assert isinstance(v["boxes"]["recruit"][st.other(role)], dict)
    on_board = {b for b, r in end["blocks"].items()
                if r["loc"] in D.locations or r["loc"].startswith("sea:")}
    for role in ("christian", "muslim", None):
        v = g.view(end, role)
        assert list(opaque_entries(v)) == []
        assert _shown_ids(v) == on_board
        for side in st.SIDES:
            box = v["boxes"]["recruit"][side]
            assert sorted(x["id"] for x in box) == sorted(
                b for b, r in end["blocks"].items() if r["loc"] == f"recruit:{side}")
        assert v["result"] == end["result"] and "score" in v["result"]
        if role is not None:
            for k in range(3):
                assert dump(g.view(g.redeal(end, role, k), role)) == dump(v)


@pytest.mark.parametrize("seed", [2, 5])
def test_log_lines_and_labels_of_random_games_read_as_english(seed):
    """No "a artillery", no space before a full stop, no "1 blocks" (issue 12)."""
    bad = re.compile(r"\ba artillery\b|\ba [aeiou]\w* special attack| \.$|\b1 blocks\b")
    for s in played(seed, 1500):
        for role in g.active(s):
            for a in g.legal_actions(s, role):
                assert not bad.search(a["label"]), a["label"]
    for e in s["log"]:
        assert not bad.search(e["text"]), e["text"]


@pytest.mark.rule("6.4", "5.2.3")
def test_the_opponent_sees_only_how_many_recruits_fleets_included_wait_face_down():
    s = new_game()
    fleet = next(b for b in sorted(D.blocks) if D.blocks[b].fleet and D.blocks[b].side == "muslim"
                 and s["blocks"][b]["loc"] == "bag:muslim")
    land = next(b for b in sorted(D.blocks) if not D.blocks[b].fleet and D.blocks[b].side == "muslim"
                and s["blocks"][b]["loc"] == "bag:muslim")
    boxed = sum(1 for r in s["blocks"].values() if r["loc"] == "recruit:muslim")
    for b in (fleet, land):
        s["blocks"][b]["loc"] = "recruit:muslim"
    for role in ("christian", None):
        v = g.view(s, role)
        assert v["boxes"]["recruit"]["muslim"] == {"count": boxed + 2}
        assert fleet not in dump(v) and fleet in g.concealed_ids(s, role)
    own = g.view(s, "muslim")["boxes"]["recruit"]["muslim"]
    assert {fleet, land} <= {x["id"] for x in own}
    # a redeal for the Christian may put any unseen Muslim block, fleet or not, in the box
    boxed = {frozenset(b for b, r in g.redeal(s, "christian", k)["blocks"].items()
                       if r["loc"] == "recruit:muslim") for k in range(40)}
    assert any(all(not D.blocks[b].fleet for b in box) for box in boxed)
    assert all(g.view(g.redeal(s, "christian", k), "christian") == g.view(s, "christian")
               for k in range(5))


def test_every_view_says_its_phase_reaction_and_focus():
    """docs/architecture.md "What a view carries": phase changes with each Movement or Combat Phase,
    battle and year step; focus is the battle's location; every role's view carries them."""
    seen: list[str] = []
    battles = 0
    for s in played(7, 900):
        views = [g.view(s, r) for r in ("christian", "muslim", None)]
        for v in views:
            assert {"phase", "reaction", "focus"} <= set(v)
            assert isinstance(v["phase"], str) and v["phase"] and isinstance(v["reaction"], bool)
        assert len({v["phase"] for v in views}) == 1 and len({v["focus"] for v in views}) == 1
        v = views[2]
        b = v["battle"]
        assert v["focus"] == (None if b is None else b.get("loc") or b.get("zone"))
        if b is not None:
            assert v["phase"].endswith(f"battle at {v['focus']}")
        if not seen or seen[-1] != v["phase"]:
            seen.append(v["phase"])
            battles += b is not None
    assert seen[0] == "1482 turn order"
    assert any(p.endswith("movement") for p in seen) and any("combat" in p for p in seen)
    assert battles >= 2 and any(p.endswith("reinforcements") for p in seen)
    assert len(seen) == len(set(seen)) or all(a != b for a, b in zip(seen, seen[1:]))


def test_phase_stays_while_a_player_moves_and_changes_with_the_combat_phase():
    s = clear_board(new_game())
    c = land_blocks("christian", 1)[0]
    put(s, "jerez", c)
    put(s, "zahara", land_blocks("muslim", 1)[0])
    s = at_movement(s, "christian")
    before = g.view(s, None)["phase"]
    assert before == "1485 I: christian movement"
    s = buy(s, "christian", "minimal")
    s = act(s, "christian", type="activate", loc="jerez")
    s = act(s, "christian", type="take", block=c)
    assert g.view(s, None)["phase"] == before and g.view(s, None)["focus"] is None
    s = act(s, "christian", type="step", to="zahara")
    s = act(s, "christian", type="end_movement")
    v = g.view(s, "muslim")
    assert v["phase"] == "1485 I: christian combat, battle at zahara" and v["focus"] == "zahara"
    assert v["reaction"] is True and g.view(s, "christian")["reaction"] is False
