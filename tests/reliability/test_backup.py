"""``alcazaba backup PATH`` while another process keeps writing moves (issue 6, "Backups").

A writer process plays games of 1212 with the built-in player on every seat, one committed
move after another, into a SQLite file. Meanwhile ``alcazaba backup`` copies that file
several times. Each copy must open, pass SQLite's integrity check, and every game in it,
finished or caught mid-turn, must replay from its log to exactly its stored state: a copy
taken between a move row and its state snapshot would not.
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.db import migrate_async
from bot.service import GameService
from bot.settings import sqlite_url

ROOT = Path(__file__).resolve().parents[2]

WRITER = r"""
import asyncio, sys
from pathlib import Path
from bot.service import GameService
from bot.settings import sqlite_url

async def main(db, stop):
    service = GameService.open(sqlite_url(db))
    seed = 1
    try:
        while not Path(stop).exists():
            info = await service.create_game("navas", {}, seed)
            await service.start(info.id, fill_with_bots=True)
            while not Path(stop).exists():
                if not await service.play_bots(info.id, max_steps=1):
                    break
            seed += 1
    finally:
        await service.close()

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def moves_in(db: Path) -> int:
    with sqlite3.connect(db, timeout=30) as conn:
        return int(conn.execute("SELECT count(*) FROM move").fetchone()[0])


def alcazaba(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.slow
async def test_backup_while_another_process_writes(tmp_path: Path) -> None:
    db, stop = tmp_path / "live.db", tmp_path / "stop"
    await migrate_async(sqlite_url(db))
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(stop)], cwd=ROOT,
                              stderr=subprocess.PIPE, text=True)
    copies: list[tuple[Path, int, int]] = []
    try:
        deadline = time.monotonic() + 60
        while moves_in(db) < 100:
            assert writer.poll() is None, writer.stderr.read() if writer.stderr else ""
            assert time.monotonic() < deadline, "the writer made too few moves"
            await asyncio.sleep(0.1)
        for n in range(3):
            before = moves_in(db)
            done = await asyncio.to_thread(alcazaba, "backup", str(tmp_path / f"copy{n}.db"), "--db", str(db))
            after = moves_in(db)
            assert done.returncode == 0, done.stderr
            assert "backup written" in done.stdout
            copies.append((tmp_path / f"copy{n}.db", before, after))
            await asyncio.sleep(0.3)
        assert writer.poll() is None, "the writer stopped while the backups ran"
    finally:
        stop.touch()
        try:
            writer.wait(timeout=30)
        finally:
            if writer.poll() is None:
                writer.kill()
    assert any(after > before for _, before, after in copies), "no move was written while a backup ran"
    for copy, before, after in copies:
        with sqlite3.connect(copy) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert before <= moves_in(copy) <= after
        service = GameService.open(sqlite_url(copy))
        try:
            games = await service.games(limit=1000)
            assert games
            assert any(g.status == "running" for g in games), "the copy caught no game mid-play"
            for info in games:
                report = await service.replay_check(info.id)
                assert report.ok, f"{copy.name}, game {info.id}: {report.message}"
        finally:
            await service.close()
    # and through the command line, as an operator would check a copy
    last = copies[-1][0]
    running = [g for g in await _games(last) if g[1] == "running"]
    checked = await asyncio.to_thread(alcazaba, "replay-check", str(running[0][0]), "--db", str(last))
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("ok:")


async def _games(db: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(db) as conn:
        return [(int(a), str(b)) for a, b in conn.execute("SELECT id, status FROM game ORDER BY id")]
