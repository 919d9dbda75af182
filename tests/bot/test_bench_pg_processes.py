"""``alcazaba bench --processes N[,N...]`` (issue 33): the PostgreSQL figure for each process
count and number of games a process plays, each beside its floor, with the CPU a step costs
the player processes and the server. Runs the command itself, with small counts, on the
server of ALCAZABA_TEST_PG_URL (the benchmark makes and drops a database of its own there).
No timing is asserted: the figures' shape only."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from benchmarks.postgres import counts_option, default_process_counts
from bot import cli

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

CPU_KEYS = ("client_cpu_ms_per_step", "server_cpu_ms_per_step", "cpu_ms_per_step")


def _lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def test_every_process_count_is_measured_beside_its_floor(capsys: pytest.CaptureFixture[str]) -> None:
    if not os.environ.get("ALCAZABA_TEST_PG_URL"):
        pytest.skip("ALCAZABA_TEST_PG_URL is not set")
    status = cli.main(["bench", "--quick", "--only", "throughput.pg", "--processes", "2,1",
                       "--games-per-process", "3"])
    out = capsys.readouterr().out
    assert status == 0, out
    lines = _lines(out)
    sets = [line for line in lines if line["name"] == "throughput.pg_processes"]
    assert [(s["processes"], s["games_per_process"]) for s in sets] == [(1, 3), (2, 3)], lines
    for line in sets:
        assert line["unit"] == "steps/s" and line["games"] == line["processes"] * line["games_per_process"]
        assert line["n"] >= 1 and line["total_steps"] > 0 and _positive(line["median"]), line
        assert len(line["client_cpu_ms_per_step_each"]) == line["processes"], line
        floor = line["floor"]
        assert floor["total_steps"] > 0 and line["baseline"] == floor["median"], line
        for part in (line, floor):
            # the server runs on this machine (.ci/postgres.sh): its CPU is read, not left out
            assert all(_positive(part[key]) for key in CPU_KEYS), part
            assert part["cpu_ms_per_step"] == pytest.approx(
                part["client_cpu_ms_per_step"] + part["server_cpu_ms_per_step"], rel=0.01, abs=0.002)
        assert line["cpu_vs_floor"] == pytest.approx(line["cpu_ms_per_step"] / floor["cpu_ms_per_step"], rel=0.01)
        assert line["meets_target"] == (line["cpu_ms_per_step"] <= 1.5 * floor["cpu_ms_per_step"])
    # two processes keep the names they had before the count was variable
    two = [line["name"] for line in lines if line["name"] in
           ("throughput.pg_two_processes", "throughput.pg_floor_two_processes")]
    assert two == ["throughput.pg_two_processes", "throughput.pg_floor_two_processes"], lines


def test_the_process_counts_grow_to_the_machine() -> None:
    assert default_process_counts(1) == [1, 2]
    assert default_process_counts(2) == [1, 2]
    assert default_process_counts(6) == [1, 2, 4, 6]
    assert default_process_counts(16) == [1, 2, 4, 8, 16]
    assert counts_option("4, 1,2,2") == [1, 2, 4]
    for bad in ("0", "two", ""):
        with pytest.raises(Exception, match="count"):
            counts_option(bad)
