"""The custom ids of persistent buttons and menus.

A custom id is all a button keeps across a restart, so it carries everything needed to act
on it: the game, the version (move number) the choice was offered at, the seat (as an index
into the game's roles, since role names are free text), and a digest of the choice set. The
digest lets a button from an older version still count when the role's prompt and choices are
exactly what they were (a secret bid stays valid while the opponent bids); any change makes
the button stale and it is refused with the new prompt.

Discord caps a custom id at 100 characters; these stay under 60.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from bot.models import dumps
from engine.api import strip_label

ACTION = r"az:a:(?P<game>\d{1,18}):(?P<version>\d{1,9}):(?P<role>\d{1,2}):(?P<index>\d{1,4}):(?P<digest>[0-9a-f]{8})"
SELECT = r"az:s:(?P<game>\d{1,18}):(?P<version>\d{1,9}):(?P<role>\d{1,2}):(?P<chunk>\d{1,3}):(?P<digest>[0-9a-f]{8})"
PAGE = r"az:p:(?P<game>\d{1,18}):(?P<version>\d{1,9}):(?P<role>\d{1,2}):(?P<page>\d{1,3}):(?P<digest>[0-9a-f]{8})"
UNDO = r"az:u:(?P<game>\d{1,18}):(?P<version>\d{1,9}):(?P<role>\d{1,2}):(?P<digest>[0-9a-f]{8})"
JOIN = r"az:j:(?P<game>\d{1,18}):(?P<role>\d{1,2})"
START = r"az:go:(?P<game>\d{1,18})"
DECLINE = r"az:no:(?P<game>\d{1,18})"


CHOICE = re.compile(r"az:[asp]:(?P<game>\d{1,18}):\d{1,9}:(?P<role>\d{1,2}):")
"""The start of a prompt's choice (a button, a menu, a page turn): its game and seat."""


def seat_of(custom_id: str) -> tuple[int, int] | None:
    """The game and seat (index into the game's roles) a prompt's component was made for;
    None for any other component."""
    m = CHOICE.match(custom_id)
    return None if m is None else (int(m["game"]), int(m["role"]))


def digest(view: dict[str, Any]) -> str:
    """A fingerprint of what a role is asked: its prompt and its legal actions (labels aside)."""
    actions = [strip_label(a) for a in view.get("actions") or []]
    text = dumps({"prompt": view.get("prompt", ""), "actions": actions})
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def action_id(game: int, version: int, role: int, index: int, dig: str) -> str:
    return f"az:a:{game}:{version}:{role}:{index}:{dig}"


def select_id(game: int, version: int, role: int, chunk: int, dig: str) -> str:
    return f"az:s:{game}:{version}:{role}:{chunk}:{dig}"


def page_id(game: int, version: int, role: int, page: int, dig: str) -> str:
    return f"az:p:{game}:{version}:{role}:{page}:{dig}"


def undo_id(game: int, version: int, role: int, dig: str) -> str:
    return f"az:u:{game}:{version}:{role}:{dig}"


def join_id(game: int, role: int) -> str:
    return f"az:j:{game}:{role}"


def start_id(game: int) -> str:
    return f"az:go:{game}"


def decline_id(game: int) -> str:
    return f"az:no:{game}"
