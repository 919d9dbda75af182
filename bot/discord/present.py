"""How the bot words and lays out what the service returns: prompts, menus, log posts.

Pure functions of service values, so they are easy to test and hold no Discord state. Text
never says more than the view it is built from: a function that writes for a channel takes
a spectator view or public log lines only.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bot.service import outcome
from bot.viewkeys import entry_text
from engine.api import describe

MESSAGE_LIMIT = 2000
BUTTON_LABEL = 80
OPTION_TEXT = 100
SELECT_OPTIONS = 25
SELECTS_PER_PAGE = 4
QUICK_TYPES = ("pass", "done", "end", "end_turn", "decline", "no")
"""Action types shown as a button next to the menus too: the answer most often given to a
reaction prompt should be one click away."""

PACES: dict[str, timedelta | None] = {
    "live": None,
    "24h": timedelta(hours=24),
    "48h": timedelta(hours=48),
    "72h": timedelta(hours=72),
    "7d": timedelta(days=7),
}
DEADLINE_ACTIONS = {
    "remind": "remind only",
    "autopass": "pass for the late player where the rules allow",
    "claim": "the opponent may claim the game",
    "bot": "the built-in player takes the late seat",
}

LEVELS = {
    "easy": "quick and simple",
    "normal": "thinks a moment",
    "hard": "thinks longest, plays best",
}
"""The built-in player's levels (engine.ai.LEVELS) as /game new offers them."""


def pace_delta(pace: str | None) -> timedelta | None:
    """The time allowed per move, or None for no clock. Accepts the menu values and NhNd forms."""
    if not pace or pace == "live":
        return None
    if pace in PACES:
        return PACES[pace]
    m = re.fullmatch(r"(\d{1,4})([hd])", pace.strip())
    if not m:
        return None
    n = int(m.group(1))
    return timedelta(hours=n) if m.group(2) == "h" else timedelta(days=n)


def pace_text(pace: str | None) -> str:
    return "no clock" if pace_delta(pace) is None else f"{pace} per move"


def clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split()) if "\n" not in str(text) else str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def label(action: dict[str, Any], limit: int = OPTION_TEXT) -> str:
    """A choice's text on a button or menu entry, saying so when its step cannot be taken back
    (``bot.viewkeys.entry_text``: the note is kept whole within ``limit``)."""
    return clip(entry_text(action, limit), limit) or "?"


def when(moment: datetime) -> str:
    """A Discord timestamp (each reader sees it in his own time zone), from naive UTC."""
    from datetime import UTC

    ts = int(moment.replace(tzinfo=UTC).timestamp())
    return f"<t:{ts}:f> (<t:{ts}:R>)"


@dataclass(frozen=True)
class Menu:
    """One select menu: a title and (index into the actions list, action) pairs."""

    title: str
    items: list[tuple[int, dict[str, Any]]]


@dataclass(frozen=True)
class Layout:
    """How a choice set is shown: buttons, or pages of select menus (plus quick buttons)."""

    buttons: list[tuple[int, dict[str, Any]]]
    pages: list[list[Menu]]
    quick: list[tuple[int, dict[str, Any]]]


def layout(actions: Sequence[dict[str, Any]]) -> Layout:
    """Buttons for a few short choices; select menus for more, grouped by kind of action, 25
    options a menu, four menus a page (a message holds five rows; the fifth holds the page
    turners and the quick answers)."""
    indexed = list(enumerate(actions))
    if not indexed:
        return Layout([], [], [])
    short = all(len(describe(a)) <= 25 for a in actions)
    if len(actions) <= 5 or (len(actions) <= 20 and short):
        return Layout(indexed, [], [])
    groups: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for i, a in indexed:
        groups.setdefault(str(a.get("type", "choice")), []).append((i, a))
    menus: list[Menu] = []
    for kind, items in groups.items():
        chunks = [items[k:k + SELECT_OPTIONS] for k in range(0, len(items), SELECT_OPTIONS)]
        for n, chunk in enumerate(chunks, start=1):
            title = kind.replace("_", " ")
            if len(chunks) > 1:
                title = f"{title} ({n}/{len(chunks)})"
            menus.append(Menu(title, chunk))
    pages = [menus[k:k + SELECTS_PER_PAGE] for k in range(0, len(menus), SELECTS_PER_PAGE)]
    quick = [(i, a) for i, a in indexed if str(a.get("type")) in QUICK_TYPES][:3]
    return Layout([], pages, quick)


