"""``alcazaba bench --ai``: the search against the easy player, figures as JSON lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import ai_sets
from bot import cli


def test_wilson_interval_matches_hand_computed_values() -> None:
    # worked by hand from Wilson's formula (z = 1.96): 8 in 10 gives 0.4902 to 0.9433, 0 in 10 gives
    # 0 to z²/(n + z²) = 0.2775
    low, high = ai_sets.wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    low, high = ai_sets.wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    assert ai_sets.wilson(0, 0) == (0.0, 1.0)


def test_ai_game_plays_to_the_end_with_the_search_in_its_seat() -> None:
    game = ai_sets.ai_game(("navas", "normal", 2, "muslim", 2))
    assert game["finished"] and game["winner"] in ("christian", "muslim")
    assert game["ai_role"] == "muslim"
    assert game["think"], "the search never had a real choice"
    again = ai_sets.ai_game(("navas", "normal", 2, "muslim", 2))
    assert (again["winner"], again["steps"]) == (game["winner"], game["steps"])


def test_bench_ai_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["bench", "--ai", "--game", "navas", "--level", "normal", "--games", "1",
                       "--iterations", "2", "--workers", "1"])
    assert status == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    by_name = {line["name"]: line for line in lines}
    rate = by_name["ai.winrate.navas.normal"]
    assert rate["games"] == 2
    assert rate["by_side"] == {"christian": {"wins": rate["by_side"]["christian"]["wins"], "games": 1},
                               "muslim": {"wins": rate["by_side"]["muslim"]["wins"], "games": 1}}
    assert rate["wins"] == sum(side["wins"] for side in rate["by_side"].values())
    low, high = rate["ci95"]
    assert 0.0 <= low <= rate["rate"] <= high <= 1.0
    assert rate["target"] == ">= 0.8"
    think = by_name["ai.think_s.navas.normal"]
    assert think["unit"] == "s" and think["n"] > 0 and think["median"] <= think["p95"]


def test_bench_ai_refuses_an_unknown_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "--ai", "--game", "chess", "--games", "1"]) == 2
    assert "unknown game" in capsys.readouterr().err


def test_think_time_is_judged_against_the_level_budget() -> None:
    """Issue 15: the median within the budget and the p95 at most 1.5 times it."""
    cpu = [0.1] * 20
    within = ai_sets.think_budget([0.4] * 18 + [0.7, 0.74], cpu, 0.5)
    assert within["meets_target"] and within["budget_s"] == 0.5
    assert within["target"] == "median <= 0.5 s, p95 <= 0.75 s"
    slow_tail = ai_sets.think_budget([0.4] * 18 + [0.8, 0.9], cpu, 0.5)
    assert not slow_tail["meets_target"]
    slow = ai_sets.think_budget([0.6] * 20, cpu, 0.5)
    assert not slow["meets_target"]
    assert "meets_target" not in ai_sets.think_budget([9.0], [9.0], None), "no budget: no verdict"
    assert ai_sets.think_budget([1.0, 3.0], [0.2, 0.4], 2.0)["cpu_median"] == 0.3


def _winrate(out: str, name: str) -> dict[str, Any]:
    lines = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    return next(line for line in lines if line["name"] == name)


def test_a_ledger_run_goes_on_where_it_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run that stops (here: at once, --stop-after 0, before any game) keeps what it
    finished; the next run on the same code plays only the rest, and its figure covers the
    whole set, as one uninterrupted run's does."""
    ledger = tmp_path / "ai.jsonl"
    args = ["bench", "--ai", "--game", "navas", "--level", "normal", "--games", "2", "--iterations", "2",
            "--workers", "1", "--ledger", str(ledger)]
    assert cli.main([*args, "--stop-after", "0"]) == 0
    out = capsys.readouterr()
    assert "ai.winrate.navas.normal" in out.out and "no game finished" in out.out
    assert not ledger.exists() or ledger.read_text() == ""

    assert cli.main([*args[:-2], "--ledger", str(ledger), "--games", "1"]) == 0  # one game a side
    first = _winrate(capsys.readouterr().out, "ai.winrate.navas.normal")
    assert (first["games"], first["from_ledger"], first["complete"]) == (2, 0, True)
    assert len(ledger.read_text().splitlines()) == 2

    assert cli.main(args) == 0  # two a side: the two held are not played again
    out = capsys.readouterr()
    resumed = _winrate(out.out, "ai.winrate.navas.normal")
    assert (resumed["games"], resumed["from_ledger"], resumed["complete"], resumed["set"]) == (4, 2, True, 4)
    assert out.err.count("bench --ai: navas normal ") == 2, out.err  # games played, not the speed probe
    held = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert sorted((g["seed"], g["ai_role"]) for g in held) == [(1, "christian"), (1, "muslim"),
                                                                (2, "christian"), (2, "muslim")]

    assert cli.main([*args[:-4], "--workers", "1"]) == 0  # the same set without a ledger
    alone = _winrate(capsys.readouterr().out, "ai.winrate.navas.normal")
    assert (alone["wins"], alone["by_side"]) == (resumed["wins"], resumed["by_side"])


