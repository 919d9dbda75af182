"""Typed orders: one action named by a few words of its label, or a chain of steps.

A chain is written ``first > second > third`` (each part names one step by a few words of its
label), or in a game's own shorthand (its ``parse_order``, engine/api.py) that expands into
such parts. :func:`plan` matches the whole chain against the seat's legal actions step by
step on a copy of the state, before anything is applied, so an order that does not fit from
start to end changes nothing (``GameService.apply_order`` then applies the steps in one
transaction). Matching reads only the seat's own legal actions, which its view shows: no
hidden fact is consulted beyond what the engine already offers that seat.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from bot.service.types import ServiceError
from engine.api import OPTIONAL_PART, Action, GameModule, RuleError, State, View, describe, view_actions

MAX_PARTS = 40
SEPARATORS = re.compile(r"\s*(?:>|;|→|->)\s*")


class OrderRefused(ServiceError):
    """A typed order that names no step clearly (empty, ambiguous, too long), worded for the
    player. An order the rules forbid raises the engine's RuleError instead."""


def fold(text: str) -> str:
    """Case, accents and punctuation do not matter when a player types a name."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w\s]", " ", plain.casefold()).split())


def _clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def match(legal: Sequence[Action], words: str) -> Action:
    """The one legal action whose label fits ``words``: equal, else every typed word begins a
    word of the label ("gran" fits "Granada", not "Valladolid" for "all")."""
    wanted = fold(words)
    if not wanted:
        raise OrderRefused("An empty part in the order: write the steps as first > second > third.")
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
        raise RuleError(f"'{_clip(words, 60)}' is not a legal order now", None, allowed)
    shown = ", ".join(_clip(describe(a), 40) for a in fits[:6])
    raise OrderRefused(f"'{_clip(words, 60)}' fits several orders ({shown}{'…' if len(fits) > 6 else ''}); "
                       "add a word or pick from the list.")


def parts_of(module: GameModule, text: str) -> list[str]:
    """The parts of an order: the game's shorthand expanded, else ``text`` split at ``>``."""
    expanded = module.parse_order(text)
    if expanded:
        return expanded
    return [p for p in SEPARATORS.split(text.strip()) if p.strip()]


def plan(module: GameModule, state: State, role: str, text: str,
         view: Callable[[State, str], View] | None = None,
         after: Callable[[State, Action], State] | None = None) -> list[Action]:
    """The engine steps a typed order stands for, each checked on a copy of the state after
    the steps before it; raises (RuleError, OrderRefused) when the chain does not fit whole.

    ``view``: the seat's view of a state, its actions marked (default ``module.view``; the
    service gives its own marking, which knows the marks of the state it keeps hot).
    ``after``: the state one of the view's actions leads to (default ``module.apply``; the
    service takes the state its marking of the view reached)."""
    seen = module.view if view is None else view
    parts = parts_of(module, text)
    if not parts:
        raise OrderRefused("Write an order, e.g. the name of a choice, or several steps as first > second.")
    if len(parts) > MAX_PARTS:
        raise OrderRefused(f"An order has at most {MAX_PARTS} steps.")
    steps: list[Action] = []
    current = state
    for n, part in enumerate(parts):
        optional = part.startswith(OPTIONAL_PART)
        words = part[len(OPTIONAL_PART):] if optional else part
        if role not in module.active(current):
            if n == 0:
                raise OrderRefused(f"Nothing is asked of {role} now.")
            if all(p.startswith(OPTIONAL_PART) for p in parts[n:]):
                break
            before = parts[n - 1].removeprefix(OPTIONAL_PART)
            raise OrderRefused(f"After '{_clip(before, 60)}' it is no longer your turn; the rest of the order "
                               f"('{_clip(words, 60)}' …) was not given.")
        # the choices the seat's own view shows it (every legal action: a game pages nothing)
        legal = [a for a in view_actions(seen(current, role)) if not module.is_nav(a)]
        try:
            action = match(legal, words)
        except RuleError as exc:
            if optional:
                continue
            if n == 0:
                raise
            raise RuleError(f"step {n + 1} of the order: {exc}", exc.rule, exc.allowed) from None
        current = module.apply(current, role, action) if after is None else after(current, action)
        steps.append(action)
    if not steps:
        raise OrderRefused("Nothing in that order fits your choices now.")
    return steps
