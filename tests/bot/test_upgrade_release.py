"""Issue 14: a database of the release before rules versions (schema 0004), made by THAT
release's code, upgraded by this one.

The previous release is the commit before migration 0005 was added, extracted with
``git archive`` into a temporary folder; its own ``GameService`` creates games of 1212 and
Granada (Discord games with deadlines and notifications, terminal-table games) and plays
them to several points. This release then runs ``alcazaba upgrade-check`` on the file and
plays every game to its end: the Discord games through the service, undo included, the
terminal games with ``alcazaba local GAME --resume ID --autoplay``. Nothing is lost and
nothing is sent twice.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest

from bot.service import GameService
from bot.settings import sqlite_url
from tests.bot.upgrade_helpers import finish

ROOT = Path(__file__).resolve().parents[2]
ALCAZABA = Path(sys.executable).with_name("alcazaba")
MIGRATION = "migrations/versions/0005_rules_versions.py"

# (game, seed, steps to play, where): where "discord" seats people, with a thread and a deadline.
PLAN = [("navas", 1, 0, "discord"), ("navas", 2, 25, "discord"), ("navas", 3, 10**6, "discord"),
        ("navas", 4, 30, "terminal"), ("granada", 1, 0, "terminal"), ("granada", 2, 30, "discord"),
        ("granada", 3, 120, "terminal"), ("granada", 4, 10**6, "terminal")]

OLD_RELEASE_SCRIPT = '''
import asyncio, json, sys
from datetime import datetime
from pathlib import Path

import bot, engine
from bot.db import migrate
from bot.service import GameService
from bot.settings import sqlite_url
from engine.players import choose

here = Path(__file__).resolve().parent
assert Path(bot.__file__).resolve().is_relative_to(here), "the previous release's code runs"
url = sqlite_url(Path(sys.argv[1]))
migrate(url)
plan = json.loads(sys.argv[2])


async def main() -> None:
    service = GameService.open(url)
    user = 1000
    for game_id, seed, steps, where in plan:
        people = where == "discord"
        info = await service.create_game(game_id, {}, seed=seed, guild_id=1 if people else None,
                                         thread_id=7000 + seed * 10 + len(game_id) if people else None)
        module = engine.get(game_id)
        holders = {}
        for role in module.roles(info.options):
            user += 1
            holders[role] = user if people else None
            await service.join(info.id, holders[role], f"P{user}", role)
        await service.start(info.id)
        if people:
            await service.set_schedule(info.id, pace="24h", deadline_at=datetime(2030, 1, 2))
        for _ in range(steps):
            version, state = await service.state(info.id)
            if module.result(state) is not None:
                break
            role = module.active(state)[0]
            await service.apply(info.id, role, choose(module, state, role, seed * 7919 + version), version,
                                holders[role])
    delivered = await service.claim_outbox("old-release", limit=25)
    await service.mark_all_sent([d.id for d in delivered], "old-release")
    await service.close()


asyncio.run(main())
'''


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def previous_release(into: Path) -> Path:
    """The tree of the commit before migration 0005, in ``into``."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the project's git history (a git checkout) to build the previous release")
    added = git("log", "--diff-filter=A", "--format=%H", "--", MIGRATION).splitlines()
    commit = f"{added[-1]}^" if added else "HEAD"
    archive = into / "release.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, stdout=out, check=True)
    tree = into / "release"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    assert not (tree / MIGRATION).exists() and (tree / "migrations/versions/0004_discord_endings.py").exists()
    return tree


