"""The web pages from Discord, through the real bot against the stand-in: ``/game web`` answers
the player alone with a link that opens his seat's page and no other, ``/game web
revoke:true`` closes it, and only a manager lists the server's games with ``/server web``."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from pydantic import SecretStr

from bot.service import GameService
from bot.settings import Settings
from tests.bot.discord.conftest import FAST, Harness
from tests.standin import StandIn
from tests.web.conftest import SECRET, start_site, web_settings

pytestmark = pytest.mark.slow
EPHEMERAL = 64


class WebHarness(Harness):
    @property
    def settings(self) -> Settings:
        return Settings(_env_file=None, data_dir=self.data_dir, discord_token=SecretStr(self.si.token),  # type: ignore[call-arg]
                        discord_api_base=self.si.api_base, discord_gateway_url=self.si.gateway_url,
                        discord_dev_guild_id=self.guild, render_concurrency=2, log_level="INFO",
                        web_secret=SecretStr(SECRET), web_base_url="https://games.example.org")


@pytest.fixture
async def web_table(tmp_path: Path) -> AsyncIterator[WebHarness]:
    si = StandIn()
    await si.start()
    h = WebHarness(si, tmp_path / "data", FAST)
    await h.start()
    try:
        yield h
    finally:
        await h.stop()
        await si.stop()


async def status_of(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


async def test_game_web_gives_each_player_his_own_link(web_table: WebHarness, tmp_path: Path) -> None:
    h = web_table
    thread = await h.open_game("granada", pace="live")
    site, runner = await start_site(h.data_dir / "alcazaba.db", web_settings(tmp_path))
    try:
        links = {}
        for user in (h.alice, h.bob):
            inter = await h.cmd(user, "game web", channel=thread)
            answer = h.answers(inter)[-1]
            assert answer.flags & EPHEMERAL, "only the player sees his link"
            found = re.search(r"https://games\.example\.org/p/([A-Za-z0-9_.=-]+)", answer.content)
            assert found, answer.content
            public = re.search(r"https://games\.example\.org/g/([A-Za-z0-9_-]+)", answer.content)
            assert public is not None
            links[user] = found.group(1)
        svc = GameService.open(h.settings.db_url)
        try:
            info = await svc.game(1)
        finally:
            await svc.close()
        for user, token in links.items():
            status, body = await status_of(f"{site.base}/p/{token}")
            role = info.roles_of(user)[0]
            assert status == 200 and f": {role}</h1>" in body
        revoke = await h.cmd(h.alice, "game web", channel=thread, revoke=True)
        assert "closed" in h.answers(revoke)[-1].content
        assert (await status_of(f"{site.base}/p/{links[h.alice]}"))[0] == 404
        assert (await status_of(f"{site.base}/p/{links[h.bob]}"))[0] == 200
        # a spectator holds no seat: no personal link
        carol = await h.cmd(h.carol, "game web", channel=thread)
        assert "/p/" not in h.answers(carol)[-1].content
        # the thread's first post (the lobby message) carries the game's page, its last the replay
        page = f"https://games.example.org/g/{await site.public_id(1)}"
        first = h.si.channel_messages(thread)[0].id
        for _ in range(100):  # the lobby message is edited once the start is delivered
            if f"<{page}>" in h.si.messages[first].content:
                break
            await asyncio.sleep(0.1)
        assert f"<{page}>" in h.si.messages[first].content, h.si.messages[first].content
        await h.cmd(h.alice, "game resign", channel=thread)
        await h.si.wait_message(lambda m: m.channel_id == thread and f"<{page}/replay>" in m.content, 20)
        assert (await status_of(f"{site.base}/g/{await site.public_id(1)}/replay"))[0] == 200
    finally:
        await runner.cleanup()
        await site.service.close()


async def test_only_a_manager_lists_the_servers_games(web_table: WebHarness) -> None:
    h = web_table
    refused = await h.cmd(h.alice, "server web listed", listed=True)
    assert "Only a manager" in h.answers(refused)[-1].content
    done = await h.cmd(h.mod, "server web listed", listed=True)
    assert "now lists" in h.answers(done)[-1].content
    svc = GameService.open(h.settings.db_url)
    try:
        assert await svc.web_listed(h.guild)
        await h.cmd(h.mod, "server web listed", listed=False)
        assert not await svc.web_listed(h.guild)
    finally:
        await svc.close()
