"""The lobby message of a game: seats, options, pace, and while seats are free their Join and
Start buttons; kept true from the first post to the last by editing it. Public: never a
player's hand or hidden pieces. Part of :class:`bot.discord.table.Table`."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.discord import present
from bot.discord.views import DeclineButton, JoinButton, StartButton
from bot.service import GameInfo, GameService
from bot.service.levels import level_of
from bot.web.tokens import game_link

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot
    from bot.discord.store import Store
    from bot.models import DiscordGame

log = logging.getLogger("bot.discord")


class LobbyMessage:
    """Writing and refreshing a game's lobby message (the table's ``bot``, ``service`` and
    ``store``)."""

    bot: AlcazabaBot
    service: GameService
    store: Store

    async def lobby(self, info: GameInfo) -> dict[str, Any]:
        """The lobby message of a game as it stands: seats, options, and, while seats are
        taken, their Join buttons and Start; once started, ended or aborted, it says so and
        has no button."""
        dg = await self.store.game(info.id)
        lines = [f"**{present.game_name(info.title, info.id)}**{await self.origin(info)}",
                 f"⏱ {present.pace_text(info.pace)} · at the deadline: "
                 f"{present.DEADLINE_ACTIONS.get(dg.deadline_action, dg.deadline_action)} · "
                 f"built-in player: {level_of(info)}"]
        if info.options:
            lines.append("Options: " + ", ".join(f"{k}={v}" for k, v in info.options.items()))
        seats = []
        kept = await self.reserved_seats(info) if info.status == "open" else {}
        held = self.seats_held(info, dg, kept) if info.status == "open" else {}
        for role in info.roles:
            seat = info.seat(role)
            if seat is not None:
                seats.append(present.seat_line(role, seat.user_id, seat.is_bot, seat.display_name,
                                               level_of(info, role)))
            elif role in held:
                seats.append(f"**{role}**: free (reserved for <@{held[role]}>)")
            else:
                seats.append(f"**{role}**: free")
        lines.append("Seats: " + " · ".join(seats))
        view = discord.ui.View(timeout=None)
        if info.status == "open":
            lines.append("Take a free seat with its button (or /game join). The game starts when every seat is "
                         "taken; the Start button lets the built-in player take the empty ones.")
            for n, role in enumerate(info.roles):
                if info.seat(role) is None:
                    view.add_item(JoinButton(info.id, n, f"Join as {role}", row=0))
            view.add_item(StartButton(info.id, row=1))
            if kept:
                view.add_item(DeclineButton(info.id, row=1))
        elif info.status == "running":
            lines.append("▶️ The game is under way: its log and maps follow in this thread; the players get their "
                         "prompts by direct message.")
        elif info.status == "finished":
            lines.append("🏁 " + present.end_sentence(info.id, info.status, info.result))
        else:
            lines.append("⛔ " + present.end_sentence(info.id, info.status, info.result))
        link = await self.web_address(info)
        if link is not None:
            lines.append(f"🌐 On the web (zoomable map, log, replay): <{link}>")
        return {"content": present.clip("\n".join(lines), present.MESSAGE_LIMIT), "view": view}

    async def origin(self, info: GameInfo) -> str:
        """Who or what made the game, after its name: the member who opened it (``/game
        new``, a rematch), else the tournament's round it is a table of, or matchmaking;
        nothing for a game made otherwise (an import)."""
        if info.created_by is not None:
            return f" — opened by <@{info.created_by}>"
        table = await self.store.table_of(info.id)
        if table is not None:
            return f" — tournament #{table[0]}, round {table[1]}"
        return " — matched by /game seek" if await self.store.matched(info.id) else ""

    async def web_address(self, info: GameInfo) -> str | None:
        """The game's web page (``bot.web``) once it started, when the operator set
        WEB_BASE_URL; None otherwise."""
        if info.status not in ("running", "finished") or not self.bot.settings.web_base_url:
            return None
        return game_link(self.bot.settings, await self.service.public_id(info.id))

    async def reserved_seats(self, info: GameInfo) -> dict[str, int]:
        """{role: user id} of the free seats kept for a player (a rematch's previous players),
        which he alone may take until he declines or the game starts."""
        kept = await self.store.reservations(info.id)
        return {role: user for role, user in kept.items() if role in info.free_roles}

    @staticmethod
    def seats_held(info: GameInfo, dg: DiscordGame, kept: dict[str, int]) -> dict[str, int]:
        """{role: user id} of the free seats the lobby shows as reserved: those ``kept`` for a
        rematch's players, and the one an invitation of ``/game new`` holds while the invited
        player is not seated (shown on the last free seat not kept; joining refuses the others
        only the last such seat, whichever it is: ``Lobby.seat_user``)."""
        held = dict(kept)
        rest = [r for r in info.free_roles if r not in held]
        if dg.invited_user_id and rest and not info.roles_of(dg.invited_user_id):
            held[rest[-1]] = dg.invited_user_id
        return held

    async def refresh_lobby(self, game_pk: int) -> None:
        """Edit the game's lobby message to what it should say now (the same edit twice changes
        nothing, so a retry is safe). Nothing when the game has no lobby message."""
        dg = await self.store.game(game_pk)
        if dg.lobby_message_id is None or dg.lobby_channel_id is None:
            return
        info = await self.service.game(game_pk)
        body = await self.lobby(info)
        channel = self.bot.get_partial_messageable(dg.lobby_channel_id, guild_id=info.guild_id)
        try:
            await channel.get_partial_message(dg.lobby_message_id).edit(
                content=body["content"], view=body["view"] if body["view"].children else None)
        except discord.NotFound:
            log.info("the lobby message of game %s is gone", game_pk)
            # Its channel stays: it says that a lobby was posted once (Lobby.finish_openings
            # posts one only for a game that never had one).
            await self.store.update_game(game_pk, lobby_message_id=None)
