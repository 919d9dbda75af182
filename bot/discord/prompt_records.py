"""The prompts a seat was sent that still carry live choices, and their closing: a newer
prompt closes the older ones, the end of a game closes them all, and a restart closes those a
crash left live. Each closing is an edit that gives the same text however often it is made,
so a retry is safe. Part of :class:`bot.discord.table.Table`."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.discord import present
from bot.service import GameInfo, GameService

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot
    from bot.discord.store import Store

log = logging.getLogger("bot.discord")

SUPERSEDED = "⌛ Closed: a newer prompt holds your choices."
"""Added to a seat's older prompt when a newer one goes out (its buttons are gone)."""
MOVED_ON = "⌛ Closed: the game has moved on; nothing is asked of you here."
"""Added, at a restart, to a prompt left live by a crash for a seat that is asked nothing now."""
ENDED = ("finished", "aborted")


class PromptRecords:
    """Closing the recorded prompts of a seat or a game (the table's ``bot``, ``service``
    and ``store``)."""

    bot: AlcazabaBot
    service: GameService
    store: Store

    async def retire_prompts(self, game_pk: int, role: str, *, keep: int | None, line: str) -> int:
        """Close the seat's live prompts in the game, but message ``keep``: no buttons, ``line``
        added once (the same edit however often it is made), and their records go. The number
        of messages closed."""
        closed = 0
        for prompt in await self.store.prompts(game_pk):
            if prompt.role != role or prompt.message_id == keep:
                continue
            if await self.close_prompt(prompt.channel_id, prompt.message_id, prompt.content, line, game_pk):
                closed += 1
        return closed

    async def close_prompt(self, channel_id: int, message_id: int, content: str, line: str, game_pk: int) -> bool:
        """Edit one recorded prompt to ``content`` plus ``line`` with no buttons, and forget
        its record (also when Discord says the message is gone or out of reach)."""
        channel = self.bot.get_partial_messageable(channel_id)
        edited = False
        try:
            await channel.get_partial_message(message_id).edit(content=self.with_line(content, line), view=None)
            edited = True
        except (discord.NotFound, discord.Forbidden) as exc:
            log.info("prompt %s of game %s could not be closed (%s); it is forgotten", message_id, game_pk, exc)
        await self.store.drop_prompt(message_id)
        return edited

    async def retire_stale_prompts(self) -> int:
        """At start: close every recorded prompt that should not be live any more, which a
        crash between storing a step and marking its prompt can leave behind: those of a game
        that ended, of a seat that is not asked anything now, and every one of a seat but its
        newest. The number of messages closed."""
        closed = 0
        by_game: dict[int, list[Any]] = {}
        for prompt in await self.store.live_prompts():
            by_game.setdefault(prompt.game_pk, []).append(prompt)
        if not by_game:
            return 0
        running = {g.id: g for g in await self.service.games(status="running", limit=None)}
        for game_pk, held in by_game.items():
            try:
                info = running.get(game_pk) or await self.service.game(game_pk)
                if info.status in ENDED:
                    closed += await self.close_prompts(info)
                    continue
                newest = {p.role: p.message_id for p in held}  # oldest first: the last one stays
                for prompt in held:
                    if info.status == "running" and prompt.role in info.active:
                        if prompt.message_id == newest[prompt.role]:
                            continue
                        line = SUPERSEDED
                    else:
                        line = MOVED_ON
                    if await self.close_prompt(prompt.channel_id, prompt.message_id, prompt.content, line, game_pk):
                        closed += 1
            except discord.HTTPException as exc:  # one game's trouble must not keep the others' open
                log.warning("could not close the stale prompts of game %s (%s)", game_pk, exc)
        return closed

    def stale_line(self, info: GameInfo, role: str) -> str:
        """What a prompt of ``role`` found live when it should not be is closed with: how the
        game ended, or that a newer prompt holds the seat's choices (it is asked now), or that
        nothing is asked of it."""
        if info.status in ENDED:
            return self.closed_text("", present.end_sentence(info.id, info.status, info.result))
        return SUPERSEDED if info.status == "running" and role in info.active else MOVED_ON

    @staticmethod
    def closed_text(content: str, line: str) -> str:
        """A prompt's text once its game is over: what it said, then how the game ended (once)."""
        return PromptRecords.with_line(content, f"⛔ {line}" if "aborted" in line else f"🏁 {line}")

    @staticmethod
    def with_line(content: str, line: str) -> str:
        """``content`` with ``line`` added at its end, once (editing twice changes nothing)."""
        if content.endswith(line):
            return content
        return present.clip(f"{content}\n{line}" if content else line, present.MESSAGE_LIMIT)

    async def close_prompts(self, info: GameInfo) -> int:
        """Edit every live prompt of an ended game: no buttons, a line saying how it ended. Each
        edit gives the same text however often it is made, so a retry after a crash is safe. The
        number of messages closed."""
        closing = self.closed_text("", present.end_sentence(info.id, info.status, info.result))
        closed = 0
        for prompt in await self.store.prompts(info.id):
            if await self.close_prompt(prompt.channel_id, prompt.message_id, prompt.content, closing, info.id):
                closed += 1
        return closed