def alcazaba(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DISCORD_TOKEN", "LOG_LEVEL")}
    env["DATA_DIR"] = str(tmp_path / "data")
    return subprocess.run([str(ALCAZABA), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def query(db: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


@pytest.mark.slow
@pytest.mark.rule("issue14:release")
def test_a_database_of_the_previous_release_upgrades_and_every_game_finishes(tmp_path: Path) -> None:
    tree = previous_release(tmp_path)
    script = tree / "make_old_games.py"
    script.write_text(textwrap.dedent(OLD_RELEASE_SCRIPT), encoding="utf-8")
    db = tmp_path / "old.db"
    env = {**{k: v for k, v in os.environ.items() if k != "DATABASE_URL"}, "PYTHONPATH": str(tree)}
    made = subprocess.run([sys.executable, str(script), str(db), json.dumps(PLAN)], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    assert query(db, "SELECT version_num FROM alembic_version") == [("0004",)]
    before = {
        "moves": query(db, "SELECT game_pk, seq, role, action, kind, state_hash FROM move ORDER BY id"),
        "states": query(db, "SELECT game_pk, version, state FROM game_state ORDER BY game_pk"),
        "games": query(db, "SELECT id, game_id, status, version, deadline_at FROM game ORDER BY id"),
    }
    sent = {k for (k,) in query(db, "SELECT dedupe_key FROM outbox WHERE sent_at IS NOT NULL")}
    pending = {k for (k,) in query(db, "SELECT dedupe_key FROM outbox WHERE sent_at IS NULL")}
    assert len(sent) == 25 and pending
    assert sorted(s for (_, _, s, _, _) in before["games"]) == ["finished"] * 2 + ["running"] * 6

    checked = alcazaba(tmp_path, "upgrade-check", "--db", str(db))
    assert checked.returncode == 1, checked.stdout + checked.stderr
    lines = checked.stdout.strip().splitlines()
    # 1212 and Granada are at rules version 3 since that release (their CHANGELOGs): issue 38
    # reworded their log lines (part of the state) and 1212's menus offer alike units once, so
    # every game replays to a different state; the six running games are recorded as upgraded
    # and carry on from their stored states; the two finished games stay as they were played.
    assert lines[-1].startswith("upgrade-check: 8 games: 0 replay identically; 8 replay to a different state ("), lines
    assert lines[-1].endswith("; 6 recorded as upgraded."), lines
    for pk, _game_id, status, _version, _deadline in before["games"]:
        assert any(line.startswith(f"Game {pk} (") and f", {status}, rules version 1, installed 3)" in line
                   and "replays to a different state" in line for line in lines), (pk, lines)
    # Nothing lost: every row of the previous release is there, unchanged; games are stamped.
    assert query(db, "SELECT game_pk, seq, role, action, kind, state_hash FROM move ORDER BY id") == before["moves"]
    assert query(db, "SELECT game_pk, version, state FROM game_state ORDER BY game_pk") == before["states"]
    assert query(db, "SELECT id, game_id, status, version, deadline_at FROM game ORDER BY id") == before["games"]
    assert set(query(db, "SELECT rules_version, schema_revision FROM game")) == {(1, None)}
    assert query(db, "SELECT count(*) FROM rules_upgrade") == [(6,)], "each running game's upgrade, once"

    # Terminal-table games: the built-in player finishes them at the terminal.
    terminal = [pk for pk, (_g, _s, _n, where) in enumerate(PLAN, start=1) if where == "terminal"]
    for pk in terminal:
        game_id = PLAN[pk - 1][0]
        if before["games"][pk - 1][2] == "finished":
            continue
        played = alcazaba(tmp_path, "local", game_id, "--resume", str(pk), "--autoplay", "--db", str(db))
        assert played.returncode == 0, played.stderr
        assert f"game {pk} finished: " in played.stdout

    finished_before = {pk for pk, _g, status, _v, _d in before["games"] if status == "finished"}

    async def play_on() -> list[str]:
        service = GameService.open(sqlite_url(db))
        try:
            undos = 0
            for pk, (_g, _s, _n, where) in enumerate(PLAN, start=1):
                if where == "discord" and (await service.game(pk)).status == "running":
                    undos += (await finish(service, pk, undo_every=12))["undos"]
            assert undos > 0, "undo was exercised on the upgraded games"
            for pk in range(1, len(PLAN) + 1):
                info = await service.game(pk)
                assert info.status == "finished", pk
                report = await service.replay_check(pk)
                # a game finished under the old rules is not replayed under the new ones
                assert report.ok == (pk not in finished_before), (pk, report.message)
            claimed = await service.claim_outbox("new-release", limit=100_000)
            return [c.dedupe_key for c in claimed]
        finally:
            await service.close()

    keys = asyncio.run(play_on())
    assert len(keys) == len(set(keys)), "no notification written twice"
    assert not set(keys) & sent, "nothing the previous release delivered is sent again"
    assert pending <= set(keys), "every notification pending at the upgrade is delivered"

    again = alcazaba(tmp_path, "upgrade-check", "--db", str(db))
    assert again.stdout.strip().splitlines()[-1].startswith(
        "upgrade-check: 8 games: 6 replay identically; 2 replay to a different state"), again.stdout
