"""The Discord bot as its own process, for the crash test: ``python -m tests.reliability.botproc``.

It runs what ``alcazaba run`` runs (``bot.discord.client.serve``: migrate, log in, cogs,
outbox worker, deadlines) with the settings from the environment, and only two test
timings changed so that a test of dozens of kills fits in CI's time:

* the Discord tests' fast Tuning (group thread posts for 0.3 s instead of 2 s, poll the
  outbox every 0.5 s instead of 5 s);
* the outbox lease (``ALCAZABA_TEST_LEASE`` seconds, default 4, instead of 120): rows a
  killed process had claimed are taken over by its successor once the lease runs out, so
  the lease is how long a crash delays them.
"""

from __future__ import annotations

import asyncio
import faulthandler
import io
import logging
import os
import signal
import sys

from bot.discord.client import Tuning, serve
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


async def run(settings: Settings) -> int:
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR2, dump_tasks)
    return await serve(settings, FAST)


def shorten_lease(seconds: float) -> None:
    """Set the delivery cog's lease once the cog is loaded (``load_extension`` executes the
    cog's module afresh, so the value must be set on the module it made)."""
    from bot.discord.client import AlcazabaBot

    original = AlcazabaBot.setup_hook

    async def setup_hook(self: AlcazabaBot) -> None:
        await original(self)
        sys.modules["bot.discord.cogs.delivery"].LEASE_SECONDS = seconds  # type: ignore[attr-defined]

    AlcazabaBot.setup_hook = setup_hook  # type: ignore[method-assign]


def main() -> int:
    shorten_lease(float(os.environ.get("ALCAZABA_TEST_LEASE", "4")))
    # `kill -USR1 <pid>` writes every thread's stack to the log: how a hang is diagnosed.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    settings = Settings()
    logging.basicConfig(level=settings.log_level, stream=sys.stderr,
                        format=f"%(asctime)s pid{os.getpid()} %(levelname)s %(name)s: %(message)s")
    return asyncio.run(run(settings))


if __name__ == "__main__":
    sys.exit(main())
