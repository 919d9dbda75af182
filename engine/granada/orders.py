"""Granada's typed-order shorthand (the contract's ``parse_order``): the orders players type
most, expanded into the parts of an order chain, each a few words of one step's label.

The front end matches each part against the legal actions step by step on a copy of the
state (``bot.service``'s ``apply_order``), so the shorthand adds no rule: a part that fits no
legal action refuses the whole order. A part starting with ``?`` (:data:`engine.api.OPTIONAL_PART`)
is a step the engine only sometimes asks, skipped when nothing fits it.
"""

from __future__ import annotations

import re

from engine.api import OPTIONAL_PART

PLACES = re.compile(r"\s*(?:>|,|→|->|\bto\b)\s*", re.IGNORECASE)


def parse_order(text: str) -> list[str] | None:
    """The parts of Granada's shorthand orders (rulebook 7.2, 7.3, 8.2), None for any other text:

    * ``move Loja > Moclín > Granada``: activate Loja, take the whole stack, step along the
      path, end the stack's move there;
    * ``muster Zegries at Ronda``: muster that faction at that recruitment location;
    * ``deploy Zegries cavalry with Cavalry Charge``: play the card, deploy the block.
    """
    t = text.strip()
    m = re.fullmatch(r"(?i)move\s+(.+)", t)
    if m:
        places = [p for p in PLACES.split(m.group(1)) if p.strip()]
        if len(places) < 2:
            return None
        return [f"activate {places[0]}", f"{OPTIONAL_PART}take all", *(f"step to {p}" for p in places[1:]),
                f"{OPTIONAL_PART}end this stack"]
    m = re.fullmatch(r"(?i)muster\s+(.+?)\s+at\s+(.+)", t)
    if m:
        return [f"{OPTIONAL_PART}muster from the recruitment box", f"muster {m.group(1)} blocks",
                f"muster at {m.group(2)}"]
    m = re.fullmatch(r"(?i)deploy\s+(.+?)\s+with\s+(.+)", t)
    if m:
        return [f"play {m.group(2)}", f"deploy {m.group(1)}"]
    return None
