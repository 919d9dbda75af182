"""The web pages from Discord: ``/game web`` gives a player a private link to his own view of a
game (read-only; orders stay on Discord), ``/game web revoke:true`` closes every link he was
given, and ``/server web listed:true`` lets a server manager list the server's games on the
web index page (servers are unlisted until he does).

The links are signed with ``WEB_SECRET`` (``bot.web.tokens``); the answers are ephemeral, so
nobody but the player sees his link.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.discord.cogs.base import Cog, is_manager
from bot.discord.errors import UserError
from bot.web.tokens import game_link, personal_link

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot

NO_PAGES = "This bot has no web pages (its operator has not set WEB_BASE_URL and WEB_SECRET)."


async def answer_web(bot: AlcazabaBot, inter: discord.Interaction, game: int | None, revoke: bool) -> None:
    """``/game web``: the player's private link to his seat's page, or, with ``revoke``, the end
    of every link he holds (the inside of the command; the caller guards it)."""
    settings = bot.settings
    if revoke:
        await bot.service.revoke_web_links(inter.user.id)
        await inter.followup.send("Every web link you were given is closed; `/game web` gives you a new one.",
                                  ephemeral=True)
        return
    if settings.web_secret is None or not settings.web_base_url:
        raise UserError(NO_PAGES)
    info, role = await bot.table.my_seat(inter, game)
    if info.status not in ("running", "finished"):
        raise UserError(f"Game #{info.id} has not started yet: its page opens at the start.")
    revoked = await bot.service.web_revocations(inter.user.id)
    mine = personal_link(settings, info.id, role, inter.user.id, revoked)
    public = game_link(settings, await bot.service.public_id(info.id))
    await inter.followup.send(
        f"Your own view of game #{info.id} ({role}), read-only, for {settings.web_link_days} days: <{mine}>\n"
        "It shows your hand and your pieces: do not share it (`/game web revoke:true` closes it).\n"
        f"The page everyone may watch: <{public}>", ephemeral=True)


class WebPages(Cog):
    """``/server web listed``: a subgroup of the one ``/server`` group, which the campaign cog
    owns (loaded before this one): Discord allows one top-level command of a name."""

    async def cog_load(self) -> None:
        campaign = self.bot.get_cog("Campaign")
        server = getattr(campaign, "server", None)
        if isinstance(server, app_commands.Group) and server.get_command("web") is None:
            server.add_command(self._web_group())
        await super().cog_load()

    def _web_group(self) -> app_commands.Group:
        cog = self
        group = app_commands.Group(name="web", description="This server's games on the web")

        @group.command(name="listed", description="List this server's games on the web index page (or stop)")
        @app_commands.describe(listed="True: the index lists this server's games; False: it does not (the default)")
        async def listed(inter: discord.Interaction, listed: bool) -> None:
            async with cog.table.guard(inter):
                if inter.guild_id is None or not is_manager(inter):
                    raise UserError("Only a manager of this server can list its games on the web.")
                await cog.service.set_web_listed(inter.guild_id, listed)
                base = cog.bot.settings.web_base_url
                where = f" ({base.rstrip('/')}/)" if base else ""
                await inter.followup.send(
                    f"The web index{where} now lists this server's games." if listed else
                    "The web index no longer lists this server's games (each game's own page still opens by its "
                    "link).", ephemeral=True)

        return group


async def setup(bot: AlcazabaBot) -> None:
    await bot.add_cog(WebPages(bot))
