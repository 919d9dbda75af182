"""The optional rules of section 11 as game options (engine contract ``OPTIONS``).

Every option is off by default; ``all`` turns every one on. The pieces of an option (the
blocks O1-O6 and the cards of ``cards.json`` "optional_cards") enter the game only when it is
on: otherwise they stay aside, out of every deck, box and view (components keep them).

``on(state, name)`` is the one question the rules code asks. ``mercenaries`` is not a plain
switch: 11.1 gives both coalitions their Mercenaries, the variant 11.1.1 only one of them.
"""

from __future__ import annotations

from typing import Any

from engine.api import RuleError, State
from engine.text import noun

MERCENARY_CHOICES = ("off", "both", "christian", "muslim")

OPTIONS: dict[str, dict[str, Any]] = {
    "all": {"type": "bool", "default": False,
            "help": "Every optional rule of section 11 below (Mercenaries for both sides)."},
    "mercenaries": {"type": "str", "choices": list(MERCENARY_CHOICES), "default": "off",
                    "help": "11.1 Mercenaries hired at the Reinforcement Step for a trumpet card; "
                            "11.1.1: only one coalition (christian or muslim) has them."},
    "papal_bull": {"type": "bool", "default": False,
                   "help": "11.2 Papal Bull: from 1487-1488, with 6 castles or fewer, two Crusaders "
                           "join the Christians."},
    "general_mobilization": {"type": "bool", "default": False,
                             "help": "11.3 General Mobilization: a Christian card giving one free "
                                     "Total movement."},
    "boabdil_captured_card": {"type": "bool", "default": False,
                              "help": "11.4 Boabdil Is Captured in Combat: a Christian card that "
                                      "captures Boabdil after a won battle he was deployed in."},
    "naval_bombardment": {"type": "bool", "default": False,
                          "help": "11.6 Naval Bombardment cards: fleets off a coastal battle add "
                                  "2 or 3 impacts (or take them off a besieger)."},
    "out_of_supply": {"type": "bool", "default": False,
                      "help": "11.8 Out of Supply markers: stacks cut off from their own territory "
                              "lose a block per 5 impacts."},
    "pioneers": {"type": "bool", "default": False,
                 "help": "11.7 Pioneers tiles: +1 impact each to a Christian castle siege "
                         "(one per siege)."},
    "sortie": {"type": "bool", "default": False,
               "help": "11.5 Sortie cards: a besieged Muslim castle takes 2 or 3 impacts off "
                       "the assault."},
}

#: Cards each option brings into its side's deck (11.3, 11.5): ids of cards.json
#: "optional_cards" by kind.
CARD_KINDS: dict[str, tuple[str, ...]] = {
    "general_mobilization": ("general_mobilization",),
    "boabdil_captured_card": ("boabdil_captured",),
    "sortie": ("sortie",),
    "naval_bombardment": ("naval_bombardment",),
}


def check(options: dict[str, Any]) -> None:
    """Refuse unknown options and values (the service checks them too; setup may be called
    directly)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise RuleError(f"unknown {noun(len(unknown), 'option')} {', '.join(unknown)}; this version offers "
                        f"{', '.join(sorted(OPTIONS))}")
    for name, value in options.items():
        spec = OPTIONS[name]
        if "choices" in spec and value not in spec["choices"]:
            raise RuleError(f"option {name} is one of {', '.join(spec['choices'])}, not {value!r}")
        if spec["type"] == "bool" and not isinstance(value, bool):
            raise RuleError(f"option {name} is true or false, not {value!r}")


def _options(state: State) -> dict[str, Any]:
    """The options of ``state``, read only: during an apply, the input's own rather than the
    copy a ``state.get`` takes (engine.granada._StepState; issue 33)."""
    value = dict.get(state, "options")
    if value is None and state.__class__ is not dict:
        src = getattr(state, "_src", None)
        if src is not None:
            value = src.get("options")
    return value or {}


def on(state: State, name: str) -> bool:
    """Whether the optional rule ``name`` is in play (``all`` plays every one)."""
    opts = _options(state)
    if opts.get("all"):
        return True
    value = opts.get(name, OPTIONS[name]["default"])
    if name == "mercenaries":
        return value != "off"
    return bool(value)


def mercenary_sides(state: State) -> tuple[str, ...]:
    """The sides with Mercenaries (11.1: both; 11.1.1: one)."""
    opts = _options(state)
    value = "both" if opts.get("all") else opts.get("mercenaries", "off")
    return {"off": (), "both": ("christian", "muslim"), "christian": ("christian",),
            "muslim": ("muslim",)}[value]
