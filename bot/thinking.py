"""Where the built-in player thinks: a process pool shared fairly by the games that wait for it.

A search decision (levels ``normal`` and ``hard``, :mod:`engine.ai`) takes seconds of CPU. Run
on the event loop it would stop the bot answering anyone; run in a thread it would still hold
the interpreter's lock most of the time. So it runs in worker processes
(:class:`concurrent.futures.ProcessPoolExecutor`, started with ``spawn`` so that a worker
inherits no event loop, database connection or socket of the bot), at most ``AI_CONCURRENCY``
at once.

Decisions wait in a :class:`FairQueue`: one line per game, served in turn. A game whose
built-in players make many decisions in a row (a burst of steps, two bot seats) then cannot
hold every process while another game waits for its single decision.

What a decision is computed from travels with it (:class:`Decision`: the game id, a state
snapshot, the role, the seed, the level), so a worker needs nothing but the engine, and the
same decision gives the same action wherever and whenever it is computed.

A worker dies with the bot (:func:`_die_with_parent`): when the bot's process is killed
outright (``kill -9``, the kernel's out-of-memory killer), its workers would otherwise live on,
idle, some 50 MB each, until a supervisor that restarts only the bot had filled the machine
with them.

This module imports only the engine (a spawned worker imports it first).
"""

from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import signal
import sys
from collections import OrderedDict, deque
from collections.abc import Hashable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from engine.ai import LEVELS, budget, choose
from engine.api import Action, State

__all__ = ["LEVELS", "Decision", "FairQueue", "InlineThinker", "Thinker", "Thinking", "think"]

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


@dataclass(frozen=True)
class Decision:
    """One decision of the built-in player: everything that fixes its action.

    ``seed`` comes from the game's seed, the version and the role (``_bot_seed``), so the same
    game at the same version gives the same action, whichever process computes it."""

    game_pk: int
    game_id: str
    version: int
    state: State
    role: str
    seed: int
    level: str


PR_SET_PDEATHSIG = 1
"""prctl(2): the signal a process gets when the thread that started it ends."""


