"""Granada: Last Stand of the Moors for the search: canonical information sets, an evaluation.

The canonical form is Granada's own (:func:`engine.granada.views.canonical`: its re-deal with
every shuffle replaced by a fixed order, one source of truth with ``redeal``):

* the opponent's blocks the role never identified keep their records (where they stand,
  inside or not, moved, fresh), but which block holds which record is fixed: the records
  sorted by content and by where the decision frames name their holder (a public position),
  land records to the lowest land block ids, bag records to the rest; the frames and the
  entries are renamed the same way;
* the opponent's unseen hand, draw pile and secret bid, the role's own draw pile and the
  naval deck are sorted; the frames' own secrets are re-drawn by their ``redeal`` hooks with a
  fixed generator; private log lines of the opponent go; the generator is reset.

So two states the role cannot tell apart have one canonical form, and every sample the
search draws (``redeal`` of that form) is fair. tests/engine/ai checks
``canonical(s) == canonical(redeal(s, role, k))`` over played games, so a change of Granada's
hidden information that this module does not follow fails there.

The evaluation is the victory-point race "if the game ended now" (victory.score: castles,
watchtowers, resources linked to Granada by the line of communication; the Muslims win ties)
against the pace the Christians need, plus the strength (shields) each side has in play.
"""

from __future__ import annotations

import functools
import math

from engine import granada as granada_rules
from engine.ai.adapters import Adapter, Budget, default_candidates
from engine.api import Action, GameModule, State
from engine.granada import movement, victory
from engine.granada import state as st
from engine.granada.views import PUBLIC_PLACES

OUT_OF_PLAY = ("bag:", "recruit:") + PUBLIC_PLACES
LAST_YEAR = 6


def _strength(state: State) -> dict[str, float]:
    d = st.data()
    out = {"christian": 0.0, "muslim": 0.0}
    for bid, rec in state["blocks"].items():
        loc = rec["loc"]
        if loc.startswith(OUT_OF_PLAY):
            continue
        side = st.owner(bid)
        if side in out:
            out[side] += d.blocks[bid].shields or 2
    return out


@functools.cache
def _opening_lead() -> float:
    """The Christians' points lead at setup (negative: the kingdom of Granada starts far ahead)."""
    from engine import granada

    points = victory.score(granada.setup(0, {}))
    return points["christian"] - points["muslim"]


def evaluate(state: State) -> dict[str, float]:
    """The Christian's and the Muslim's chances from the points race and the strength in play.

    The points lead "if the game ended now" is judged against the pace the Christians need:
    the opening deficit closing linearly to nothing by the last year (2.2 counts only then), so
    an even position early in the war scores about even instead of a sure Muslim win, and the
    sigmoid keeps its slope where the search must tell moves apart.
    """
    points = victory.score(state)
    lead = points["christian"] - points["muslim"] - 0.5       # the Muslims win ties
    year = min(LAST_YEAR, int(state.get("year", 0)))
    pace = _opening_lead() * (1 - year / LAST_YEAR)
    power = _strength(state)
    total = max(1.0, power["christian"] + power["muslim"])
    x = 0.18 * (lead - pace) + 2.5 * (power["christian"] - power["muslim"]) / total
    if state["castle"].get("granada") == "christian":
        x += 10.0
    chance = 1.0 / (1.0 + math.exp(-x))
    return {"christian": chance, "muslim": 1.0 - chance}


def candidates(module: GameModule, state: State, role: str) -> list[Action]:
    """Every legal action but those that begin or close a circle of taking blocks and putting
    them back before they step.

    Putting a stack back undoes its taking, and each decision is searched from the state
    alone, so the search went round that circle (take the blocks, judge every step worse, put
    them back, take them again): a game of 4,937 steps, 3,470 of them the Christian search's
    own. So the search takes no blocks that could not step (movement.can_step: every road
    barred or too long, even force marched), and does not put back a stack that can step:
    taking blocks is judged by the best move they can make, and "finish the moves from here"
    is what stays put. The engine still offers both to human players."""
    legal = default_candidates(module, state, role)
    frame = st.top(state)
    if frame is None or frame.get("module") != "movement" or frame.get("pay"):
        return legal
    stack = frame.get("mstack")
    if stack is not None and stack["steps"] > 0:
        return legal
    if frame.get("origin") is None and stack is None:
        return legal
    kept = [a for a in legal if not (a["type"] in TAKES and not _taken_can_step(module, state, role, a))]
    if stack is not None and movement.can_step(state, frame, stack):
        kept = [a for a in kept if a["type"] != "end_move"]
    return kept or legal


TAKES = ("take", "take_all", "take_grey")


def _taken_can_step(module: GameModule, state: State, role: str, take: Action) -> bool:
    after = module.apply(state, role, take)
    frame = st.top(after)
    if frame is None or frame.get("module") != "movement" or frame.get("mstack") is None:
        return True
    return movement.can_step(after, frame, frame["mstack"])


# Calibrated on the 2-core reference machine: ``alcazaba bench --ai --game granada --level
# normal --games 1`` with 52 iterations took a median 0.33 s of CPU a decision (p95 0.42 s;
# 803 decisions, the machine busy with other work, 26 Nov 2026), so 6.3 ms an iteration: 72
# iterations are about 0.45 s (normal) and 288 about 1.8 s (hard): engine.ai SECONDS.
# ``alcazaba bench --ai`` reports the real figure (ai.think_s.granada.<level>).
ADAPTER = Adapter(
    canonical=granada_rules.canonical,
    evaluate=evaluate,
    candidates=candidates,
    budgets={"normal": Budget(iterations=72, depth=40), "hard": Budget(iterations=288, depth=40)},
)
