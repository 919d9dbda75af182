"""The web pages over HTTP (no browser): addresses, personal links, the rate limit, the index,
the public history without the steps taken back, and the commands that run and link them."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from alembic import command

import engine
from bot.cli import main
from bot.db import alembic_config, migrate, migrate_async
from bot.service import GameService
from bot.settings import sqlite_url
from bot.web import tokens
from bot.web.tokens import personal_link
from tests.bot import toygame
from tests.web.conftest import CHRISTIAN_USER, MUSLIM_USER, SECRET, Games, Site, start_site, web_settings

ANN, BOB = 101, 202


@pytest.fixture
def toy() -> Iterator[None]:
    engine.GAMES[toygame.id] = toygame
    yield
    engine.GAMES.pop(toygame.id, None)


async def get(url: str) -> tuple[int, str, dict[str, str]]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text(errors="replace"), dict(response.headers)


async def test_a_game_is_found_by_its_public_id_only(site: Site, games: Games) -> None:
    public_id = await site.public_id(games.finished)
    assert len(public_id) >= 22 and public_id != str(games.finished)
    status, body, headers = await get(f"{site.base}/g/{public_id}")
    assert status == 200 and "Granada" in body
    assert "'unsafe-inline'" not in headers["Content-Security-Policy"]
    assert "<script>" not in body and "style=" not in body
    missing = [await get(f"{site.base}/g/{games.finished}"), await get(f"{site.base}/g/{public_id[:-1]}x"),
               await get(f"{site.base}/g/{public_id}/at/999999.png"), await get(f"{site.base}/g/{public_id}/replay/9999")]
    assert {m[0] for m in missing} == {404}
    assert len({m[1] for m in missing}) == 1, "every 404 says the same"


async def test_the_game_page_escapes_names(site: Site, games: Games) -> None:
    public_id = await site.public_id(games.running)
    status, body, _headers = await get(f"{site.base}/g/{public_id}")
    assert status == 200
    assert "Isabel &lt;b&gt;&amp;amp;&lt;/b&gt;" in body and "<b>&amp;</b>" not in body


async def test_personal_links_open_one_seat_and_refuse_everything_else(site: Site, games: Games) -> None:
    pk = games.running
    good = personal_link(site.settings, pk, "christian", CHRISTIAN_USER, 0)
    assert good is not None
    token = good.rsplit("/", 1)[1]
    status, body, headers = await get(f"{site.base}/p/{token}")
    assert status == 200 and "christian" in body and headers["Cache-Control"] == "no-store"
    view = (await site.service.view(pk, "christian", CHRISTIAN_USER)).view
    assert str(view["prompt"])[:30].replace("'", "&#x27;") in body or not view["prompt"]

    now = time.time()
    secret = SECRET.encode()
    version, body_text, mac = token.split(".")
    other_body = tokens.sign(tokens.Grant(pk, "muslim", CHRISTIAN_USER, int(now) + 99, 1, 0), secret).split(".")[1]
    flipped = mac[:-2] + ("A" if mac[-2] != "A" else "B") + mac[-1]
    bad = {
        "tampered signature": f"{version}.{body_text}.{flipped}",
        "tampered body": f"{version}.{other_body}.{mac}",
        "expired": tokens.sign(tokens.Grant(pk, "christian", CHRISTIAN_USER, int(now) - 1, 1, 0), secret),
        "other seat": tokens.sign(tokens.Grant(pk, "muslim", CHRISTIAN_USER, int(now) + 99, 1, 0), secret),
        "other member": tokens.sign(tokens.Grant(pk, "christian", MUSLIM_USER, int(now) + 99, 1, 0), secret),
        "old key version": tokens.sign(tokens.Grant(pk, "christian", CHRISTIAN_USER, int(now) + 99, 2, 0), secret),
        "other key": tokens.sign(tokens.Grant(pk, "christian", CHRISTIAN_USER, int(now) + 99, 1, 0), b"guess"),
        "unknown game": tokens.sign(tokens.Grant(99999, "christian", CHRISTIAN_USER, int(now) + 99, 1, 0), secret),
        "garbage": "1.e30.AAAA",
    }
    answers = {name: await get(f"{site.base}/p/{t}") for name, t in bad.items()}
    assert {name: a[0] for name, a in answers.items()} == dict.fromkeys(bad, 404)
    assert len({a[1] for a in answers.values()}) == 1, "a 404 does not say why"
    # revoked: every link the member holds stops opening, his opponent's still opens
    theirs = personal_link(site.settings, pk, "muslim", MUSLIM_USER, 0)
    assert theirs is not None
    assert await site.service.revoke_web_links(CHRISTIAN_USER) == 1
    assert (await get(f"{site.base}/p/{token}"))[0] == 404
    assert (await get(f"{site.base}/p/{token}/events"))[0] == 404
    assert (await get(f"{site.base}/p/{theirs.rsplit('/', 1)[1]}"))[0] == 200
    fresh = personal_link(site.settings, pk, "christian", CHRISTIAN_USER, 1)
    assert fresh is not None and (await get(f"{site.base}/p/{fresh.rsplit('/', 1)[1]}"))[0] == 200


async def test_a_key_version_raised_revokes_every_link(own_games: Games, tmp_path: Path) -> None:
    old = personal_link(web_settings(tmp_path), own_games.running, "christian", CHRISTIAN_USER, 0)
    assert old is not None
    site, runner = await start_site(own_games.path, web_settings(tmp_path, web_key_version=2))
    try:
        assert (await get(f"{site.base}/p/{old.rsplit('/', 1)[1]}"))[0] == 404
    finally:
        await runner.cleanup()
        await site.service.close()


async def test_each_address_is_rate_limited(own_games: Games, tmp_path: Path) -> None:
    site, runner = await start_site(own_games.path, web_settings(tmp_path, web_rate_per_minute=5))
    try:
        statuses = [(await get(f"{site.base}/g/nothing"))[0] for _ in range(7)]
        assert statuses[:5] == [404] * 5 and statuses[5:] == [429, 429]
        assert (await get(f"{site.base}/static/web.js"))[0] == 200  # the page's own files are not counted
    finally:
        await runner.cleanup()
        await site.service.close()


async def test_the_index_lists_only_the_games_of_listed_servers(site: Site, games: Games) -> None:
    public_id = await site.public_id(games.finished)
    assert public_id not in (await get(f"{site.base}/"))[1]
    await site.service.set_web_listed(55, True)
    assert await site.service.web_listed(55)
    assert public_id in (await get(f"{site.base}/"))[1]
    await site.service.set_web_listed(55, False)
    assert public_id not in (await get(f"{site.base}/"))[1]


async def test_the_history_leaves_out_the_steps_taken_back(toy: None, tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "toy.db")
    await migrate_async(url)
    service = GameService.open(url)
    try:
        info = await service.create_game("toy", {"target": 12}, seed=7)
        await service.join(info.id, ANN, "Ann")
        await service.join(info.id, BOB, "Bob")
        await service.start(info.id)
        pk = info.id
        await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
        _, after_one = await service.state(pk)
        await service.apply(pk, "red", {"type": "add", "n": 2}, 1, ANN)
        await service.undo(pk, "red", 2, ANN)
        history = await service.public_history(pk)
        assert [s.seq for s in history.steps] == [1]
        assert await service.view_at(pk, 2) is None, "a step taken back has no position"
        assert await service.view_at(pk, 1) == toygame.view(after_one, None)
        await service.apply(pk, "red", {"type": "add", "n": 1}, 3, ANN)
        history = await service.public_history(pk)
        assert [(s.number, s.seq, s.role) for s in history.steps] == [(1, 1, "red"), (2, 4, "red")]
        assert history.position_of(4) == 2 and history.position_of(2) is None
        exported = await service.export(pk)
        assert [m["seq"] for m in exported["moves"]] == [s.seq for s in history.steps]
    finally:
        await service.close()


async def test_an_imported_game_replays_on_the_web(site: Site, games: Games) -> None:
    exported = await site.service.export(games.finished)
    pk = await site.service.import_game(exported)
    public_id = await site.public_id(pk)
    history = await site.service.public_history(pk)
    assert len(history.steps) == len(exported["moves"])
    status, _body, _h = await get(f"{site.base}/g/{public_id}/replay/10")
    assert status == 200
    mine = await get(f"{site.base}/g/{public_id}/at/{history.seq_at(10)}.png")
    original = await get(f"{site.base}/g/{await site.public_id(games.finished)}/at/{exported['moves'][9]['seq']}.png")
    assert mine[0] == 200 and mine[1] == original[1]


def test_the_migration_gives_every_existing_game_an_address(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    url = sqlite_url(path)
    migrate(url)

    async def make() -> list[int]:
        service = GameService.open(url)
        try:
            return [(await service.create_game("granada", seed=s)).id for s in (1, 2, 3)]
        finally:
            await service.close()

    pks = asyncio.run(make())
    command.downgrade(alembic_config(url), "0009")
    with sqlite3.connect(path) as conn:
        assert "web_game" not in {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    migrate(url)
    with sqlite3.connect(path) as conn:
        rows = dict(conn.execute("SELECT game_pk, public_id FROM web_game").fetchall())
    assert sorted(rows) == pks
    assert len(set(rows.values())) == 3 and all(len(p) == 22 for p in rows.values())


def test_web_link_prints_the_address(games: Games, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WEB_BASE_URL", "https://games.example.org/")
    assert main(["web-link", str(games.finished), "--db", str(games.path)]) == 0
    link = capsys.readouterr().out.strip()
    assert link.startswith("https://games.example.org/g/") and not link.endswith(f"/{games.finished}")
    assert main(["web-link", str(games.finished), "--db", str(games.path)]) == 0
    assert capsys.readouterr().out.strip() == link, "a game keeps its address"
    monkeypatch.delenv("WEB_BASE_URL")
    monkeypatch.setenv("WEB_BASE_URL", "")
    assert main(["web-link", str(games.finished), "--db", str(games.path)]) == 2
    assert "WEB_BASE_URL" in capsys.readouterr().err


async def read_event(stream: aiohttp.StreamReader, timeout: float) -> dict[str, object]:
    """The next server-sent event (keep-alive comments skipped)."""
    import json

    async def next_event() -> dict[str, object]:
        lines: list[str] = []
        while True:
            raw = (await stream.readline()).decode()
            if raw in ("\n", "") and lines:
                data = [line[5:].strip() for line in lines if line.startswith("data:")]
                if data:
                    return dict(json.loads(data[0]))
                lines = []
                continue
            if raw.strip():
                lines.append(raw.strip())

    return await asyncio.wait_for(next_event(), timeout)


async def _moves_reach_an_open_stream(url: str, settings_dir: Path) -> None:
    """A move made by another service (another process's connections) reaches an open page's
    event stream within two seconds, and so does a resignation, which changes no version."""
    import time as clock

    from engine.players import choose

    player = GameService.open(url)
    watcher_service = GameService.open(url)
    from aiohttp import web

    from bot.service.web import stamp_of
    from bot.web.app import WebApp

    runner = web.AppRunner(WebApp(watcher_service, web_settings(settings_dir)).make(), access_log=None)
    try:
        info = await player.create_game("granada", seed=5)
        await player.join(info.id, CHRISTIAN_USER, "Isabel", "christian")
        await player.join(info.id, MUSLIM_USER, "Boabdil", "muslim")
        await player.start(info.id)
        public_id = await player.public_id(info.id)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        base = f"http://127.0.0.1:{runner.addresses[0][1]}"
        module = engine.get("granada")
        async with aiohttp.ClientSession() as session, session.get(f"{base}/g/{public_id}/events") as stream:
            assert stream.status == 200 and stream.headers["Content-Type"] == "text/event-stream"
            first = await read_event(stream.content, 5)
            for _ in range(2):
                version, state = await player.state(info.id)
                assert first["stamp"] == stamp_of(await player.game(info.id))
                role = module.active(state)[0]
                user = CHRISTIAN_USER if role == "christian" else MUSLIM_USER
                step = await player.apply(info.id, role, choose(module, state, role, version), version, user)
                made = clock.monotonic()
                first = await read_event(stream.content, 2.0)
                assert str(first["stamp"]).startswith(f"{step.version}.running.")
                assert clock.monotonic() - made < 2.0
            ended = await player.resign(info.id, "muslim", MUSLIM_USER)
            made = clock.monotonic()
            first = await read_event(stream.content, 2.0)
            assert ended.version == step.version and first["stamp"] == stamp_of(ended)
            assert str(first["stamp"]).startswith(f"{step.version}.finished.")
            assert clock.monotonic() - made < 2.0
    finally:
        await runner.cleanup()
        await player.close()
        await watcher_service.close()


async def test_a_move_reaches_an_open_stream_on_sqlite(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "live.db")
    await migrate_async(url)
    await _moves_reach_an_open_stream(url, tmp_path)


@pytest.mark.postgres
async def test_a_move_reaches_an_open_stream_through_listen_notify(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """On PostgreSQL the watcher polls only every minute here: only the NOTIFY sent with the
    commit of the step, or of the resignation, can wake it in time."""
    from bot.web import live
    from tests.bot.conftest import PG_URL, fresh_pg_database

    await fresh_pg_database()
    monkeypatch.setattr(live, "PG_POLL_S", 60.0)
    await _moves_reach_an_open_stream(PG_URL, tmp_path)


def test_browser_tests_skip_locally_and_fail_in_ci_without_chromium(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    from tests.web import conftest

    monkeypatch.setattr(conftest, "BROWSER", tmp_path / "no-chromium")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium.sh"):
        conftest.require_browser()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="missing in CI"):
        conftest.require_browser()


def test_web_refuses_a_database_without_its_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The pages only read: a database an older release left is not migrated behind the
    operator's back, he is told what to run."""
    path = tmp_path / "old.db"
    migrate(sqlite_url(path), "0009")
    assert main(["web", "--db", str(path), "--port", "1"]) == 2
    assert "alcazaba run" in capsys.readouterr().err


def test_web_port_serves_the_pages_beside_the_bot(tmp_path: Path) -> None:
    """``WEB_PORT``: ``alcazaba run`` serves the pages from a thread of their own, with its own
    event loop and service (bot.web.commands.start_in_background); unset, nothing is served."""
    import socket
    import urllib.request

    from bot.web.commands import start_in_background

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    settings = web_settings(tmp_path, web_port=port, web_host="127.0.0.1")
    migrate(settings.db_url)
    assert start_in_background(web_settings(tmp_path)) is None
    thread = start_in_background(settings)
    assert thread is not None and thread.daemon
    status = None
    deadline = time.monotonic() + 30
    while status is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/favicon.ico", timeout=2) as answer:
                status = answer.status
        except OSError:
            time.sleep(0.2)
    assert status == 204, "the pages did not answer on WEB_PORT"
