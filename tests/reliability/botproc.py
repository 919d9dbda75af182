"""The Discord bot as its own process, for the crash test: ``python -m tests.reliability.botproc``.

It runs ``alcazaba run`` itself (``bot.cli.main(["run"])``: settings from the environment,
logging, migration, then the Discord front end's ``run``: log in, cogs, outbox worker,
deadlines), with one difference: the front end is started with the Discord tests' fast
Tuning, so that a test of dozens of kills fits in CI's time:

* thread posts are grouped for 0.3 s instead of 2 s, the outbox is polled every 0.5 s
  instead of 5 s;
* the outbox lease, and the lease of a game's deadline or built-in turn, is
  ``ALCAZABA_TEST_LEASE`` seconds (default 3) instead of 30: rows and games a killed process
  had claimed are taken over by its successor, or by another process, once the lease runs
  out, so the lease is how long a crash delays them;
* a matchmaking pool is matched once its oldest ticket waited ``ALCAZABA_TEST_GATHER``
  seconds (default: the real 20);
* the bot's clock (``Tuning.now``) runs ``ALCAZABA_TEST_CLOCK_AHEAD`` seconds ahead (default
  0): a process started again after a kill then finds the dead one's fixed leases (a matched
  game's or a tournament round's opening, 60 s) run out, as after a restart a minute later.
"""

from __future__ import annotations

import asyncio
import faulthandler
import io
import logging
import os
import signal
import sys
from dataclasses import replace
from datetime import timedelta

import bot.discord
from bot.cli import main as alcazaba
from bot.discord.client import Tuning, serve
from bot.models import utcnow
from bot.settings import Settings

FAST = Tuning(group_seconds=0.3, group_max_seconds=1.0, outbox_poll_seconds=0.5, deadline_poll_seconds=0.5,
              rate_per_10s=1000)


def dump_tasks() -> None:
    """Log the stack of every asyncio task (``kill -USR2 <pid>``): where a stuck bot waits."""
    log = logging.getLogger("botproc")
    for task in asyncio.all_tasks():
        buf = io.StringIO()
        task.print_stack(file=buf)
        log.warning("task %s:\n%s", task.get_name(), buf.getvalue())


def main() -> int:
    lease = float(os.environ.get("ALCAZABA_TEST_LEASE", "3"))
    ahead = timedelta(seconds=float(os.environ.get("ALCAZABA_TEST_CLOCK_AHEAD", "0")))
    tuning = replace(FAST, outbox_lease_seconds=lease, claim_lease_seconds=lease,
                     seek_gather_seconds=float(os.environ.get("ALCAZABA_TEST_GATHER", Tuning.seek_gather_seconds)),
                     now=(lambda: utcnow() + ahead) if ahead else utcnow)

    async def run(settings: Settings) -> int:
        """``bot.discord.run`` (what ``alcazaba run`` calls) with the test's Tuning."""
        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR2, dump_tasks)
        return await serve(settings, tuning)

    bot.discord.run = run  # type: ignore[assignment]
    # `kill -USR1 <pid>` writes every thread's stack to the log: how a hang is diagnosed.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    # The process id in each line tells the killed process's lines from its successor's
    # (alcazaba's own logging.basicConfig then changes nothing).
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO"), stream=sys.stderr,
                        format=f"%(asctime)s pid{os.getpid()} %(levelname)s %(name)s: %(message)s")
    return alcazaba(["run"])


if __name__ == "__main__":
    sys.exit(main())
