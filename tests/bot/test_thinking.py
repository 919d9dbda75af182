"""The built-in player's levels on the service side: the fair queue, the process pool, where a
level is kept, and decisions made outside the transaction (bot/thinking.py, bot/service/play.py)."""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import engine
from bot.service import GameService, NotAllowed, ServiceError, _bot_seed
from bot.service.levels import level_of
from bot.thinking import Decision, FairQueue, Thinker, iterations_for, think
from engine.ai import budget, choose
from engine.api import Action

ANN = 101


# ----------------------------------------------------------------------------- the fair queue


def test_the_queue_serves_games_in_turn_not_in_order_of_arrival() -> None:
    queue: FairQueue[int, str] = FairQueue()
    for item in ("a1", "a2", "a3"):
        queue.put(1, item)  # game 1: a burst of three decisions
    queue.put(2, "b1")
    queue.put(3, "c1")
    queue.put(3, "c2")
    served = [queue.get() for _ in range(len(queue))]
    assert served == [(1, "a1"), (2, "b1"), (3, "c1"), (1, "a2"), (3, "c2"), (1, "a3")]
    with pytest.raises(IndexError):
        queue.get()


def test_a_game_that_ran_out_joins_the_round_at_its_end() -> None:
    queue: FairQueue[int, str] = FairQueue()
    queue.put(1, "a1")
    queue.put(2, "b1")
    queue.put(2, "b2")
    assert queue.get() == (1, "a1")
    queue.put(1, "a2")  # game 1 left the round when it ran out: it comes after game 2 now
    assert queue.keys() == [2, 1]
    assert [queue.get() for _ in range(3)] == [(2, "b1"), (1, "a2"), (2, "b2")]


def _decision(game_pk: int, version: int, level: str = "easy") -> Decision:
    module = engine.get("navas")
    seed = 5 + version
    state = module.setup(seed, {})
    role = module.active(state)[0]
    return Decision(game_pk=game_pk, game_id="navas", version=version, state=state, role=role,
                    seed=_bot_seed(seed, version, role), level=level)


async def test_the_thinker_starts_decisions_round_robin_per_game() -> None:
    """One process's worth of room: game 1's burst of three does not go before game 2's one."""
    with ThreadPoolExecutor(1) as pool:
        thinker = Thinker(1, executor=pool)
        burst = [asyncio.create_task(thinker.decide(_decision(1, v))) for v in range(3)]
        await asyncio.sleep(0)
        other = asyncio.create_task(thinker.decide(_decision(2, 0)))
        await asyncio.gather(*burst, other)
        await thinker.close()
    # The first of game 1 was under way before game 2 asked; then the games alternate.
    assert thinker.served == [1, 1, 2, 1]


async def test_a_decision_in_the_pool_is_the_one_made_here() -> None:
    """Spawned worker processes give the action engine.ai.choose gives in this process, for a
    search level with its iterations capped, and for easy."""
    thinker = Thinker(2, cap=3)
    try:
        for level in ("hard", "easy"):
            d = _decision(7, 4, level)
            pooled = await thinker.decide(d)
            here = choose(d.game_id, d.state, d.role, d.seed, level, iterations_for(d.game_id, level, 3))
            assert pooled == here
        assert thinker.busy == 0 and thinker.thinking == {}
    finally:
        await thinker.close()
    with pytest.raises(RuntimeError, match="closed"):
        await thinker.decide(_decision(7, 4))


