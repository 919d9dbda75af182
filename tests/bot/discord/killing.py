"""The set-up the SIGKILL tests share (test_tournament_kill.py, test_matchmaking_kill.py): the
bot as its own process against the Discord stand-in, killed at a moment the stand-in picks
(it holds one request unanswered, :meth:`tests.standin.StandIn.stall`) and started again.

The process is ``alcazaba run`` started through tests/reliability/botproc.py, as the crash
test starts it: the same command with the Discord tests' short waits. What a killed process
had claimed (its outbox rows, a game's turn) is taken over by its successor once the claim's
lease runs out, so the lease is how long each restart waits before it finishes the work:
``LEASE`` seconds instead of the real 30, and a matchmaking pool is matched once its oldest
ticket waited ``GATHER`` seconds instead of 20. The opening of a matched game or of a
tournament round is held for a fixed minute by the process that began it: the process started
again has its clock a minute ahead (:meth:`Killable.restart`), as if started once that lease
ran out, instead of sitting it out. The moments and what is checked after the restart are the
same; only the waits are shorter.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from bot.service import GameService
from tests.bot.discord.conftest import Harness
from tests.bot.discord.test_restart import Process
from tests.standin import StandIn
from tests.standin.server import Stall

ROOT = Path(__file__).resolve().parents[3]
LEASE = 2.0
"""Seconds a dead process's claims hold (the real bot: 30). Longer than the longest a live
process holds an outbox claim before it sends (the fast tuning's 1 s of grouping)."""
GATHER = 2.0
"""Seconds a matchmaking pool gathers tickets (the real bot: 20)."""
AHEAD = 61.0
"""Seconds the restarted bot's clock runs ahead: past the fixed lease (60 s) of a matched
game's opening (bot/service/matchmaking.py) and of a tournament round's (tournaments.py)."""


@dataclass
class Killable:
    """The harness (the stand-in's users and server), the bot's process and, once opened, a
    service on the bot's database for the checks."""

    h: Harness
    process: Process
    svc: GameService | None = None

    def service(self) -> GameService:
        if self.svc is None:
            self.svc = GameService.open(self.h.settings.db_url)
        return self.svc

    async def kill_when_held(self, stall: Stall, timeout: float = 60) -> None:
        """Kill the process once it waits for the answer ``stall`` holds, then let the held
        request go (it fails, or took effect without an answer: the stall's mode)."""
        await asyncio.wait_for(stall.caught.wait(), timeout)
        await self.process.kill()
        stall.release()

    async def restart(self, ahead: float = AHEAD) -> None:
        """Start the killed bot again, its clock ``ahead`` seconds on: as if started again once
        the dead process's fixed leases ran out, which the bot would otherwise sit out."""
        self.process.env["ALCAZABA_TEST_CLOCK_AHEAD"] = str(ahead)
        await self.process.start()


@asynccontextmanager
async def bot_process(standin: StandIn, tmp_path: Path) -> AsyncIterator[Killable]:
    """The bot started in its own process on a fresh data directory; stopped at the end."""
    h = Harness(standin, tmp_path / "data", None)  # type: ignore[arg-type]
    env = {"ALCAZABA_TEST_LEASE": str(LEASE), "ALCAZABA_TEST_GATHER": str(GATHER),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    run = Killable(h, Process(h, tmp_path / "bot.log", ("-m", "tests.reliability.botproc"), env))
    await run.process.start()
    try:
        yield run
    finally:
        if run.svc is not None:
            await run.svc.close()
        await run.process.stop()