def test_a_set_played_on_other_code_is_reported_with_its_code(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``--code``: a set whose code has changed since it was played is reported from the ledger
    under the code that played it, and nothing is played for it (this code cannot play another
    code's games); without ``--code`` the same ledger holds none of the current code's."""
    ledger = tmp_path / "ai.jsonl"
    old = "0123456789abcdef"
    games = [{"game": "navas", "level": "normal", "iterations": None, "code": old, "seed": seed, "ai_role": role,
              "think": [0.25, 0.5], "cpu": [0.2, 0.4], "winners": [winner], "winner": winner, "finished": True,
              "steps": 90, "speed": 1.0}
             for seed, role, winner in [(1, "christian", "christian"), (1, "muslim", "christian")]]
    ledger.write_text("".join(json.dumps(g) + "\n" for g in games))
    args = ["bench", "--ai", "--game", "navas", "--level", "normal", "--games", "2", "--workers", "1",
            "--ledger", str(ledger)]
    assert cli.main([*args, "--code", old]) == 0
    out = capsys.readouterr()
    rate = _winrate(out.out, "ai.winrate.navas.normal")
    assert (rate["games"], rate["wins"], rate["from_ledger"], rate["complete"], rate["set"]) == (2, 1, 2, False, 4)
    assert rate["code"] == old and rate["current_code"] == ai_sets.ai_code("navas")
    assert "bench --ai: navas normal " not in out.err, "no game played"
    assert len(ledger.read_text().splitlines()) == 2

    assert cli.main([*args, "--stop-after", "0"]) == 0  # the current code's set: none of these games
    assert "no game finished" in capsys.readouterr().out
    assert cli.main(["bench", "--ai", "--game", "navas", "--level", "normal", "--code", old]) == 2
    assert "--ledger" in capsys.readouterr().err


def test_a_ledger_does_not_count_games_of_other_code(tmp_path: Path) -> None:
    ledger = ai_sets.Ledger(tmp_path / "ai.jsonl")
    key = {"game": "navas", "level": "normal", "iterations": None, "code": ai_sets.ai_code("navas")}
    game = {"seed": 1, "ai_role": "muslim", "think": [0.123456], "cpu": [0.1], "winners": ["muslim"]}
    ledger.add(key, game)
    ledger.add(dict(key, code="0" * 16), dict(game, seed=2))
    with ledger.path.open("a") as torn:
        torn.write('{"seed": 3, "ai_ro')
    assert list(ledger.games(key)) == [(1, "muslim")]
    assert ledger.games(key)[(1, "muslim")]["think"] == [0.1235]
    assert ai_sets.ai_code("navas") != ai_sets.ai_code("granada")


def test_a_games_fingerprint_covers_the_search_and_its_own_adapter_only() -> None:
    """A change to Granada's adapter does not void the 1212 games a ledger holds (nor the
    reverse), and a change to the search itself voids both."""
    names = {game: {f.name for f in ai_sets.search_files(game)} for game in ("navas", "granada", "sabika")}
    for game, files in names.items():
        assert {"search.py", "adapters.py", "__init__.py", "registry.py"} <= files, game
    assert "navas.py" in names["navas"] and "granada.py" not in names["navas"]
    assert "granada.py" in names["granada"] and "navas.py" not in names["granada"]
    assert not {"navas.py", "granada.py"} & names["sabika"]


def test_a_replay_stops_after_the_decisions_asked() -> None:
    """The speed probe replays only the first decisions of a game, the same ones: a game
    replayed with ``decisions`` is the start of the whole game."""
    whole = ai_sets.ai_game(("navas", "normal", 2, "muslim", 2))
    start = ai_sets.ai_game(("navas", "normal", 2, "muslim", 2), decisions=3)
    assert len(start["think"]) == len(start["cpu"]) == 3 < len(whole["think"])
    assert not start["finished"] and start["steps"] < whole["steps"]


def test_the_speed_of_a_machine_is_measured_against_the_sets_first_game() -> None:
    base = dict(ai_sets.ai_game(("navas", "normal", 1, "christian", 2)), iterations=2)
    speed = ai_sets.machine_speed(base)
    assert 0.0 < speed < float("inf")
    assert ai_sets.machine_speed(dict(base, cpu=[])) == 1.0, "nothing to compare: the set's own machine"


def test_think_time_is_given_for_each_machine_that_played_the_set() -> None:
    """Lines without a speed were played on the set's first machine; runs of one machine
    measure it some percent apart and count as one (here 1.94 and 2.11)."""
    games: list[dict[str, Any]] = [
        {"think": [1.0, 2.0], "cpu": [1.0, 2.0]},
        {"think": [3.0], "cpu": [3.0], "speed": 1.04},
        {"think": [3.5, 3.7, 3.9], "cpu": [3.4, 3.6, 3.8], "speed": 1.94},
        {"think": [4.0], "cpu": [4.1], "speed": 2.11},
    ]
    rows = ai_sets.by_machine(games, 2.0)
    assert [(r["speed"], r["games"], r["n"]) for r in rows] == [(1.02, 2, 3), (2.02, 2, 4)]
    assert (rows[0]["median"], rows[0]["p95"], rows[0]["meets_target"]) == (2.0, 3.0, True)
    # 3.5, 3.7, 3.9, 4.0: median 3.8; CPU 3.4, 3.6, 3.8, 4.1: median 3.7
    assert (rows[1]["median"], rows[1]["cpu_median"], rows[1]["meets_target"]) == (3.8, 3.7, False)


def test_a_resumed_run_records_its_machine_and_reports_each(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    ledger = tmp_path / "ai.jsonl"
    args = ["bench", "--ai", "--game", "navas", "--level", "normal", "--iterations", "2", "--workers", "1",
            "--ledger", str(ledger)]
    assert cli.main([*args, "--games", "1"]) == 0
    assert "this machine takes" not in capsys.readouterr().err, "the set's first run is its own yardstick"
    first = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert [g["speed"] for g in first] == [1.0, 1.0]
    assert cli.main([*args, "--games", "2", "--stop-after", "0"]) == 0
    assert "this machine takes" not in capsys.readouterr().err, "a report that plays nothing measures nothing"

    # the first games as a machine five times faster would have written them: the run's own
    # report must group its new games by the speed it measured, as its ledger lines do
    ledger.write_text("".join(json.dumps(dict(g, speed=0.2)) + "\n" for g in first))
    assert cli.main([*args, "--games", "2"]) == 0
    out = capsys.readouterr()
    assert "navas normal: this machine takes" in out.err
    held = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert len(held) == 4 and held[2]["speed"] == held[3]["speed"] > 0
    assert cli.main([*args, "--games", "2", "--stop-after", "0"]) == 0
    reported = _winrate(capsys.readouterr().out, "ai.think_s.navas.normal")
    def groups(think: dict[str, Any]) -> list[tuple[float, int, int]]:
        return [(m["speed"], m["games"], m["n"]) for m in think.get("machines", [])]
    assert groups(_winrate(out.out, "ai.think_s.navas.normal")) == groups(reported)

    # a line as a much slower machine would have written it: the report gives each machine
    rewritten = [dict(g, speed=3.0) if g["seed"] == 2 else g for g in held]
    ledger.write_text("".join(json.dumps(g) + "\n" for g in rewritten))
    assert cli.main([*args, "--games", "2", "--stop-after", "0"]) == 0
    think = _winrate(capsys.readouterr().out, "ai.think_s.navas.normal")
    assert [m["games"] for m in think["machines"]] == [2, 2] and think["machines"][1]["speed"] == 3.0
    assert sum(m["n"] for m in think["machines"]) == think["n"]