BOT_WITH_A_POOL = """
import asyncio, os, sys
sys.path.insert(0, os.getcwd())
from tests.bot.test_thinking import _decision
from bot.thinking import Thinker

async def main():
    thinker = Thinker(2, cap=1)
    await thinker.decide(_decision(7, 4, "normal"))
    print(" ".join(str(pid) for pid in thinker._pool()._processes), flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped by its new parent, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)")
def test_the_pools_workers_die_with_a_killed_bot() -> None:
    """The bot's process killed outright (SIGKILL: nothing of it runs to close its pool)
    leaves no worker of its pool behind."""
    import signal
    import subprocess
    import sys
    import time

    bot = subprocess.Popen([sys.executable, "-c", BOT_WITH_A_POOL], stdout=subprocess.PIPE, text=True,
                           cwd=Path(__file__).resolve().parents[2])
    try:
        assert bot.stdout is not None
        workers = [int(pid) for pid in bot.stdout.readline().split()]
        assert workers and all(_alive(pid) for pid in workers)
    finally:
        bot.send_signal(signal.SIGKILL)
        bot.wait()
    deadline = time.monotonic() + 20
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:  # (so that a failure leaves nothing running either)
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"workers {left} outlived the bot"


def test_the_iteration_cap_only_lowers_a_budget() -> None:
    hard = budget("navas", "hard").iterations
    assert iterations_for("navas", "hard", None) is None
    assert iterations_for("navas", "hard", 2) == 2
    assert iterations_for("navas", "hard", hard + 100) == hard
    assert iterations_for("navas", "easy", 2) is None


# ----------------------------------------------------------------------------- the service


class Recording:
    """A thinker that remembers what it was asked (and thinks here, capped)."""

    def __init__(self, during: object = None) -> None:
        self.asked: list[Decision] = []
        self.during = during

    async def decide(self, decision: Decision) -> Action:
        self.asked.append(decision)
        if self.during is not None:
            hook, self.during = self.during, None
            await hook()  # type: ignore[operator]
        return think(decision.game_id, decision.state, decision.role, decision.seed, decision.level, 2)


async def _vs_bot(service: GameService, level: str, seed: int = 11) -> int:
    info = await service.create_game("toy", {}, seed=seed)
    await service.join(info.id, ANN, "Ann", "blue")
    await service.join(info.id, None, "built-in player", "red", is_bot=True)
    await service.set_levels(info.id, {"red": level, "blue": level})
    await service.start(info.id)
    return info.id


async def test_a_search_level_thinks_outside_and_each_move_is_its_decision(service: GameService) -> None:
    pk = await _vs_bot(service, "hard")
    recording = Recording()
    committed: list[int] = []
    steps = await service.play_bots(pk, thinker=recording, on_commit=lambda s: committed.extend(x.version for x in s))
    assert steps and all(s.role == "red" for s in steps)
    assert [d.version for d in recording.asked] == [s.version - 1 for s in steps]
    assert committed == [s.version for s in steps], "each searched move is committed (and told) on its own"
    info = await service.game(pk)
    moves = await service.moves(pk)
    for decision, move in zip(recording.asked, moves, strict=True):
        assert decision.level == "hard" and decision.seed == _bot_seed(info.seed, decision.version, "red")
        assert move["action"] == engine.api.strip_label(
            choose("toy", decision.state, "red", decision.seed, "hard", 2))


async def test_a_decision_for_a_version_that_passed_is_made_again(service: GameService) -> None:
    """While red's built-in player thinks, a person takes the seat over, moves, and hands it
    back: the decision made for the old version is dropped, and red thinks again."""
    pk = await _vs_bot(service, "normal")
    v0, state0 = await service.state(pk)

    async def meanwhile() -> None:
        await service.substitute(pk, "red", 555, "Eve")
        await service.apply(pk, "red", {"type": "add", "n": 1}, v0, 555)
        await service.hand_over(pk, "red", "Eve left")

    recording = Recording(meanwhile)
    steps = await service.play_bots(pk, max_steps=1, thinker=recording)
    assert [d.version for d in recording.asked] == [v0, v0 + 1]
    assert len(steps) == 1 and steps[0].version == v0 + 2
    moves = await service.moves(pk)
    assert [m["user_id"] for m in moves] == [555, None]
    assert moves[1]["action"] == engine.api.strip_label(think("toy", recording.asked[1].state, "red",
                                                              recording.asked[1].seed, "normal", 2))


async def test_easy_seats_still_move_in_batches(service: GameService) -> None:
    info = await service.create_game("toy", {}, seed=4)
    await service.start(info.id, fill_with_bots=True)
    commits: list[int] = []
    steps = await service.play_bots(info.id, batch=5, thinker=Recording(),
                                    on_commit=lambda s: commits.append(len(s)))
    assert (await service.game(info.id)).status == "finished" and len(steps) > 10
    assert sum(commits) == len(steps) and commits[:-1] == [5] * (len(commits) - 1) and commits[-1] <= 5, \
        "easy moves share transactions, five at a time"


async def test_levels_are_kept_with_the_seats_and_a_later_seat_takes_the_games(service: GameService,
                                                                                db_path: Path) -> None:
    info = await service.create_game("toy", {}, seed=3)
    await service.join(info.id, ANN, "Ann", "blue")
    await service.set_levels(info.id, {"blue": "hard"})
    await service.start(info.id, fill_with_bots=True)  # red: filled after the level was chosen
    from bot.settings import sqlite_url

    again = GameService.open(sqlite_url(db_path))  # another process, after a restart
    try:
        read = await again.game(info.id)
        assert level_of(read) == "hard" and level_of(read, "red") == "hard" and level_of(read, "blue") == "hard"
        blue = read.seat("blue")
        assert blue is not None and blue.prefs == {"level": "hard"}
    finally:
        await again.close()
    recording = Recording()
    await service.play_bots(info.id, max_steps=1, thinker=recording)
    assert recording.asked[0].level == "hard"
    with pytest.raises(ServiceError, match="levels are easy, normal, hard"):
        await service.set_levels(info.id, {"red": "expert"})


async def test_a_game_without_levels_is_played_at_easy(service: GameService) -> None:
    info = await service.create_game("toy", {}, seed=3)
    await service.start(info.id, fill_with_bots=True)
    assert level_of(await service.game(info.id), "red") == "easy"
    recording = Recording()
    assert await service.play_bots(info.id, max_steps=3, thinker=recording)
    assert recording.asked == [], "easy never leaves the transaction"


async def test_hand_over_gives_the_seat_to_the_built_in_player_at_the_games_level(service: GameService) -> None:
    info = await service.create_game("toy", {}, seed=9, channel_id=900)
    await service.join(info.id, ANN, "Ann", "red")
    await service.join(info.id, None, "built-in player", "blue", is_bot=True)
    await service.set_levels(info.id, {"blue": "normal"})
    await service.start(info.id)
    handed = await service.hand_over(info.id, "red", "red let the deadline pass")
    seat = handed.seat("red")
    assert seat is not None and seat.is_bot and seat.user_id is None and level_of(handed, "red") == "normal"
    rows = await service.outbox(info.id)
    assert any("the built-in player (normal) takes the red seat" in " ".join(r.payload.get("lines") or [])
               for r in rows)
    assert any(r.kind == "dm" and r.recipient == str(ANN) and "plays the red seat" in r.payload.get("text", "")
               for r in rows)
    with pytest.raises(NotAllowed, match="already holds"):
        await service.hand_over(info.id, "red", "again")
    recording = Recording()
    steps = await service.play_bots(info.id, max_steps=2, thinker=recording)
    assert steps and {d.level for d in recording.asked} == {"normal"}


async def test_a_resigned_seat_is_played_at_the_games_level(service: GameService) -> None:
    """Three seats: a resignation hands the seat to the built-in player, which plays it at the
    level the game was opened with."""
    info = await service.create_game("granada_city", {"players": 3}, seed=2)
    for n, role in enumerate(info.roles):
        await service.join(info.id, ANN + n, f"p{n}", role)
    await service.set_levels(info.id, {info.roles[0]: "normal"})  # the creator's seat, as /game new does
    await service.start(info.id)
    gone = info.roles[1]
    after = await service.resign(info.id, gone, ANN + 1)
    seat = after.seat(gone)
    assert seat is not None and seat.is_bot and level_of(after, gone) == "normal"


def test_the_thinking_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    from bot.settings import Settings

    monkeypatch.chdir(tmp_path)
    for name in ("AI_CONCURRENCY", "AI_ITERATION_CAP"):
        monkeypatch.delenv(name, raising=False)
    s = Settings()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    assert s.ai_concurrency == max(1, cores - 1) and s.ai_iteration_cap is None
    monkeypatch.setenv("AI_CONCURRENCY", "3")
    monkeypatch.setenv("AI_ITERATION_CAP", "40")
    s = Settings()
    assert s.ai_concurrency == 3 and s.ai_iteration_cap == 40
    monkeypatch.setenv("AI_CONCURRENCY", "0")
    with pytest.raises(ValueError, match="ai_concurrency"):
        Settings()


def test_discord_offers_every_level_and_nothing_else() -> None:
    from bot.discord import present
    from engine.ai import LEVELS

    assert tuple(present.LEVELS) == LEVELS
