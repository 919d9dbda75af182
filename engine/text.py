"""The English of what a player reads, one helper per language concern (issue 38).

Every game's menus, prompts and log lines are built from f-strings; the mistakes a player saw
(``1 block(s)``, ``1 Parias``, ``for 1 action points``, ``christian takes back a step.``) all
come from writing the same small rules again in each game. These helpers write them once:

- ``plural(n, "block")`` is the number with its noun in the right number: ``1 block``,
  ``2 blocks``; irregular nouns pass their plural (``plural(n, "Paria", "Parias")`` is the
  regular one; ``plural(n, "fleet")``, ``plural(n, "zone of the battlefield", "zones of the
  battlefield")``).
- ``noun(n, "block")`` is the noun alone, for a number written elsewhere in the sentence.
- ``role_name("christian")`` is a role or player name as it is written in a sentence:
  ``Christian``, ``Yusuf``, ``Blue``.
- ``sentence(text)`` starts a line with a capital letter, for lines that begin with a role.

The engine is pure: nothing here knows a game; the games import it.
"""

from __future__ import annotations

__all__ = ["noun", "plural", "role_name", "sentence"]


def noun(n: int, singular: str, plural_form: str | None = None) -> str:
    """``singular`` for exactly one (or minus one), else its plural: ``plural_form`` when the
    noun is irregular, else the singular with an ``s`` (``es`` after s, x, z, ch, sh)."""
    if abs(n) == 1:
        return singular
    if plural_form is not None:
        return plural_form
    if singular.endswith(("s", "x", "z", "ch", "sh")):
        return singular + "es"
    return singular + "s"


def plural(n: int, singular: str, plural_form: str | None = None) -> str:
    """The number with its noun: ``plural(1, "block") == "1 block"``, ``plural(0, "card") ==
    "0 cards"``."""
    return f"{n} {noun(n, singular, plural_form)}"


def role_name(role: str) -> str:
    """A role or player name as written in a sentence: the first letter capitalised, the rest as
    it is (``christian`` -> ``Christian``; a display name ``deSoto`` stays ``DeSoto``, not
    ``Desoto``)."""
    return role[:1].upper() + role[1:]


def sentence(text: str) -> str:
    """``text`` starting with a capital letter (a log line that begins with a role: ``blue takes
    clay`` -> ``Blue takes clay``); the rest is left as written."""
    return text[:1].upper() + text[1:]
