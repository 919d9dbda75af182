"""The bot as ``alcazaba run`` starts it, in its own process: killed and started again, its
old buttons still work, and a deadline that passed while it was down is handled once, with
no burst of stale reminders."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from bot.models import utcnow
from tests.bot.discord.conftest import Harness, choices_of
from tests.standin import StandIn

pytestmark = pytest.mark.slow


class Process:
    """``alcazaba run`` with the environment an operator would set, pointed at the stand-in.
    ``command`` (what follows the interpreter) and ``env`` (added to the environment) let a
    test start it through tests/reliability/botproc.py, the same command with short waits."""

    def __init__(self, h: Harness, log: Path, command: tuple[str, ...] = ("-m", "bot.cli", "run"),
                 env: dict[str, str] | None = None) -> None:
        self.h = h
        self.log = log
        self.command = command
        self.env = dict(env or {})
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        si = self.h.si
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DATA_DIR"))}
        env.update(DISCORD_TOKEN=si.token, DISCORD_API_BASE=si.api_base, DISCORD_GATEWAY_URL=si.gateway_url,
                   DISCORD_DEV_GUILD_ID=str(self.h.guild), DATA_DIR=str(self.h.data_dir), LOG_LEVEL="INFO",
                   **self.env)
        mark = len(si.requests)
        out = self.log.open("ab")
        self.proc = subprocess.Popen([sys.executable, *self.command], env=env, stdout=out, stderr=out,
                                     cwd=self.h.data_dir.parent)
        await si.wait_connected(timeout=60)
        await si.wait_for(lambda r: r.method == "PUT" and "/commands" in r.route, timeout=60, start=mark)

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await asyncio.to_thread(self.proc.wait, 30)
        await self.h.si.disconnect_all()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(self.proc.wait, 30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture
async def process(standin: StandIn, tmp_path: Path):  # type: ignore[no-untyped-def]
    h = Harness(standin, tmp_path / "data", None)  # type: ignore[arg-type]
    p = Process(h, tmp_path / "bot.log")
    await p.start()
    yield p
    await p.stop()


async def test_kill_restart_old_buttons_work_and_a_missed_deadline_is_handled_once(process: Process) -> None:
    h = process.h
    si = h.si
    # A real game: the bot process has only the registered engines.
    thread = await h.open_game("navas", side="christian", pace="24h", seed=2)
    prompt = await si.wait_message(lambda m: si.visible_to(m, h.alice) and bool(choices_of(m)), timeout=30)
    assert prompt.files and prompt.files[0].filename == "board.png"
    db = h.data_dir / "alcazaba.db"

    def deadline() -> object:
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT deadline_at FROM game WHERE id = 1").fetchone()[0]

    for _ in range(100):
        if deadline() is not None:
            break
        await asyncio.sleep(0.1)
    assert deadline() is not None, "the clock of the first move was not started"

    await process.kill()
    # While the bot is down, alice's time runs out (her deadline and its reminder time pass).
    past = (utcnow() - timedelta(hours=1)).isoformat(sep=" ")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE game SET deadline_at = ?, reminded_at = NULL WHERE id = 1", (past,))
    sent_before = len(si.messages)
    await process.start()

    # The deadline is handled once: one DM, one thread line; no reminder.
    await si.wait_message(lambda m: "ran out" in m.content and si.visible_to(m, h.alice), timeout=30)
    await si.wait_message(lambda m: m.channel_id == thread and "let the deadline pass" in m.content, timeout=30)
    await asyncio.sleep(1.5)
    new = list(si.messages.values())[sent_before:]
    # Both sides owe their initiative card: each is told once.
    for user in (h.alice, h.bob):
        assert len([m for m in new if "ran out" in m.content and si.visible_to(m, user)]) == 1
    assert len([m for m in new if m.channel_id == thread and "deadline" in m.content]) == 1
    assert [m for m in new if "Reminder" in m.content] == []
    with sqlite3.connect(db) as conn:
        (new_deadline,) = conn.execute("SELECT deadline_at FROM game WHERE id = 1").fetchone()
    assert new_deadline > past  # another period started

    # The button of the DM sent before the crash still works.
    cid, value = choices_of(prompt)[0]
    click = await si.click(h.alice, prompt.id, cid, [value] if value else None)
    await si.answered(click, timeout=20)
    await si.wait_message(lambda m: m.id == prompt.id and "✅" in m.content, timeout=30)  # marked as answered
    await si.wait_message(lambda m: m.id > prompt.id and si.visible_to(m, h.alice) and "waiting for muslim" in m.content,
                          timeout=30)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version FROM game WHERE id = 1").fetchone()[0] == 1
    assert si.violations == []