def _die_with_parent(parent: int) -> None:
    """A worker's first act: ask Linux to kill it when the bot's process ends (the pool
    starts its workers from the event loop's thread, which lasts as long as the process),
    and end at once if the bot is already gone. Elsewhere a worker still ends when the
    bot closes its pool (:meth:`Thinker.close`)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)


def iterations_for(game_id: str, level: str, cap: int | None) -> int | None:
    """The iteration count a decision runs with: the level's own, or ``cap`` if that is fewer
    (None: the level's own budget, unchanged)."""
    if cap is None or level == "easy":
        return None
    return min(budget(game_id, level).iterations, cap)


def think(game_id: str, state: State, role: str, seed: int, level: str, cap: int | None = None) -> Action:
    """The decision itself (what a worker process runs): :func:`engine.ai.choose` at ``level``,
    its iterations capped at ``cap`` when given."""
    return choose(game_id, state, role, seed, level, iterations_for(game_id, level, cap))


class Thinking(Protocol):
    """What :meth:`GameService.play_bots` asks for a search decision."""

    async def decide(self, decision: Decision) -> Action: ...


class InlineThinker:
    """Thinks in the calling process, on the caller's thread: for the terminal table and
    scripts, where nothing else waits for the loop."""

    def __init__(self, cap: int | None = None) -> None:
        self.cap = cap

    async def decide(self, decision: Decision) -> Action:
        return think(decision.game_id, decision.state, decision.role, decision.seed, decision.level, self.cap)


class FairQueue(Generic[K, T]):
    """Items in one line per key, served round-robin: the next item comes from the key after
    the one served last, so a key with many items waiting takes one turn in each round, like a
    key with one. A key that runs out leaves the round and joins at its end when it has an
    item again."""

    def __init__(self) -> None:
        self._lines: OrderedDict[K, deque[T]] = OrderedDict()

    def put(self, key: K, item: T) -> None:
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = deque()
        line.append(item)

    def get(self) -> tuple[K, T]:
        """The next item and its key; IndexError when empty."""
        if not self._lines:
            raise IndexError("the queue is empty")
        key, line = next(iter(self._lines.items()))
        item = line.popleft()
        if line:
            self._lines.move_to_end(key)
        else:
            del self._lines[key]
        return key, item

    def __len__(self) -> int:
        return sum(len(line) for line in self._lines.values())

    def keys(self) -> list[K]:
        """The keys waiting, in the order they will be served."""
        return list(self._lines)


@dataclass
class _Job:
    decision: Decision
    future: asyncio.Future[Action]


class Thinker:
    """Search decisions in a pool of ``concurrency`` processes, queued fairly per game.

    ``cap`` caps every decision's iterations (``AI_ITERATION_CAP``: tests, slow machines). The
    pool starts at the first decision and stops with :meth:`close`. ``easy`` decisions never
    come here: they take microseconds and are made in the service's transaction.
    """

    def __init__(self, concurrency: int, cap: int | None = None, *, executor: Executor | None = None) -> None:
        if concurrency < 1:
            raise ValueError("the built-in player needs at least one process to think in")
        self.concurrency = concurrency
        self.cap = cap
        self._executor = executor
        self._own_executor = executor is None
        self._queue: FairQueue[int, _Job] = FairQueue()
        self._running = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self.thinking: dict[int, int] = {}
        """Decisions being computed now, per game (what a test or a status line may look at)."""
        self.served: list[int] = []
        """The games of the decisions started, in order (the last thousand)."""

    @property
    def busy(self) -> int:
        """Decisions being computed now, all games together."""
        return self._running

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(max_workers=self.concurrency,
                                                 mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_die_with_parent, initargs=(os.getpid(),))
        return self._executor

    async def decide(self, decision: Decision) -> Action:
        """The action of ``decision``, once a process was free for it and computed it."""
        if self._closed:
            raise RuntimeError("the built-in player's pool is closed")
        future: asyncio.Future[Action] = asyncio.get_running_loop().create_future()
        self._queue.put(decision.game_pk, _Job(decision, future))
        self._dispatch()
        return await future

    def _dispatch(self) -> None:
        while self._running < self.concurrency and len(self._queue):
            game_pk, job = self._queue.get()
            if job.future.done():  # the one waiting for it gave up (cancelled)
                continue
            self._running += 1
            self.thinking[game_pk] = self.thinking.get(game_pk, 0) + 1
            self.served.append(game_pk)
            del self.served[:-1000]
            task = asyncio.create_task(self._run(job), name=f"think-{game_pk}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, job: _Job) -> None:
        d = job.decision
        try:
            loop = asyncio.get_running_loop()
            action = await loop.run_in_executor(self._pool(), think, d.game_id, d.state, d.role, d.seed, d.level,
                                                self.cap)
        except BrokenProcessPool as exc:
            # A worker died (killed, out of memory): start a new pool for the next decisions.
            self._reset_pool()
            if not job.future.done():
                job.future.set_exception(exc)
        except BaseException as exc:
            if not job.future.done():
                if isinstance(exc, asyncio.CancelledError):
                    job.future.cancel()
                else:
                    job.future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
        else:
            if not job.future.done():
                job.future.set_result(action)
        finally:
            self._running -= 1
            left = self.thinking.get(d.game_pk, 1) - 1
            if left:
                self.thinking[d.game_pk] = left
            else:
                self.thinking.pop(d.game_pk, None)
            if not self._closed:
                self._dispatch()

    def _reset_pool(self) -> None:
        if self._own_executor and self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def close(self) -> None:
        """Refuse new decisions, drop the waiting ones and stop the processes. A decision being
        computed is abandoned, its process stopped rather than waited for (a search may take
        seconds): its game is picked up again at the next start, and makes the same decision."""
        self._closed = True
        while len(self._queue):
            _, job = self._queue.get()
            job.future.cancel()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
        if self._own_executor and self._executor is not None:
            executor, self._executor = self._executor, None
            # ProcessPoolExecutor has no public way to stop a busy worker before Python 3.14
            # (terminate_workers); its table of processes is the one handle there is.
            workers = list((getattr(executor, "_processes", None) or {}).values())
            executor.shutdown(wait=False, cancel_futures=True)
            for process in workers:
                if process.is_alive():
                    process.terminate()
