"""The web pages in a real browser (headless Chromium, Playwright): they load cleanly, the
replay shows exactly the spectator's picture of each move, a move shows on an open page
within two seconds, and a player's own page shows nothing of the other seat."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

import render
from bot.web.tokens import personal_link
from engine.api import visible_log
from engine.players import choose
from tests.web.conftest import ARTEFACTS, CHRISTIAN_USER, MUSLIM_USER, Games, Site, Watch, granada

pytestmark = pytest.mark.slow


async def test_the_game_page_loads_with_no_error_and_reads_on_a_phone(site: Site, games: Games, browser: Any) -> None:
    public_id = await site.public_id(games.finished)
    info = await site.service.game(games.finished)
    history = await site.service.public_history(games.finished)
    page = await browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
    watch = Watch(page)
    answer = await page.goto(f"{site.base}/g/{public_id}")
    assert answer is not None and answer.status == 200
    csp = answer.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "http" not in csp
    await page.wait_for_load_state("networkidle")
    # the picture is the final position's, loaded and decoded by the browser
    picture = page.locator("#picture")
    assert await picture.get_attribute("src") == f"/g/{public_id}/at/{history.steps[-1].seq}.png"
    assert await picture.evaluate("img => img.complete && img.naturalWidth > 1000")
    assert await picture.get_attribute("alt")
    text = await page.inner_text("body")
    assert "muslim wins" in text.lower() or "christian wins" in text.lower()
    assert f"{len(history.steps)}\nmuslim" in text or f"{len(history.steps)}\nchristian" in text or \
        f"{len(history.steps)} " in text
    for role in info.roles:
        assert role in text
    # no inline script anywhere, and the page does not scroll sideways on a phone
    assert await page.evaluate("[...document.scripts].every(s => s.src && !s.textContent.trim())")
    assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTEFACTS / "web-game-phone-390x844.png"
    await page.screenshot(path=str(shot), full_page=False)
    assert shot.stat().st_size > 10_000
    assert watch.problems == []


async def test_zoom_and_pan_by_keyboard_buttons_and_wheel(site: Site, games: Games, browser: Any) -> None:
    public_id = await site.public_id(games.finished)
    page = await browser.new_page(viewport={"width": 1000, "height": 800})
    watch = Watch(page)
    await page.goto(f"{site.base}/g/{public_id}")
    await page.wait_for_load_state("networkidle")
    transform = "document.getElementById('picture').style.transform"
    await page.click("button[data-zoom=in]")
    zoomed = await page.evaluate(transform)
    assert "scale(1.5)" in zoomed
    await page.focus(".zoom")
    await page.keyboard.press("ArrowRight")
    panned = await page.evaluate(transform)
    assert panned != zoomed
    await page.keyboard.press("0")
    assert "scale(1)" in await page.evaluate(transform)
    box = await page.locator(".zoom").bounding_box()
    await page.mouse.move(box["x"] + 100, box["y"] + 100)
    await page.mouse.wheel(0, -200)
    assert "scale(1.2)" in await page.evaluate(transform)
    assert watch.problems == []


async def test_each_replay_picture_is_the_spectators_picture_at_that_move(site: Site, games: Games,
                                                                         browser: Any) -> None:
    """Sampled over a whole Granada game: the picture the replay shows at a move is, byte for
    byte, the spectator's board drawn from the engine's view after that move (replayed here
    from the exported moves, not by the web app), and the log shows exactly the moves up to it."""
    public_id = await site.public_id(games.finished)
    exported = await site.service.export(games.finished)
    module = granada()
    moves = exported["moves"]
    last = len(moves)
    samples = sorted({0, 1, 2, 3, last // 7, last // 3, last // 2, 2 * last // 3, last - 1, last})
    expected: dict[int, tuple[bytes, list[str]]] = {}
    state = module.setup(exported["seed"], dict(exported["options"]))
    for n in range(last + 1):
        if n:
            state = module.apply(state, moves[n - 1]["role"], moves[n - 1]["action"])
        if n in samples:
            view = module.view(state, None)
            lines = [e["text"] for e in visible_log(view["log"], None)]
            expected[n] = (render.board("granada", view), lines)

    page = await browser.new_page(viewport={"width": 1200, "height": 900})
    watch = Watch(page)

    async def shown(n: int, move: Any) -> None:
        seq = 0 if n == 0 else moves[n - 1]["seq"]
        async with page.expect_response(lambda r: r.url.endswith(f"/at/{seq}.png")) as caught:
            await move()
        data = await (await caught.value).body()
        assert data == expected[n][0], f"the replay's picture at move {n} is not the spectator's"
        assert await page.input_value("#slider") == str(n)
        visible = await page.eval_on_selector_all("#log li:not([hidden])", "els => els.map(e => e.dataset.move)")
        assert sorted(int(v) for v in visible) == list(range(n + 1)), f"the log at move {n}"
        text = await page.inner_text("#log")
        assert expected[n][1][-1] in text

    await shown(0, lambda: page.goto(f"{site.base}/g/{public_id}/replay/0"))
    await shown(1, lambda: page.keyboard.press("ArrowRight"))
    await shown(2, lambda: page.click("a[data-step=next]"))
    await shown(3, lambda: page.keyboard.press("ArrowRight"))
    for n in samples[4:-2]:
        await shown(n, lambda n=n: page.fill("#slider", str(n)))
    await shown(last, lambda: page.click("a[data-step=last]"))
    await shown(last - 1, lambda: page.keyboard.press("ArrowLeft"))
    await page.click("a[data-step=first]")  # a picture seen before: the browser keeps it
    assert (await page.evaluate("document.getElementById('picture').src")).endswith("/at/0.png")
    assert page.url.endswith("/replay/0")
    assert watch.problems == []


async def test_the_replay_works_without_javascript(site: Site, games: Games, browser: Any) -> None:
    public_id = await site.public_id(games.finished)
    context = await browser.new_context(java_script_enabled=False)
    page = await context.new_page()
    await page.goto(f"{site.base}/g/{public_id}/replay/5")
    await page.click("a[data-step=next]")
    assert page.url.endswith("/replay/6")
    history = await site.service.public_history(games.finished)
    assert await page.get_attribute("#picture", "src") == f"/g/{public_id}/at/{history.seq_at(6)}.png"
    assert await page.locator("#log li:not([hidden])").count() == 7
    await page.fill("#slider", "40")  # the form's Go button
    await page.click("nav.replay button[type=submit]")
    assert "n=40" in page.url
    assert await page.get_attribute("#picture", "src") == f"/g/{public_id}/at/{history.seq_at(40)}.png"
    await context.close()


async def test_a_move_shows_on_an_open_page_within_two_seconds(site: Site, games: Games, browser: Any) -> None:
    public_id = await site.public_id(games.running)
    page = await browser.new_page()
    watch = Watch(page)
    await page.goto(f"{site.base}/g/{public_id}")
    await page.wait_for_load_state("networkidle")
    before = await page.get_attribute("#picture", "src")
    # wait until the page listens (its event stream answered)
    await asyncio.sleep(0.5)
    module = granada()
    for _ in range(3):
        version, state = await site.service.state(games.running)
        role = module.active(state)[0]
        user = CHRISTIAN_USER if role == "christian" else MUSLIM_USER
        step = await site.service.apply(games.running, role, choose(module, state, role, version), version, user)
        made = time.monotonic()
        await page.wait_for_function("v => document.body.dataset.version === String(v)", arg=step.version,
                                     timeout=2000)
        assert time.monotonic() - made < 2.0
        await page.wait_for_function(  # the new picture loaded (the next move would abort it)
            "seq => { const i = document.getElementById('picture');"
            " return i.complete && i.src.endsWith('/at/' + seq + '.png'); }", arg=step.version)
    history = await site.service.public_history(games.running)
    assert await page.get_attribute("#picture", "src") == f"/g/{public_id}/at/{history.steps[-1].seq}.png" != before
    assert await page.locator(f"#log li[data-move='{len(history.steps)}']").count() == 1
    # the player's name is shown as text, never as markup
    assert "Isabel <b>&amp;</b>" in await page.inner_text(".seats")
    assert watch.problems == []


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(k) | _strings(v) for k, v in value.items())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


async def test_a_players_page_shows_nothing_of_the_other_seat(site: Site, games: Games, browser: Any,
                                                              tmp_path: Path) -> None:
    """Over a whole game, at sampled moves: the Christian player's page holds none of the
    texts only the Muslim view holds (his hand, his private log lines, his blocks' identities),
    and every picture it serves is the one drawn from the Christian view."""
    module = granada()
    pk = games.running
    revoked = await site.service.web_revocations(CHRISTIAN_USER)
    link = personal_link(site.settings, pk, "christian", CHRISTIAN_USER, revoked)
    assert link is not None
    address = site.base + link.removeprefix(site.settings.web_base_url or "")
    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    problems: list[str] = []
    checked = 0
    n = 0
    while True:
        version, state = await site.service.state(pk)
        if n % 100 == 0 or module.result(state) is not None:
            # a page of its own for each look: an open page follows the moves made meanwhile
            page = await context.new_page()
            watch = Watch(page)
            served: dict[str, bytes] = {}
            pending: list[asyncio.Future[None]] = []

            async def keep(response: Any, served: dict[str, bytes] = served) -> None:
                if response.url.endswith(".png"):
                    served[response.url] = await response.body()

            page.on("response", lambda r, pending=pending, keep=keep: pending.append(asyncio.ensure_future(keep(r))))
            await page.goto(address)
            await page.wait_for_load_state("networkidle")
            await asyncio.gather(*pending)
            mine, theirs = module.view(state, "christian"), module.view(state, "muslim")
            text = await page.content()
            shown = _strings(mine)  # once: the test below looks in it for each of the other's strings
            secret = {s for s in _strings(theirs) - shown if len(s) >= 5 and not any(s in m for m in shown)}
            leaked = sorted(s for s in secret if s in text)
            assert not leaked, f"at version {version} the Christian page shows {leaked[:5]}"
            drawn = {p.kind: p.draw() for p in render.pictures("granada", mine)}
            assert served, "the page served its pictures"
            for url, data in served.items():
                kind = url.split("/pic/")[1].split("/")[0]
                assert data == drawn[kind], f"the {kind} picture at version {version} is not the Christian view's"
            await page.close()
            problems += watch.problems
            checked += 1
        if module.result(state) is not None or n > 2000:
            break
        role = module.active(state)[0]
        user = CHRISTIAN_USER if role == "christian" else MUSLIM_USER
        await site.service.apply(pk, role, choose(module, state, role, version + 7), version, user)
        n += 1
    assert checked >= 5
    assert problems == []
    await context.close()


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
async def test_a_resignation_and_an_abort_show_on_an_open_page(database: str, browser: Any, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither makes a move, so neither changes the game's version: an open page shows them
    within two seconds because it watches the game's change stamp. They are made by another
    service (another process's connections); on PostgreSQL the watcher polls only every
    minute here, so only the NOTIFY sent with their commits can wake it in time."""
    from aiohttp import web

    from bot.db import migrate_async
    from bot.service import GameService
    from bot.service.web import stamp_of
    from bot.settings import sqlite_url
    from bot.web import live
    from bot.web.app import WebApp
    from tests.web.conftest import web_settings

    if database == "postgresql":
        from tests.bot.conftest import PG_URL, fresh_pg_database

        await fresh_pg_database()
        monkeypatch.setattr(live, "PG_POLL_S", 60.0)
        url = PG_URL
    else:
        url = sqlite_url(tmp_path / "live.db")
        await migrate_async(url)
    player = GameService.open(url)
    app = WebApp(GameService.open(url), web_settings(tmp_path))
    runner = web.AppRunner(app.make(), access_log=None)
    users = {"christian": CHRISTIAN_USER, "muslim": MUSLIM_USER, "red": 2001, "blue": 2002, "green": 2003}

    async def game(game_id: str, seed: int) -> int:
        info = await player.create_game(game_id, seed=seed)
        for role in info.roles:
            await player.join(info.id, users[role], f"Player {role}", role)
        await player.start(info.id)
        return info.id

    try:
        resigned, handed_over, aborted = await game("granada", 5), await game("granada_city", 6), await game("granada", 7)
        module = granada()
        version, state = await player.state(resigned)
        role = module.active(state)[0]
        await player.apply(resigned, role, choose(module, state, role, version), version, users[role])
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        base = f"http://127.0.0.1:{runner.addresses[0][1]}"
        page = await browser.new_page()
        watch = Watch(page)
        cases = [
            (resigned, lambda: player.resign(resigned, "muslim", MUSLIM_USER), "#status",
             "Finished. christian wins: muslim resigned."),
            (handed_over, lambda: player.resign(handed_over, "blue", users["blue"]), ".seats",
             "blue: built-in player"),
            (aborted, lambda: player.abort(aborted, "a manager stopped it"), "#status",
             "Aborted. The game was aborted (a manager stopped it)."),
        ]
        for pk, end, where, shown in cases:
            before = await player.game(pk)
            await page.goto(f"{base}/g/{await player.public_id(pk)}")
            assert shown not in await page.inner_text(where)
            for _ in range(200):  # until the page's event stream is open
                if app.watcher.pages_watching(pk):
                    break
                await asyncio.sleep(0.025)
            assert app.watcher.pages_watching(pk) == 1
            ended = await end()
            made = time.monotonic()
            await page.wait_for_function("([where, text]) => document.querySelector(where).innerText.includes(text)",
                                         arg=[where, shown], timeout=2000)
            assert time.monotonic() - made < 2.0
            assert ended.version == before.version, "no move was made"
            assert await page.evaluate("document.body.dataset.stamp") == stamp_of(ended) != stamp_of(before)
        assert watch.problems == []
    finally:
        await runner.cleanup()
        await player.close()
        await app.service.close()
