"""``/play``'s Discord side: autocomplete choices and the value a picked choice stands for.

The orders themselves (a step named by a few words of its label, a chain ``a > b > c``, a
game's own shorthand) are the service's to parse, check and apply, all or nothing
(``GameService.apply_order``, bot/service/orders.py): this module only offers the choices the
seat's own view shows, and reads back the one picked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from discord import app_commands

from bot.discord import present
from bot.discord.errors import UserError
from bot.service.orders import SEPARATORS, fold
from engine.api import describe


def choice_value(version: int, index: int) -> str:
    return f"v{version}:{index}"


def from_choice_value(text: str, version_now: int, legal: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The action an autocomplete choice stands for (an index into ``legal``, the view's
    choices at ``version_now``), None when ``text`` is not one."""
    m = re.fullmatch(r"v(\d+):(\d+)", text.strip())
    if not m:
        return None
    version, index = int(m.group(1)), int(m.group(2))
    if version != version_now or not 0 <= index < len(legal):
        raise UserError(f"That choice was offered at move {version}; the game is at move {version_now} now. "
                        "Type the order again to see today's choices.")
    return dict(legal[index])


def suggestions(version: int, legal: Sequence[dict[str, Any]], typed: str) -> list[app_commands.Choice[str]]:
    """Autocomplete: the choices (``legal``, the view's at ``version``) whose label fits what
    was typed (25 at most); a chain being typed is offered as it is."""
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
