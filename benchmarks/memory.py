"""``memory.bot_rss_mb``: the memory of the real process. It starts ``alcazaba run`` against the
Discord stand-in (tests/standin) over the 10,000-game database and reads its RSS; when the
stand-in or the Discord front end is not there, it measures a process that serves the same
database through the game service, and says so."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import (
    Bench,
    figure,
    repo_root,
    skipped,
)


def memory_figure(bench: Bench) -> None:
    """``memory.bot_rss_mb`` over a copy of the stored-games database (see the module's notes)."""
    name = "memory.bot_rss_mb"
    if bench.db_path is None:
        bench.emit(skipped(name, "no stored-games database (no game registered)"))
        return
    if not Path("/proc/self/status").exists():
        bench.emit(skipped(name, "needs /proc to read a process's RSS"))
        return
    db = bench.workdir / "memory.db"
    con = sqlite3.connect(bench.db_path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    shutil.copyfile(bench.db_path, db)
    con = sqlite3.connect(db)
    # An idle bot with a long history: the benchmark's own notifications count as delivered
    # (they name made-up users and channels the stand-in does not know).
    con.execute("UPDATE outbox SET sent_at = created_at WHERE sent_at IS NULL")
    con.commit()
    games = con.execute("SELECT count(*) FROM game").fetchone()[0]
    con.close()
    # Its games were all made under the installed rules: a restart replays none of them
    # (bot/upgrade.py check_at_start), as on a server that restarts without an upgrade.
    asyncio.run(_rules_checked(db))
    reason = discord_unavailable()
    if reason is None:
        samples, what = asyncio.run(rss_of_discord_bot(db, bench.workdir, bench.plan.memory_samples))
    else:
        samples, what = rss_of_service_process(db, bench.plan.memory_samples)
        what = f"{what} ({reason})"
    bench.emit(figure(name, "MB", samples, process=what, stored_games=games))


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def discord_unavailable() -> str | None:
    """Why the real bot cannot be measured against the stand-in, or None when it can."""
    import importlib.util

    if importlib.util.find_spec("bot.discord") is None:
        return "the Discord front end bot.discord is not installed"
    if not (repo_root() / "tests" / "standin" / "server.py").exists():
        return "the Discord stand-in tests/standin is not in this checkout"
    try:
        __import__("aiohttp")
    except ImportError:
        return "aiohttp (needed by the stand-in) is missing"
    return None


async def _rules_checked(db: Path) -> None:
    from bot.service import GameService
    from bot.settings import sqlite_url
    from bot.upgrade import record_checked

    service = GameService.open(sqlite_url(db))
    try:
        await record_checked(service)
    finally:
        await service.close()


async def rss_of_discord_bot(db: Path, workdir: Path, samples: int) -> tuple[list[float], str]:
    """``alcazaba run`` against the stand-in: RSS once it is connected and idle."""
    sys.path.insert(0, str(repo_root()))
    from tests.standin import StandIn

    standin = StandIn()
    await standin.start()
    owner = standin.add_user("bench owner")
    guild = standin.add_guild("bench", owner)
    standin.add_text_channel(guild, "games")
    env = dict(os.environ)
    env.update({
        "DISCORD_TOKEN": standin.token if hasattr(standin, "token") else "standin-token",
        "DISCORD_API_BASE": standin.api_base,
        "DISCORD_GATEWAY_URL": standin.gateway_url,
        "DATABASE_URL": f"sqlite+aiosqlite:///{db}",
        "DATA_DIR": str(workdir / "bot-data"),
        "LOG_LEVEL": "WARNING",
    })
    log_path = workdir / "bot.log"
    with log_path.open("wb") as log:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", env=env, cwd=str(workdir),
            stdout=asyncio.subprocess.DEVNULL, stderr=log)
    try:
        connected = asyncio.ensure_future(standin.wait_connected(timeout=60))
        exited = asyncio.ensure_future(proc.wait())
        await asyncio.wait({connected, exited}, return_when=asyncio.FIRST_COMPLETED)
        if not connected.done() or connected.exception() is not None:
            connected.cancel()
            err = log_path.read_text(errors="replace")[-600:]
            raise RuntimeError(f"the bot did not connect to the stand-in (exit status {proc.returncode}): {err}")
        exited.cancel()
        with contextlib.suppress(TimeoutError):  # settled: start-up requests (command sync) are over
            await standin.wait_quiet(quiet=1.0, timeout=20)
        values = []
        for _ in range(samples):
            values.append(rss_mb(proc.pid))
            await asyncio.sleep(0.2)
        return values, "alcazaba run (Discord bot) against the stand-in"
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), 15)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        await standin.stop()


SERVICE_PROBE = r"""
import asyncio, sys
from bot.service import GameService
from bot.settings import sqlite_url

async def main(path):
    service = GameService.open(sqlite_url(path))
    await service.waiting_for_bots()
    listed = await service.games(status="running", limit=10000)
    for info in listed[:500]:
        await service.view(info.id, None)
    print("ready", len(listed), flush=True)
    sys.stdin.readline()
    await service.close()

asyncio.run(main(sys.argv[1]))
"""


def rss_of_service_process(db: Path, samples: int) -> tuple[list[float], str]:
    """A process serving the database through the game service (lists the running games and
    draws 500 spectator views, filling the state cache), when the Discord bot cannot run."""
    proc = subprocess.Popen([sys.executable, "-c", SERVICE_PROBE, str(db)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=str(repo_root()))
    try:
        assert proc.stdout is not None and proc.stdin is not None
        line = proc.stdout.readline()
        if not line.startswith("ready"):
            raise RuntimeError(f"the service probe did not start: {line!r}")
        values = []
        for _ in range(samples):
            values.append(rss_mb(proc.pid))
            time.sleep(0.1)
        proc.stdin.write("\n")
        proc.stdin.flush()
        proc.wait(timeout=30)
        return values, "game service process"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


