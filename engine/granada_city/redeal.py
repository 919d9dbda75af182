"""Re-deal what nobody can see, consistently with what everybody has seen.

Hidden from every player alike: the order of the money deck (with the scoring cards still in
it, each kept within the pile it was shuffled into) and the bag's future draws (the
generator). The money hands are secret in the views, but every card reaches a hand face up
(the starting capital is dealt face up, the display lies open), so a player who remembers
the game knows them: they are not re-dealt.
"""

from __future__ import annotations

from engine import rng
from engine.api import clone
from engine.granada_city.core import State
from engine.granada_city.data import CATALOG


def redeal(state: State, role: str, seed: int) -> State:
    s = clone(state)
    gen = rng.Generator(seed)
    deck = s["deck"]
    piles = s["piles"]
    scoring_at: list[tuple[str, int]] = []
    start = 0
    for i, size in enumerate(piles):
        for card in deck[start:start + size]:
            if card in CATALOG.scoring_cards:
                scoring_at.append((card, i))
        start += size
    money = [c for c in deck if c not in CATALOG.scoring_cards]
    gen.shuffle(money)
    rebuilt: list[str] = []
    for i, size in enumerate(piles):
        extra = [c for c, p in scoring_at if p == i]
        pile = money[:size - len(extra)]
        money = money[size - len(extra):]
        for card in extra:
            pile.insert(gen.randbelow(len(pile) + 1), card)
        rebuilt.extend(pile)
    s["deck"] = rebuilt
    s["rng"] = rng.seed_state(gen.randbelow(1 << 62))
    return s
