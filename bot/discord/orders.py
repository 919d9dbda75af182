"""Orders typed with ``/play``: one action by name, or a compound order of several steps.

A compound order is written ``first > second > third`` (each part names one step by a few
words of its label), or in a game's own shorthand (``SHORTHANDS``) that expands into such
parts. The whole chain is matched against the legal actions step by step on a copy of the
state before anything is applied, so an order that does not fit from start to end changes
nothing. Matching uses the seat's legal actions only, so no hidden fact is consulted beyond
what the engine already offers that seat.

A game that pages long lists for select menus (Granada: ``{"type": "menu"}`` steps,
engine/granada/menus.py) offers the whole list as ``legal_actions(state, role)``: typed orders
and autocomplete use it, so an order may name any legal action, whatever page the player's
prompt shows, and never a page turn.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from discord import app_commands

import engine
from bot.discord import present
from bot.discord.errors import UserError
from engine.api import RuleError, State, describe

MAX_PARTS = 40
SEPARATORS = re.compile(r"\s*(?:>|;|→|->)\s*")


def fold(text: str) -> str:
    """Case, accents and punctuation do not matter when a player types a name."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w\s]", " ", plain.casefold()).split())


def legal_actions(game_id: str, state: State, role: str) -> list[dict[str, Any]]:
    """Every legal action of ``role``, unpaged (the game's ``legal_actions`` where it pages its
    lists, else its ``actions``)."""
    return list(engine.get(game_id).legal_actions(state, role))


def choice_value(version: int, index: int) -> str:
    return f"v{version}:{index}"


def from_choice_value(text: str, version_now: int, legal: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The action an autocomplete choice stands for (an index into ``legal`` at
    ``version_now``), None when ``text`` is not one."""
    m = re.fullmatch(r"v(\d+):(\d+)", text.strip())
    if not m:
        return None
    version, index = int(m.group(1)), int(m.group(2))
    if version != version_now or not 0 <= index < len(legal):
        raise UserError(f"That choice was offered at move {version}; the game is at move {version_now} now. "
                        "Type the order again to see today's choices.")
    return dict(legal[index])


def match(legal: Sequence[dict[str, Any]], words: str) -> dict[str, Any]:
    """The one legal action whose label fits ``words``: equal, else every typed word begins a
    word of the label ("gran" fits "Granada", not "Valladolid" for "all")."""
    wanted = fold(words)
    if not wanted:
        raise UserError("An empty part in the order: write the steps as first > second > third.")
    labels = [(fold(describe(a)), a) for a in legal]
    exact = [a for text, a in labels if text == wanted]
    if len(exact) == 1:
        return exact[0]
    terms = wanted.split()
    fits = [a for text, a in labels if all(any(w.startswith(t) for w in text.split()) for t in terms)]
    if len(fits) == 1:
        return fits[0]
    if not fits:
        allowed = [describe(a) for a in legal]
        raise RuleError(f"'{present.clip(words, 60)}' is not a legal order now", None, allowed)
    shown = ", ".join(present.clip(describe(a), 40) for a in fits[:6])
    raise UserError(f"'{present.clip(words, 60)}' fits several orders ({shown}{'…' if len(fits) > 6 else ''}); "
                    "add a word or pick from the list.")


Shorthand = Callable[[str], list[str] | None]
OPTIONAL = "?"
"""A part starting with ``?`` is skipped when no legal action fits it (a step the engine
only sometimes asks, such as taking the whole stack when there is a choice)."""

PLACES = re.compile(r"\s*(?:>|,|→|->|\bto\b)\s*", re.IGNORECASE)


def granada(text: str) -> list[str] | None:
    """Granada's orders players type most (rulebook 7.2, 7.3, 8.2):

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
        return [f"activate {places[0]}", f"{OPTIONAL}take all", *(f"step to {p}" for p in places[1:]),
                f"{OPTIONAL}end this stack"]
    m = re.fullmatch(r"(?i)muster\s+(.+?)\s+at\s+(.+)", t)
    if m:
        return [f"{OPTIONAL}muster from the recruitment box", f"muster {m.group(1)} blocks",
                f"muster at {m.group(2)}"]
    m = re.fullmatch(r"(?i)deploy\s+(.+?)\s+with\s+(.+)", t)
    if m:
        return [f"play {m.group(2)}", f"deploy {m.group(1)}"]
    return None


SHORTHANDS: dict[str, Shorthand] = {"granada": granada}
"""Per game: turns a typed order into step parts, or None when it is not that shorthand."""


def parts_of(game_id: str, text: str) -> list[str]:
    short = SHORTHANDS.get(game_id)
    if short is not None:
        expanded = short(text)
        if expanded:
            return expanded
    return [p for p in SEPARATORS.split(text.strip()) if p.strip()]


def plan(game_id: str, state: dict[str, Any], role: str, text: str) -> list[dict[str, Any]]:
    """The engine steps a typed order stands for, checked on a copy of the state."""
    module = engine.get(game_id)
    parts = parts_of(game_id, text)
    if not parts:
        raise UserError("Write an order, e.g. the name of a choice, or several steps as first > second.")
    if len(parts) > MAX_PARTS:
        raise UserError(f"An order has at most {MAX_PARTS} steps.")
    steps: list[dict[str, Any]] = []
    current = state
    for n, part in enumerate(parts):
        if role not in module.active(current):
            if all(p.startswith(OPTIONAL) for p in parts[n:]):
                break
            raise UserError(f"After '{present.clip(parts[n - 1].lstrip(OPTIONAL), 60)}' it is no longer your "
                            f"turn; the rest of the order ('{present.clip(part.lstrip(OPTIONAL), 60)}' …) was not given.")
        legal = legal_actions(game_id, current, role)
        optional = part.startswith(OPTIONAL)
        words = part[1:] if optional else part
        try:
            action = match(legal, words)
        except RuleError as exc:
            if optional:
                continue
            if n == 0:
                raise
            raise RuleError(f"step {n + 1} of the order: {exc}", exc.rule, exc.allowed) from None
        current = module.apply(current, role, action)
        steps.append(action)
    if not steps:
        raise UserError("Nothing in that order fits your choices now.")
    return steps


def suggestions(version: int, legal: Sequence[dict[str, Any]], typed: str) -> list[app_commands.Choice[str]]:
    """Autocomplete: the legal actions (``legal`` at ``version``) whose label fits what was
    typed (25 at most)."""
    wanted = fold(typed)
    out: list[app_commands.Choice[str]] = []
    if SEPARATORS.search(typed or "") and len(typed) <= 100:
        out.append(app_commands.Choice(name=present.clip(typed, 100), value=typed))
    terms = wanted.split()
    for index, action in enumerate(legal):
        text = fold(describe(action))
        if all(t in text for t in terms):
            out.append(app_commands.Choice(name=present.label(action, 100), value=choice_value(version, index)))
        if len(out) >= 25:
            break
    return out
