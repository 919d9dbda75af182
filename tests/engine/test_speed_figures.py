"""``alcazaba bench``'s issue-15 figures (benchmarks.engine_speed.engine_speed_figures) are produced and
say what they measure; no timing is asserted (the machine is shared)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import engine
from benchmarks import engine_speed
from benchmarks.common import Bench, Plan, play_random


def test_the_late_step_and_playout_figures_are_emitted(tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = []
    run = Bench(Plan.make(quick=True), tmp_path, lines.append)
    run.played["granada"] = [play_random(engine.get("granada"), 1, time_steps=True)]
    engine_speed.engine_speed_figures(run)
    by_name = {line["name"]: line for line in lines}
    late = by_name["engine.step.granada.late"]
    assert late.get("skipped") or (late["n"] == len(run.played["granada"][0].step_ms) - engine_speed.LATE_STEP
                                   and "ratio" in late and "meets_target" in late)
    playouts = by_name["engine.playouts_per_s.granada"]
    assert playouts["unit"] == "playouts/s" and playouts["n"] >= 3
    assert playouts["policy"] == "uniform random legal actions"
    assert playouts["from_step"] == engine_speed.PLAYOUT_FROM_STEP
    assert playouts["cpu_median"] > 0   # the same playouts by CPU time (issue 33: a shared machine)
