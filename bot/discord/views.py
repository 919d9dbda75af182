"""Persistent buttons and menus.

Each is a ``DynamicItem``: discord.py routes any component whose custom id matches the
template to it, whenever the message was sent, so the buttons of a DM from last week work
after any number of restarts (``timeout=None`` views, registered by pattern at start). The
work happens in :class:`bot.discord.table.Table`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Self

import discord

from bot.discord import ids, present

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot


def _bot(inter: discord.Interaction) -> AlcazabaBot:
    return inter.client  # type: ignore[return-value]


class Persistent:
    """What the bot's components share. Each is rebuilt from its custom id alone (the named
    groups of its template, ints but the digest, are its constructor's arguments; what it
    shows is not needed to act on a click), and every click first passes the per-user rate
    check (a stuck mouse or a script must not flood the database or Discord): a refused
    click is told why and goes no further."""

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> Self:
        return cls(**{k: v if k == "digest" else int(v) for k, v in match.groupdict().items()})

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        return await _bot(interaction).table.admit(interaction)


class ActionButton(Persistent, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.ACTION):
    def __init__(self, game: int, version: int, role: int, index: int, digest: str, label: str = "…",
                 row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label or "…", style=discord.ButtonStyle.primary,
                                           custom_id=ids.action_id(game, version, role, index, digest), row=row))
        self.game, self.version, self.role, self.index, self.digest = game, version, role, index, digest

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).table.component_act(interaction, self.game, self.version, self.role, self.digest,
                                                    self.index)


class ActionSelect(Persistent, discord.ui.DynamicItem[discord.ui.Select[Any]], template=ids.SELECT):
    def __init__(self, game: int, version: int, role: int, chunk: int, digest: str,
                 menu: present.Menu | None = None, row: int | None = None) -> None:
        options = [discord.SelectOption(label=present.label(a), value=str(i)) for i, a in (menu.items if menu else [])]
        placeholder = present.clip(f"Choose: {menu.title}" if menu else "Choose", 150)
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=ids.select_id(game, version, role, chunk, digest),
            options=options or [discord.SelectOption(label="…", value="0")], placeholder=placeholder,
            min_values=1, max_values=1, row=row)
        super().__init__(select)
        self.game, self.version, self.role, self.chunk, self.digest = game, version, role, chunk, digest

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).table.component_act(interaction, self.game, self.version, self.role, self.digest,
                                                    None)


class PageButton(Persistent, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.PAGE):
    def __init__(self, game: int, version: int, role: int, page: int, digest: str, label: str = "…",
                 row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.secondary,
                                           custom_id=ids.page_id(game, version, role, page, digest), row=row))
        self.game, self.version, self.role, self.page, self.digest = game, version, role, page, digest

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).table.component_page(interaction, self.game, self.version, self.role, self.digest,
                                                     self.page)


class UndoButton(Persistent, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.UNDO):
    def __init__(self, game: int, version: int, role: int, digest: str, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label="↩ Undo", style=discord.ButtonStyle.secondary,
                                           custom_id=ids.undo_id(game, version, role, digest), row=row))
        self.game, self.version, self.role, self.digest = game, version, role, digest

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).table.component_undo(interaction, self.game, self.version, self.role, self.digest)


class JoinButton(Persistent, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.JOIN):
    """On a game's lobby message: take that seat."""

    def __init__(self, game: int, role: int, label: str = "Join", row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=present.clip(label, 80), style=discord.ButtonStyle.success,
                                           custom_id=ids.join_id(game, role), row=row))
        self.game, self.role = game, role

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).lobby.join_button(interaction, self.game, self.role)


class StartButton(Persistent, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.START):
    """On a game's lobby message: start now, the built-in player taking the empty seats."""

    def __init__(self, game: int, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label="Start (built-in player fills empty seats)",
                                           style=discord.ButtonStyle.secondary, custom_id=ids.start_id(game), row=row))
        self.game = game

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).lobby.start_button(interaction, self.game)


class DeclineButton(Persistent, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.DECLINE):
    """On the lobby message of a rematch: a player a seat is kept for gives it up (it becomes free)."""

    def __init__(self, game: int, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label="Decline my reserved seat", style=discord.ButtonStyle.danger,
                                           custom_id=ids.decline_id(game), row=row))
        self.game = game

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).lobby.decline_button(interaction, self.game)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    ActionButton, ActionSelect, PageButton, UndoButton, JoinButton, StartButton, DeclineButton,
)
