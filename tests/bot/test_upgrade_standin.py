"""Issue 14 on a whole Discord stand-in session: ``alcazaba upgrade-check`` reports every game
of the bot's database, and a rules change reaches a running game's thread once, posted by the
real delivery from the outbox row the check wrote (no Discord code knows about it)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import engine
from bot.db import sqlite_path
from bot.service import GameService
from bot.upgrade import check_games
from tests.bot import toygame
from tests.bot.discord.conftest import Harness, drive, standin, table  # noqa: F401  (fixtures)
from tests.bot.test_upgrade import apply_v2, toy_version

ROOT = Path(__file__).resolve().parents[2]


def add_two_or_bank(actions: list[dict[str, Any]], rng: random.Random) -> int:
    wanted = "add" if rng.random() < 0.6 else "bank"
    return next(i for i, a in enumerate(actions) if a["type"] == wanted and a.get("n", 2) == 2)


def upgrade_check(db: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DISCORD_TOKEN", "LOG_LEVEL")}
    env["DATA_DIR"] = str(tmp_path / "cli")
    return subprocess.run([sys.executable, "-m", "tests.bot.toy_cli", "upgrade-check", "--db", str(db)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


async def test_upgrade_check_reports_every_game_of_a_session_and_the_thread_hears_once(
        table: Harness, tmp_path: Path) -> None:  # noqa: F811
    h = table
    rng = random.Random(14)
    first = await h.open_game("toy", side="red", seed=3, options="target=8")
    await drive(h, 1, rng, pick=add_two_or_bank)  # to its end
    second = await h.open_game("toy", side="red", seed=4, options="target=20")
    # Points come from "add 2" only: the log of game 2 has some, which version 2 scores otherwise.
    await drive(h, 2, rng, pick=add_two_or_bank, until=lambda state: sum(state["score"].values()) >= 6)
    await h.cmd(h.alice, "game new", game="toy", side="blue")  # open: nobody else joined
    db = sqlite_path(h.settings.db_url)
    assert db is not None

    checked = upgrade_check(db, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    lines = checked.stdout.strip().splitlines()
    assert lines[-1] == "upgrade-check: 3 games: 3 replay identically."
    assert [line.split(" (")[0] for line in lines[:-1]] == ["Game 1", "Game 2", "Game 3"]
    assert ", finished, " in lines[0] and ", running, " in lines[1] and ", open, " in lines[2]

    # A rules change while the bot runs: the check (as `alcazaba run` makes it at start) tells
    # the running game's thread, once; the finished game's thread hears nothing.
    engine.GAMES["toy"] = toy_version(2, apply_v2, "Adding 2 now counts 3 points.")
    svc = GameService.open(h.settings.db_url)
    try:
        report = await check_games(svc)
        await check_games(svc)
    finally:
        await svc.close()
        engine.GAMES["toy"] = toygame
    by_pk = {g.game_pk: g for g in report.games}
    assert (by_pk[2].outcome, by_pk[2].notified, by_pk[1].notified) == ("different", True, False)
    notice = await h.si.wait_message(lambda m: m.channel_id == second and "rules of Toy race were updated" in m.content,
                                     timeout=20)
    await h.si.wait_quiet(0.5)
    assert "Adding 2 now counts 3 points." in notice.content
    told = [m for m in h.si.channel_messages(second) if "rules of Toy race were updated" in m.content]
    assert len(told) == 1
    assert not [m for m in h.si.channel_messages(first) if "rules of" in m.content]
    assert h.si.violations == []
