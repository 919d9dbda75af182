"""Playing: ``/play`` (with autocomplete from the legal actions), ``/undo``, and the
ephemeral looks at a game: ``/status``, ``/map``, ``/hand``, ``/log``; ``/prefs`` and
``/vacation`` for the player's own settings.

Every answer here is ephemeral (or in the player's DM): it is drawn from the asking
player's own view, or from the spectator view when he holds no seat.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.discord import present
from bot.discord.cogs.base import Cog
from bot.discord.cogs.lobby import game_choices
from bot.discord.table import Outgoing, UserError
from bot.service import CONFIRM_FORCED, GameView
from bot.service.levels import level_of
from engine.api import view_places

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot

log = logging.getLogger("bot.discord")

MAX_VACATION_DAYS = 60


class Play(Cog):
    # ------------------------------------------------------------------ autocomplete

    async def running_auto(self, inter: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
        return await game_choices(self.bot, inter, current, statuses=("running",))

    async def any_auto(self, inter: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
        return await game_choices(self.bot, inter, current, statuses=("running", "open", "finished"))

    async def action_auto(self, inter: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            game = getattr(inter.namespace, "game", None)
            info, role = await self.table.my_seat(inter, game if isinstance(game, int) else None, running=True)
            return await self.table.autocomplete_actions(info, role, current)
        except Exception:
            return []

    async def location_auto(self, inter: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Places a close-up can show: the view's declared ``places`` (engine/api.py)."""
        try:
            game = getattr(inter.namespace, "game", None)
            gv = await self.look(inter, game if isinstance(game, int) else None)
        except Exception:
            return []
        typed = current.casefold()
        return [app_commands.Choice(name=present.clip(n, 100), value=present.clip(n, 100))
                for n in view_places(gv.view) if typed in n.casefold()][:25]

    # ------------------------------------------------------------------ orders

    @app_commands.command(name="play", description="Give an order: pick from the list, or type steps as a > b > c")
    @app_commands.describe(order="What to do (start typing to see your choices)", game="The game (number)")
    # One autocomplete() per kind of value: its callbacks must all return the same Choice type.
    @app_commands.autocomplete(order=action_auto)
    @app_commands.autocomplete(game=running_auto)
    async def play(self, inter: discord.Interaction, order: app_commands.Range[str, 1, 400],
                   game: int | None = None) -> None:
        async with self.table.guard(inter):
            info, role = await self.table.my_seat(inter, game, running=True)
            await self.table.order(inter, info, role, order)

    @app_commands.command(name="undo", description="Take back your last step (as far as the rules allow)")
    @app_commands.autocomplete(game=running_auto)
    async def undo(self, inter: discord.Interaction, game: int | None = None) -> None:
        async with self.table.guard(inter):
            info, role = await self.table.my_seat(inter, game, running=True)
            refusal = await self.service.can_undo(info.id, role)
            if refusal is not None:
                raise UserError(refusal)
            await self.table.undo(inter, info, role, info.version, clicked=False)

    # ------------------------------------------------------------------ looking

    async def look(self, inter: discord.Interaction, game: int | None) -> GameView:
        """The asking player's view, or the spectator's when he holds no seat."""
        info = await self.table.resolve(inter, game)
        held = info.roles_of(inter.user.id)
        role = self.table.seat_of(info, inter.user.id) if held else None
        return await self.service.view(info.id, role, inter.user.id if role else None)

    @app_commands.command(name="status", description="Where a game stands and what you are asked")
    @app_commands.autocomplete(game=any_auto)
    async def status(self, inter: discord.Interaction, game: int | None = None) -> None:
        async with self.table.guard(inter):
            gv = await self.look(inter, game)
            info = gv.game
            lines = [f"**{present.game_name(info.title, info.id)}** · {info.status} · move {gv.version}",
                     "Seats: " + " · ".join(present.seat_line(s.role, s.user_id, s.is_bot, s.display_name,
                                                              level_of(info, s.role))
                                            for s in info.seats)]
            if info.status == "running":
                lines.append(f"Waiting for: {', '.join(info.active) or '—'}")
                if info.deadline_at is not None:
                    lines.append(f"⏰ Deadline {present.when(info.deadline_at)}")
            if info.status in ("finished", "aborted"):
                lines.append("🏁 " + present.result_sentence(info.result))
            if gv.role is not None and info.status == "running":
                out = self.table.render_prompt(gv, images=False)
                out.content = present.clip("\n".join(lines) + "\n\n" + out.content, present.MESSAGE_LIMIT)
                await inter.followup.send(ephemeral=True, **out.kwargs())
                return
            prompt = str(gv.view.get("prompt") or "")
            if prompt:
                lines.append(prompt)
            await inter.followup.send(present.clip("\n".join(lines), present.MESSAGE_LIMIT), ephemeral=True)

    @app_commands.command(name="map", description="The board as you see it (optionally a close-up of one place)")
    @app_commands.describe(location="A place to look at closely")
    @app_commands.autocomplete(location=location_auto)
    @app_commands.autocomplete(game=any_auto)
    async def map(self, inter: discord.Interaction, game: int | None = None,
                  location: app_commands.Range[str, 1, 100] | None = None) -> None:
        async with self.table.guard(inter):
            gv = await self.look(inter, game)
            limit = self.table.limit_for(inter) - 4096
            data = None
            name = "board.png"
            if location:
                known = view_places(gv.view)
                if known and location not in known:
                    raise UserError(f"There is no place {present.clip(location, 40)!r}; pick one from the list.")
                if not self.bot.images.has(gv.game.game_id, "closeup"):
                    raise UserError(f"{gv.game.title} has no close-up pictures; here is no map either.")
                data = await self.bot.images.draw(gv.game.game_id, "closeup", gv.view, location, limit=limit)
                name = "closeup.png"
            else:
                data = await self.bot.images.draw(gv.game.game_id, "board", gv.view, limit=limit)
            if data is None:
                raise UserError(f"There is no picture of {gv.game.title} to show.")
            who = f"as **{gv.role}**" if gv.role else "as a spectator"
            text = f"{present.game_name(gv.game.title, gv.game.id)} · move {gv.version} · {who}"
            await inter.followup.send(ephemeral=True, **Outgoing(text, [(name, data)]).kwargs())

    @app_commands.command(name="hand", description="Your hand (only you see it)")
    @app_commands.autocomplete(game=any_auto)
    async def hand(self, inter: discord.Interaction, game: int | None = None) -> None:
        async with self.table.guard(inter):
            info, role = await self.table.my_seat(inter, game)
            gv = await self.service.view(info.id, role, inter.user.id)
            hand = gv.view.get("hand")
            if hand is None:
                raise UserError(f"There is no hand in {info.title}.")
            files = []
            if self.bot.images.has(info.game_id, "hand"):
                data = await self.bot.images.draw(info.game_id, "hand", gv.view,
                                                  limit=self.table.limit_for(inter) - 4096)
                if data is not None:
                    files.append(("hand.png", data))
            text = f"🂠 Your hand in {present.game_name(info.title, info.id)} ({role}): " \
                   f"{present.clip(present.hand_text(hand, gv.view.get('cards')), 1700)}"
            await inter.followup.send(ephemeral=True, **Outgoing(text, files).kwargs())

    @app_commands.command(name="log", description="The latest lines of a game's log, as you may read them")
    @app_commands.describe(lines="How many lines (default 15)")
    @app_commands.autocomplete(game=any_auto)
    async def log(self, inter: discord.Interaction, game: int | None = None,
                  lines: app_commands.Range[int, 1, 60] = 15) -> None:
        async with self.table.guard(inter):
            gv = await self.look(inter, game)
            texts = present.log_texts(gv.view.get("log") or [])[-lines:]
            head = f"**{present.game_name(gv.game.title, gv.game.id)}** · last {len(texts)} lines"
            chunks = present.chunk_lines([head, *present.bullet(texts)])
            for chunk in chunks[:3]:
                await inter.followup.send(chunk, ephemeral=True)

    # ------------------------------------------------------------------ the player's settings

    @app_commands.command(name="prefs", description="Your settings for a game (auto-pass, forced steps)")
    @app_commands.describe(autopass="Pass automatically when a reaction prompt offers a pass",
                           confirm_forced="Ask me even for a forced step (the only choice, which decides nothing)")
    @app_commands.autocomplete(game=any_auto)
    async def prefs(self, inter: discord.Interaction, autopass: bool | None = None,
                    confirm_forced: bool | None = None, game: int | None = None) -> None:
        async with self.table.guard(inter):
            info, role = await self.table.my_seat(inter, game)
            seat = info.seat(role)
            prefs = dict(seat.prefs) if seat is not None else {}
            if autopass is not None:
                prefs["autopass"] = bool(autopass)
            if confirm_forced is not None:
                prefs[CONFIRM_FORCED] = bool(confirm_forced)
            if autopass is not None or confirm_forced is not None:
                await self.service.set_prefs(info.id, role, prefs, inter.user.id)
            if confirm_forced is False and info.status == "running":
                # A forced step waiting now is taken at once; its prompt comes as any other.
                await self.service.take_forced(info.id)
            state = "on" if prefs.get("autopass") else "off"
            forced = ("you are asked for them too" if prefs.get(CONFIRM_FORCED)
                      else "they are taken for you and the log says so")
            await inter.followup.send(
                f"Game #{info.id} ({role}): auto-pass is **{state}**. With it on, a reaction prompt that you "
                "may answer with a pass is passed for you; every other prompt still comes to you.\n"
                f"Forced steps (your only choice, which decides nothing, such as ending a turn with nothing "
                f"left to do): {forced} (`confirm_forced`).", ephemeral=True)

    @app_commands.command(name="vacation", description="Pause your clock for some days (within the game's allowance)")
    @app_commands.describe(days="Days away (0 ends a vacation early)", game="Only this game (default: all yours)")
    @app_commands.autocomplete(game=running_auto)
    async def vacation(self, inter: discord.Interaction, days: app_commands.Range[int, 0, MAX_VACATION_DAYS],
                       game: int | None = None) -> None:
        async with self.table.guard(inter):
            if game is not None:
                games = [await self.table.resolve(inter, game, running=True)]
            else:
                games = await self.service.games(user_id=inter.user.id, status="running", limit=50)
            if not games:
                raise UserError("You play no running game.")
            lines = []
            for info in games:
                for role in info.roles_of(inter.user.id):
                    lines.append(await self.bot.deadlines.vacation(info, role, timedelta(days=days)))
            await inter.followup.send(present.clip("\n".join(lines), present.MESSAGE_LIMIT), ephemeral=True)


async def setup(bot: AlcazabaBot) -> None:
    await bot.add_cog(Play(bot))
