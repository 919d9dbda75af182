"""Impact arithmetic (8.3, 8.5.1, 8.7.5): pure functions over explicit inputs.

A side's deployments are kept in deployment order as small dicts
``{"blocks": [id, ...], "card": id | None, "special": "cavalry" | "crossbow" | "artillery" | "",
"out": [ids that failed a Morale Challenge]}`` (a Double Shield card deploys two blocks in
one entry; only the first block of an entry may carry a special attack). The impact of
every entry is recomputed from the whole list, so that a block that failed a Morale
Challenge (8.4.1: "does not fight ... does not produce any impact") also stops counting
towards the bonus of later blocks of its faction and towards later special attacks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.granada import components as comp
from engine.granada.cards import (
    Context,
    bonus_group,
    deploy_special,
    is_army_leader,
)

WATCHTOWER_IMPACTS = 4       # 10.3
FIELD_LOSS_EVERY = 7         # 8.5.1


def base_impact(b: comp.Block) -> int:
    """Shields; army leaders score 2 (8.3.1)."""
    if b.shields:
        return b.shields
    return 2 if is_army_leader(b) else 0


def block_impact(b: comp.Block, special: str, earlier: Sequence[tuple[comp.Block, str]],
                 siege: bool) -> int:
    """Impacts of one block deployed after ``earlier`` (block, special) pairs that fight.

    8.3.2: +1 per earlier block of the same shield. 8.3.3.1: a cavalry or crossbow special
    attack adds 2, plus 2 per earlier special attack of the same type (not cumulative in a
    castle siege, 8.7.6). 8.3.3.2: an artillery special attack adds 2, never more.
    """
    value = base_impact(b)
    group = bonus_group(b)
    if group is not None:
        value += sum(1 for e, _ in earlier if bonus_group(e) == group)
    if special == "artillery" or (special == "crossbow" and siege):
        value += 2
    elif special in ("cavalry", "crossbow"):
        value += 2 + 2 * sum(1 for _, s in earlier if s == special)
    return value


def deployment_impacts(deployments: Iterable[dict[str, Any]], blocks: dict[str, comp.Block],
                       siege: bool) -> list[list[int]]:
    """The impact of every block of every entry (0 for cancelled entries), in order."""
    fighting: list[tuple[comp.Block, str]] = []
    out: list[list[int]] = []
    for dep in deployments:
        values = []
        for i, bid in enumerate(dep["blocks"]):
            b = blocks[bid]
            # Only the first block of an entry carries its special attack (a Double Shield
            # card launches none, 8.3.4).
            special = dep["special"] if i == 0 else ""
            if bid in dep.get("out", ()):
                values.append(0)
                continue
            values.append(block_impact(b, special, fighting, siege))
            fighting.append((b, special))
        out.append(values)
    return out


def total_impacts(deployments: Iterable[dict[str, Any]], blocks: dict[str, comp.Block],
                  siege: bool, bonus: int = 0) -> int:
    return sum(sum(v) for v in deployment_impacts(deployments, blocks, siege)) + bonus


def field_losses(impacts_against: int, lost_battle: bool, every: int = FIELD_LOSS_EVERY) -> int:
    """8.5.1: one block per 7 impacts delivered by the opponent (5 out of supply, 11.8), one
    more for the loser."""
    return impacts_against // every + (1 if lost_battle else 0)


def siege_threshold(artillery: bool, port: bool, blockaded: bool) -> int:
    """8.7.5 table: 7 with an artillery special attack by the attacker, 9 without; a castle
    with a port needs one more unless the port is blockaded by enemy fleets."""
    return (7 if artillery else 9) + (1 if port and not blockaded else 0)


def siege_losses(attacker_total: int, defender_total: int, threshold: int) -> int:
    """8.7.5: the defender's artillery impacts are subtracted from the attacker's sum."""
    return max(0, attacker_total - defender_total) // threshold


# ---------------------------------------------------------------- siege start check (8.7.1)

def siege_can_start(blocks: Sequence[comp.Block], hand: Sequence[comp.Card],
                    port: bool, blockaded: bool) -> bool:
    """Could the attacker, with these blocks and this hand, deliver enough impacts to
    eliminate at least one defending unit, before any defender reaction (8.7.1)?

    In a siege the total does not depend on the order of deployment (bonuses add up to
    k(k-1)/2 per shield, special attacks add a flat 2, 8.7.6), and all leaders deploy first
    without a card (8.2.3), so this searches the assignments of cards to blocks.
    """
    need_art = siege_threshold(True, port, blockaded)
    need_plain = siege_threshold(False, port, blockaded)
    ctx = Context(siege=True, attacker=True)
    leaders = [b for b in blocks if b.leader > 0]
    others = [b for b in blocks if b.leader == 0]
    cards = [c for c in hand if c.kind in ("faction", "double", "commander", "crossbowmen",
                                           "cavalry_charge", "bombardment")]

    def score(chosen: list[comp.Block], specials: int) -> int:
        total = sum(base_impact(b) for b in chosen) + 2 * specials
        counts: dict[str, int] = {}
        for b in chosen:
            g = bonus_group(b)
            if g is not None:
                counts[g] = counts.get(g, 0) + 1
        return total + sum(k * (k - 1) // 2 for k in counts.values())

    # A bound on what one more card can add: two blocks of up to 4 shields with their bonus,
    # and a special attack.
    best_gain = 2 * (4 + len(blocks)) + 2
    failed: set[tuple[int, frozenset[int], int, bool]] = set()

    def search(i: int, used: frozenset[int], chosen: list[comp.Block], specials: int,
               artillery: bool) -> bool:
        value = score(leaders + chosen, specials)
        if value >= (need_art if artillery else need_plain):
            return True
        key = (i, used, specials, artillery)
        if i == len(cards) or key in failed:
            return False
        free = [j for j in range(len(others)) if j not in used]
        if value + best_gain * min(len(cards) - i, len(free)) < need_art:
            failed.add(key)
            return False
        card = cards[i]
        for j in free:
            b = others[j]
            special = deploy_special(card, b, ctx)
            if special is None:
                continue
            sp = 1 if special else 0
            art = artillery or special == "artillery"
            if search(i + 1, used | {j}, chosen + [b], specials + sp, art):
                return True
            if card.kind == "double" and not any_faction_block(b):
                for k in free:
                    if k > j and deploy_special(card, others[k], ctx) is not None \
                            and not any_faction_block(others[k]) \
                            and search(i + 1, used | {j, k}, chosen + [b, others[k]], specials, artillery):
                        return True
        if search(i + 1, used, chosen, specials, artillery):
            return True
        failed.add(key)
        return False

    return search(0, frozenset(), [], 0, False)


def any_faction_block(b: comp.Block) -> bool:
    from engine.granada.cards import any_faction

    return any_faction(b)
