"""Fixtures of the web pages' tests: a real SQLite file holding real games, the real web
application (``bot.web.app``) on a free port of 127.0.0.1, and headless Chromium from the
Debian package (``.ci/chromium.sh``) driven by Playwright, never a browser Playwright would
download.

Without ``/usr/bin/chromium`` the browser tests skip, saying so; in CI (``CI=true``) they
fail instead, so a CI machine without the browser cannot pass by skipping them.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

import engine
from bot.db import migrate_async
from bot.service import GameService
from bot.settings import Settings, sqlite_url
from bot.web.app import WebApp

BROWSER = Path("/usr/bin/chromium")
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTEFACTS = Path(os.environ.get("ALCAZABA_TEST_ARTEFACTS", Path(__file__).resolve().parents[2] / "out" / "test-artefacts"))
SECRET = "web-test-secret"
CHRISTIAN_USER, MUSLIM_USER = 1001, 1002


def require_browser() -> None:
    if BROWSER.exists():
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{BROWSER} is missing in CI: .ci/chromium.sh installs it (apt-get install chromium)")
    pytest.skip(f"{BROWSER} is not installed (run `bash .ci/chromium.sh`): the browser tests need it")


def web_settings(tmp: Path, **changes: Any) -> Settings:
    values: dict[str, Any] = {"data_dir": tmp, "web_secret": SECRET, "web_base_url": "http://127.0.0.1",
                              "web_rate_per_minute": 100_000, "render_concurrency": 2}
    values.update(changes)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@dataclass
class Games:
    """The database of the tests: a finished Granada game (played to its end by the built-in
    player) and a running one between two members."""

    path: Path
    finished: int
    running: int


async def _make_games(path: Path) -> Games:
    url = sqlite_url(path)
    await migrate_async(url)
    service = GameService.open(url)
    try:
        info = await service.create_game("granada", seed=7, guild_id=55)
        await service.start(info.id, fill_with_bots=True)
        await service.play_bots(info.id, max_steps=100_000)
        running = await service.create_game("granada", seed=11, guild_id=55)
        await service.join(running.id, CHRISTIAN_USER, "Isabel <b>&amp;</b>", "christian")
        await service.join(running.id, MUSLIM_USER, "Boabdil", "muslim")
        await service.start(running.id)
        return Games(path, info.id, running.id)
    finally:
        await service.close()


@pytest.fixture(scope="session")
def games(tmp_path_factory: pytest.TempPathFactory) -> Games:
    """Made once: the tests only read the finished game; a test that moves the running one
    copies the file first (:func:`own_games`)."""
    path = tmp_path_factory.mktemp("web") / "alcazaba.db"
    return asyncio.run(_make_games(path))


@pytest.fixture
def own_games(games: Games, tmp_path: Path) -> Games:
    """A copy of the database for a test that writes."""
    import shutil

    path = tmp_path / "alcazaba.db"
    shutil.copy(games.path, path)
    return Games(path, games.finished, games.running)


@dataclass
class Site:
    base: str
    service: GameService
    app: WebApp
    settings: Settings

    async def public_id(self, game_pk: int) -> str:
        return await self.service.public_id(game_pk)


async def start_site(path: Path, settings: Settings) -> tuple[Site, web.AppRunner]:
    service = GameService.open(sqlite_url(path))
    app = WebApp(service, settings)
    runner = web.AppRunner(app.make(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return Site(f"http://127.0.0.1:{port}", service, app, settings), runner


@pytest.fixture
async def site(own_games: Games, tmp_path: Path) -> AsyncIterator[Site]:
    running, runner = await start_site(own_games.path, web_settings(tmp_path))
    try:
        yield running
    finally:
        await runner.cleanup()
        await running.service.close()


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    require_browser()
    from playwright.async_api import async_playwright

    async with async_playwright() as play:
        chromium = await play.chromium.launch(executable_path=str(BROWSER), args=BROWSER_ARGS)
        try:
            yield chromium
        finally:
            await chromium.close()


class Watch:
    """What a page did wrong: console errors, failed requests, answers of 400 and more."""

    def __init__(self, page: Any) -> None:
        self.problems: list[str] = []
        page.on("console", lambda m: self.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: self.problems.append(f"failed: {r.url} {r.failure}")
                if not r.url.endswith("/events") else None)
        page.on("response", lambda r: self.problems.append(f"status {r.status}: {r.url}") if r.status >= 400 else None)


def granada() -> Any:
    return engine.get("granada")
