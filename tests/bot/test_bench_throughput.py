"""``throughput.steps_per_s`` plays all its games in turns (benchmarks/service.py): on SQLite
nothing in a step waits, and the figure once played about 20 of its 200 games, each alone
for hundreds of steps. No timing is asserted: only which games the figure played."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from benchmarks.common import Bench, Plan
from benchmarks.service import throughput
from bot.service import GameService
from bot.settings import sqlite_url
from tests.bot.test_service import ANN, BOB


async def test_the_throughput_figure_steps_every_game(db_path: Path, tmp_path: Path) -> None:
    service = GameService.open(sqlite_url(db_path))
    games: list[int] = []
    seats: dict[tuple[int, str], int] = {}
    try:
        for seed in range(20):
            info = await service.create_game("toy", {"target": 20}, seed=seed, created_by=ANN)
            await service.join(info.id, ANN, "Ann", role="red")
            await service.join(info.id, BOB, "Bob", role="blue")
            await service.start(info.id)
            games.append(info.id)
            seats[(info.id, "red")], seats[(info.id, "blue")] = ANN, BOB
    finally:
        await service.close()
    lines: list[dict[str, Any]] = []
    plan = dataclasses.replace(Plan.make(True), throughput_s=0.5)
    await throughput(Bench(plan, tmp_path, lines.append), db_path, "toy", games, seats)
    (figure,) = lines
    assert figure["name"] == "throughput.steps_per_s" and figure["games"] == 20
    assert figure["games_stepped"] == 20, figure
    assert figure["total_steps"] >= 20