def chunk_lines(lines: Iterable[str], limit: int = MESSAGE_LIMIT - 100) -> list[str]:
    """Join lines into as few messages as fit Discord's size limit (a long line is cut)."""
    out: list[str] = []
    current = ""
    for raw in lines:
        line = clip(str(raw), limit)
        if not line:
            continue
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            out.append(current)
            current = line
        else:
            current = candidate
    if current:
        out.append(current)
    return out


def bullet(lines: Iterable[str]) -> list[str]:
    return [f"• {line}" for line in lines if str(line).strip()]


def log_texts(entries: Iterable[dict[str, Any]]) -> list[str]:
    return [str(e.get("text", "")) for e in entries if str(e.get("text", "")).strip()]


def game_name(title: str, game_pk: int) -> str:
    return f"{title} #{game_pk}"


def seat_line(role: str, user_id: int | None, is_bot: bool, name: str, level: str | None = None) -> str:
    if is_bot:
        return f"**{role}**: built-in player" + (f" ({level})" if level else "")
    if user_id is None:
        return f"**{role}**: {name or 'terminal seat'}"
    return f"**{role}**: <@{user_id}>"


def result_sentence(result: dict[str, Any] | None) -> str:
    """How the game ended, from the result itself (bot.service.outcome): the winner, the
    seats sharing a win, or a player who holds no seat (Sabika's Yusuf), in bold."""
    return outcome.result_sentence(result, lambda name: f"**{name}**")


def end_sentence(game_pk: int, status: str, result: dict[str, Any] | None) -> str:
    """How a game ended, in one sentence: what a finished game's prompts and buttons say."""
    if status == "aborted":
        reason = str((result or {}).get("reason") or "")
        if reason.startswith("aborted"):
            return f"Game #{game_pk} was {reason}."
        return f"Game #{game_pk} was aborted ({reason or 'no reason given'})."
    return f"Game #{game_pk} is over. {result_sentence(result)}"


def hand_text(hand: Any, cards: Any = None) -> str:
    """A readable list of what a view calls the hand, by the names the view gives: a card's
    own ``name`` (or ``label``), or the name in the view's ``cards`` table for a card listed by
    id. Never the bare id of a card the view names (an id tells copies apart; "blue-1-3"
    means nothing to a player); a card the view does not name is described by its fields."""
    if hand is None:
        return ""
    table: dict[str, Any] = cards if isinstance(cards, dict) else {}
    if isinstance(hand, dict):
        items = [f"{k}: {v}" for k, v in hand.items()]
    elif isinstance(hand, list):
        items = [_card_name(card, table) for card in hand]
    else:
        items = [str(hand)]
    return ", ".join(items) if items else "empty"


def _card_name(card: Any, table: dict[str, Any]) -> str:
    entry = table.get(card) if isinstance(card, str) else card
    if not isinstance(entry, dict):
        return str(card)
    named = entry.get("name") or entry.get("label")
    if named:
        return str(named)
    fields = [str(v) for k, v in entry.items() if k != "id" and isinstance(v, str | int) and not isinstance(v, bool)]
    return " ".join(fields) or str(card)


def parse_options(text: str | None, switches: Collection[str] = ()) -> dict[str, Any]:
    """``key=value`` pairs separated by commas or spaces; numbers and true/false are typed. A
    bare name of ``switches`` (the game's true/false options, e.g. ``all``) turns it on."""
    import json

    out: dict[str, Any] = {}
    if not text:
        return out
    for part in re.split(r"[,\s]+", text.strip()):
        if not part:
            continue
        if part in switches:
            out[part] = True
            continue
        if "=" not in part:
            raise ValueError(f"options are written key=value (got {clip(part, 40)!r})")
        key, value = part.split("=", 1)
        key = key.strip()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,39}", key):
            raise ValueError(f"{clip(key, 40)!r} is not an option name")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out
