"""The ``alcazaba`` command line, run as a real subprocess.

Every game in the engine registry is exercised through the installed ``alcazaba`` script;
the toy engine through ``python -m tests.bot.toy_cli`` (the same ``bot.cli.main`` with the
toy game registered).
"""

from __future__ import annotations

import http.server
import json
import os
import pty
import select
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

import engine
from engine.api import clone

ROOT = Path(__file__).resolve().parents[2]
ALCAZABA = Path(sys.executable).with_name("alcazaba")
REAL_GAMES = sorted(g for g in engine.GAMES if g != "toy")
GAMES = ["toy", *REAL_GAMES]


def command(game: str) -> list[str]:
    if game == "toy":
        return [sys.executable, "-m", "tests.bot.toy_cli"]
    return [str(ALCAZABA)]


def env(tmp_path: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DISCORD_TOKEN", "LOG_LEVEL")}
    return {**base, "DATA_DIR": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1"}


def run(game: str, tmp_path: Path, *args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command(game), *args], cwd=ROOT, env=env(tmp_path), input=stdin, text=True,
                          capture_output=True, timeout=timeout)


@dataclass
class Played:
    """One game of GAME played to its end by ``alcazaba local --autoplay --seed 1``, exported."""

    game: str
    dir: Path
    db: Path
    last_line: str
    export_text: str


@pytest.fixture(scope="module", params=GAMES)
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Played:
    game = str(request.param)
    folder = tmp_path_factory.mktemp(f"cli-{game}")
    db = folder / "a.db"
    done = run(game, folder, "local", game, "--autoplay", "--seed", "1", "--db", str(db))
    assert done.returncode == 0, done.stderr
    exported = run(game, folder, "export", "1", "--db", str(db))
    assert exported.returncode == 0, exported.stderr
    return Played(game, folder, db, done.stdout.strip().splitlines()[-1], exported.stdout)


def test_the_real_games_are_covered() -> None:
    assert ALCAZABA.exists(), "the alcazaba script is installed in the environment"
    if (ROOT / "engine" / "navas" / "__init__.py").exists():
        assert "navas" in REAL_GAMES


def test_autoplay_export_replay_check_import(played: Played) -> None:
    game, folder, db = played.game, played.dir, played.db
    assert played.last_line.startswith("game 1 finished: ")
    result = json.loads(played.last_line.removeprefix("game 1 finished: "))
    assert isinstance(result, dict) and "winner" in result

    data = json.loads(played.export_text)
    assert data["game"] == game and data["seed"] == 1 and data["result"] == result and data["moves"]
    file = folder / "game.json"
    file.write_text(played.export_text)

    checked = run(game, folder, "replay-check", str(file))
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith(f"ok: {len(data['moves'])} moves")
    checked = run(game, folder, "replay-check", "1", "--db", str(db))
    assert checked.returncode == 0, checked.stderr

    imported = run(game, folder, "import", str(file), "--db", str(db))
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "2"
    again = json.loads(run(game, folder, "export", "2", "--db", str(db)).stdout)
    assert again["state_hash"] == data["state_hash"] and again["result"] == result


@pytest.mark.parametrize("played", [g for g in GAMES if g in ("toy", "navas")], indirect=True)
def test_same_seed_same_game(played: Played, tmp_path: Path) -> None:
    """The built-in player's seeds come from the game's: a demo game replays identically.
    (The toy game and the smoke game suffice: the mechanism is the service's, not a game's.)"""
    game = played.game
    done = run(game, tmp_path, "local", game, "--autoplay", "--seed", "1", "--db", str(tmp_path / "two.db"))
    assert done.stdout.strip().splitlines()[-1] == played.last_line
    again = run(game, tmp_path, "export", "1", "--db", str(tmp_path / "two.db"))
    moves = [(m["role"], m["action"]) for m in json.loads(again.stdout)["moves"]]
    assert moves == [(m["role"], m["action"]) for m in json.loads(played.export_text)["moves"]]


def test_tampered_file_fails_naming_the_move(played: Played, tmp_path: Path) -> None:
    game = played.game
    data = json.loads(played.export_text)
    victim = data["moves"][len(data["moves"]) // 2]
    victim["action"] = {"type": "teleport", "where": "Toledo"}
    file = tmp_path / "tampered.json"
    file.write_text(json.dumps(data))
    checked = run(game, tmp_path, "replay-check", str(file))
    assert checked.returncode == 1
    assert f"move {victim['seq']} ({victim['role']}" in checked.stderr and "not legal" in checked.stderr
    db = tmp_path / "t.db"
    imported = run(game, tmp_path, "import", str(file), "--db", str(db))
    assert imported.returncode == 1 and f"move {victim['seq']}" in imported.stderr


def in_process(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``bot.cli.main`` in this process: the same code as the script, without the start-up
    cost, for the cases that stop before any game is played."""
    from bot.cli import main

    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    status, _, err = in_process(["local", "chess", "--db", str(tmp_path / "x.db")], capsys)
    assert status == 2 and "unknown game 'chess'" in err
    status, _, err = in_process(["export", "1", "--db", str(tmp_path / "missing.db")], capsys)
    assert status == 2 and "there is no database" in err
    assert not (tmp_path / "missing.db").exists()
    status, _, err = in_process(["export", "7", "--db", str(tmp_path / "x.db")], capsys)
    assert status == 1 and "There is no game 7." in err
    status, _, err = in_process(["replay-check", str(tmp_path / "nothing.json")], capsys)
    assert status == 2 and "cannot read" in err
    (tmp_path / "broken.json").write_text("{not json")
    status, _, err = in_process(["import", str(tmp_path / "broken.json"), "--db", str(tmp_path / "x.db")], capsys)
    assert status == 1 and "is not JSON" in err
    status, _, err = in_process([], capsys)
    assert status == 2 and "local" in err
    with pytest.raises(SystemExit) as caught:
        in_process(["local"], capsys)
    assert caught.value.code == 2


def test_sync_needs_a_token(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    status, _, err = in_process(["sync"], capsys)
    assert status == 2
    assert "DISCORD_TOKEN is not set" in err or "not available" in err


def test_backup_of_postgresql_explains_pg_dump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = in_process(["backup", str(tmp_path / "b"), "--db", "postgresql+asyncpg://u:secret@h/db"], capsys)
    assert status == 2 and "pg_dump --format=custom" in err and "postgresql://u:***@h/db" in err
    assert "secret" not in err


def test_backup_is_a_consistent_copy(tmp_path: Path) -> None:
    db = tmp_path / "b.db"
    assert run("toy", tmp_path, "local", "toy", "--autoplay", "--seed", "3", "--db", str(db)).returncode == 0
    target = tmp_path / "backups" / "copy.db"
    done = run("toy", tmp_path, "backup", str(target), "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"backup written: {target} (1 games)"
    with sqlite3.connect(target) as conn, sqlite3.connect(db) as live:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        query = "SELECT seq, action, state_hash FROM move ORDER BY seq"
        assert conn.execute(query).fetchall() == live.execute(query).fetchall()
    again = run("toy", tmp_path, "backup", str(target), "--db", str(db))
    assert again.returncode == 2 and "exists" in again.stderr


class Session:
    """A live ``alcazaba local`` process driven through its stdin/stdout."""

    def __init__(self, args: list[str], tmp_path: Path) -> None:
        self.proc = subprocess.Popen(args, cwd=ROOT, env=env(tmp_path), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.output = b""

    def wait_for_prompts(self, count: int, timeout: float = 60) -> str:
        """Read until ``count`` order prompts were printed in all (each prompt = the
        previous order was committed and the table waits)."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while self.output.count(b"> order number") < count:
            left = deadline - time.monotonic()
            assert left > 0, self.output.decode()[-3000:]
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, "the table ended early: " + self.output.decode()[-3000:]
                self.output += chunk
        return self.output.decode()

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()


def test_killed_table_resumes_with_no_move_lost(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    session = Session([*command("toy"), "local", "toy", "--seat", "red", "--seat", "blue", "--seed", "3",
                       "--db", str(db)], tmp_path)
    try:
        session.wait_for_prompts(1)
        for number, answer in enumerate(["1", "2", "5", "2"], start=2):  # add 1, add 2, bank; blue: add 2
            session.send(answer)
            session.wait_for_prompts(number)
        assert "--- Toy race #1 - blue - move 3 ---" in session.output.decode()
    finally:
        session.proc.send_signal(signal.SIGKILL)
        session.proc.wait(timeout=30)
    assert session.proc.returncode == -signal.SIGKILL
    with sqlite3.connect(db) as conn:
        logged = conn.execute("SELECT seq, role, action FROM move ORDER BY seq").fetchall()
    assert logged == [(1, "red", '{"n":1,"type":"add"}'), (2, "red", '{"n":2,"type":"add"}'),
                      (3, "red", '{"type":"bank"}'), (4, "blue", '{"n":2,"type":"add"}')]

    resumed = run("toy", tmp_path, "local", "toy", "--resume", "1", "--db", str(db), stdin="1\n5\nq\n")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.startswith("game 1: Toy race, resumed at move 4")
    assert "--- Toy race #1 - blue - move 4 ---" in resumed.stdout
    assert "Your turn: 2 points pending." in resumed.stdout, "blue's step made before the kill is there"
    assert resumed.stdout.strip().endswith(f" local toy --resume 1 --db {db}")
    checked = run("toy", tmp_path, "replay-check", "1", "--db", str(db))
    assert checked.returncode == 0 and checked.stdout.startswith("ok: 6 moves")


@pytest.mark.parametrize("real_game", [g for g in REAL_GAMES if g == "navas"])
def test_killed_table_resumes_real_game(real_game: str, tmp_path: Path) -> None:
    """Hot-seat Las Navas (the smoke game), always choosing order 1; kill it; every step made
    is there. (Other games: the toy game's test above covers the mechanism.)"""
    db = tmp_path / "k.db"
    session = Session([*command(real_game), "local", real_game, "--seed", "5", "--db", str(db)], tmp_path)
    try:
        session.wait_for_prompts(1)
        for number in range(2, 7):
            session.send("1")
            session.wait_for_prompts(number)
    finally:
        session.proc.send_signal(signal.SIGKILL)
        session.proc.wait(timeout=30)
    with sqlite3.connect(db) as conn:
        logged = conn.execute("SELECT count(*), max(seq) FROM move WHERE kind='step'").fetchone()
    assert logged == (5, 5), "five orders answered, five steps stored, none made by anyone else"
    resumed = run(real_game, tmp_path, "local", real_game, "--resume", "1", "--db", str(db), stdin="1\nq\n")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.startswith("game 1: ") and ", resumed at move 5" in resumed.stdout.splitlines()[0]
    checked = run(real_game, tmp_path, "replay-check", "1", "--db", str(db))
    assert checked.returncode == 0 and checked.stdout.startswith("ok: 6 moves"), checked.stdout + checked.stderr


def run_in_terminal(game: str, tmp_path: Path, *args: str, answers: str, timeout: float = 120,
                    extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command with a pseudo-terminal as its stdin (a person at a keyboard): the answers
    are typed, then Ctrl-D. Its stdout and stderr are pipes, read as usual."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([*command(game), *args], cwd=ROOT, env={**env(tmp_path), **(extra_env or {})},
                                stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        os.close(slave)
        os.write(master, answers.encode() + b"\x04")
        out, err = proc.communicate(timeout=timeout)
    finally:
        os.close(master)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_run_without_token_opens_the_terminal_table(tmp_path: Path) -> None:
    done = run_in_terminal("toy", tmp_path, "run", answers="toy\n\nnone\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("DISCORD_TOKEN is not set: opening the terminal table")
    assert done.stdout.strip().splitlines()[-1].startswith("game 1 finished: ")
    database = tmp_path / "data" / "alcazaba.db"
    with sqlite3.connect(database) as conn:
        assert conn.execute("SELECT game_id, status FROM game").fetchall() == [("toy", "finished")]


def test_run_without_token_asks_again_after_a_typo(tmp_path: Path) -> None:
    done = run_in_terminal("toy", tmp_path, "run", answers="chess\ntoy\ntarget=7\ntarget=5\nemperor\nnone\n")
    assert done.returncode == 0, done.stderr
    assert "There is no game 'chess': choose one of" in done.stdout
    assert "There is no seat 'emperor': the seats are red, blue" in done.stdout
    assert "target is one of 5, 8, 12, 20." in done.stdout
    assert done.stdout.strip().splitlines()[-1].startswith("game 1 finished: ")
    gave_up = run_in_terminal("toy", tmp_path, "run", answers="chess\n")
    assert gave_up.returncode == 0 and "There is no game 'chess'" in gave_up.stdout


def test_run_without_token_asks_the_options_the_game_declares(tmp_path: Path) -> None:
    """``make run``'s menu asks what a game lets vary (its OPTIONS), so a newcomer reaches a
    variant without reading the README: here the toy's race length, then the seats."""
    done = run_in_terminal("toy", tmp_path, "run", answers="toy\ntarget=5\nnone\n")
    assert done.returncode == 0, done.stderr
    assert "Toy race lets these vary:" in done.stdout and "target (5/8/12/20, default 12)" in done.stdout
    with sqlite3.connect(tmp_path / "data" / "alcazaba.db") as conn:
        assert conn.execute("SELECT game_id, options FROM game").fetchall() == [("toy", '{"target":5}')]


@pytest.mark.parametrize(("game_id", "answer", "seats"), [("sabika", "players=1", 1), ("granada_city", "players=6", 6)])
def test_the_terminal_menu_reaches_sabikas_solo_game_and_six_seats_of_granada_city(
        game_id: str, answer: str, seats: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import engine
    from bot import cli

    typed = iter(["players=9", answer])
    monkeypatch.setattr("builtins.input", lambda _question: next(typed))
    game = engine.get(game_id)
    options = cli._ask_options(game)
    assert "players is one of" in capsys.readouterr().out      # a wrong count is asked again
    assert len(game.roles({**game.defaults(), **options})) == seats


def test_run_without_token_and_without_a_terminal_says_what_is_missing(tmp_path: Path) -> None:
    """The Docker image's `alcazaba run` with no -e DISCORD_TOKEN and no -it: stdin is not a
    terminal, so there is nobody to play the terminal table; it must not exit 0 in silence."""
    closed = subprocess.run([str(ALCAZABA), "run"], cwd=ROOT, env=env(tmp_path), stdin=subprocess.DEVNULL,
                            text=True, capture_output=True, timeout=120)
    piped = subprocess.run([str(ALCAZABA), "run"], cwd=ROOT, env=env(tmp_path), input="", text=True,
                           capture_output=True, timeout=120)
    for done in (closed, piped):
        assert done.returncode == 2
        assert "DISCORD_TOKEN is not set and there is no terminal" in done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "data" / "alcazaba.db").exists(), "nothing is created before saying so"


# ------------------------------------------------------------------ set-up problems: one sentence, exit 2


def a_regular_file(tmp_path: Path) -> Path:
    """A path nobody can create a folder under, root included: its parent is a regular file
    (chmod does not stop root; ENOTDIR does)."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where a folder should be\n")
    return blocker


def assert_one_sentence(done: subprocess.CompletedProcess[str], *, names: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    problems = [line for line in done.stderr.splitlines() if line.startswith("alcazaba ")]
    assert len(problems) == 1, done.stderr
    assert names in problems[0], problems[0]
    return problems[0]


@pytest.mark.parametrize("args", [["local", "navas", "--autoplay", "--seed", "1"], ["run"]])
def test_a_data_folder_that_cannot_be_created_is_one_sentence(args: list[str], tmp_path: Path) -> None:
    data = a_regular_file(tmp_path) / "data"
    done = subprocess.run([str(ALCAZABA), *args], cwd=ROOT, text=True, capture_output=True, timeout=120,
                          env={**env(tmp_path), "DATA_DIR": str(data), "DISCORD_TOKEN": "bogus"})
    line = assert_one_sentence(done, names="set DATA_DIR")
    assert str(data) in line


def test_a_database_that_cannot_be_opened_is_one_sentence_even_for_export(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(bytes(range(256)) * 20)
    done = run("navas", tmp_path, "export", "1", "--db", str(garbage))
    line = assert_one_sentence(done, names="set --db")
    assert "file is not a database" in line
    data = tmp_path / "data"
    data.mkdir()
    (data / "alcazaba.db").write_bytes(bytes(range(256)) * 20)
    done = run("navas", tmp_path, "export", "1")
    assert_one_sentence(done, names="set DATA_DIR")
    done = run("navas", tmp_path, "export", "1", "--db", str(tmp_path / "nothing.db"))
    assert_one_sentence(done, names="there is no database at")


def test_the_traceback_is_there_with_log_level_debug(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(bytes(range(256)) * 20)
    done = subprocess.run([str(ALCAZABA), "export", "1", "--db", str(garbage)], cwd=ROOT, text=True,
                          capture_output=True, timeout=120, env={**env(tmp_path), "LOG_LEVEL": "DEBUG"})
    assert done.returncode == 2
    assert "Traceback" in done.stderr and "file is not a database" in done.stderr


def a_closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_discord_is_one_sentence(tmp_path: Path) -> None:
    port = a_closed_port()
    done = subprocess.run([str(ALCAZABA), "run"], cwd=ROOT, text=True, capture_output=True, timeout=120,
                          stdin=subprocess.DEVNULL,
                          env={**env(tmp_path), "DISCORD_TOKEN": "bogus",
                               "DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10",
                               "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}"})
    line = assert_one_sentence(done, names="cannot reach Discord")
    assert "network" in line and "DISCORD_API_BASE" in line
    assert "bogus" not in done.stderr, "the token is never shown"
    assert "PyNaCl" not in done.stderr, "the harmless voice warning is silenced"


class Refuses401(http.server.BaseHTTPRequestHandler):
    """Discord's answer to a wrong token: 401 on every request."""

    def do_GET(self) -> None:  # noqa: N802 (the http.server name)
        body = b'{"message": "401: Unauthorized", "code": 0}'
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_wrong_token_is_one_sentence(tmp_path: Path) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuses401)
    worker = threading.Thread(target=server.serve_forever, daemon=True)
    worker.start()
    try:
        port = server.server_address[1]
        done = subprocess.run([str(ALCAZABA), "run"], cwd=ROOT, text=True, capture_output=True, timeout=120,
                              stdin=subprocess.DEVNULL,
                              env={**env(tmp_path), "DISCORD_TOKEN": "bogus",
                                   "DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10"})
    finally:
        server.shutdown()
        server.server_close()
    # The Discord front end says it itself (bot/discord/client.py), with status 2 like every set-up problem.
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "Discord refused the bot token (DISCORD_TOKEN)" in done.stderr and "bogus" not in done.stderr


def test_backup_to_a_folder_that_cannot_be_written_is_one_sentence(tmp_path: Path) -> None:
    db = tmp_path / "b.db"
    assert run("toy", tmp_path, "local", "toy", "--autoplay", "--seed", "3", "--db", str(db)).returncode == 0
    target = a_regular_file(tmp_path) / "backups"
    done = run("toy", tmp_path, "backup", str(target), "--db", str(db))
    line = assert_one_sentence(done, names="cannot write the backup")
    assert "PATH" in line


# ------------------------------------------------------------------ hints that work on a fresh clone


def test_the_continue_hint_is_a_command_that_works_without_alcazaba_on_the_path(tmp_path: Path) -> None:
    """Issue 38: the hint is run as printed, pasted in another folder: the program by its
    absolute path (it is not on the PATH of a fresh clone) and the --db the game was started
    with (given relative to the folder the table ran in)."""
    plain = {**env(tmp_path), "PATH": "/usr/bin:/bin"}
    assert shutil.which("alcazaba", path=plain["PATH"]) is None
    started_in, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    started_in.mkdir()
    elsewhere.mkdir()
    script = os.path.relpath(ALCAZABA, started_in)
    first = subprocess.run([script, "local", "navas", "--seed", "1", "--db", "h.db"], cwd=started_in, env=plain,
                           input="q\n", text=True, capture_output=True, timeout=120)
    assert first.returncode == 0, first.stderr
    hint = first.stdout.strip().splitlines()[-1].partition("game 1 saved; continue with: ")[2]
    assert hint == shlex.join([str(ALCAZABA), "local", "navas", "--resume", "1", "--db", str(started_in / "h.db")])
    resumed = subprocess.run(hint, shell=True, cwd=elsewhere, env=plain, input="q\n", text=True,
                             capture_output=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.startswith("game 1: ") and "resumed at move" in resumed.stdout
    assert resumed.stdout.strip().splitlines()[-1].endswith(hint.partition(" local ")[2]), "the same hint again"
    assert not list(elsewhere.iterdir()), "no database made where the hint was pasted"
    # Started from the clone as README says (.venv/bin/alcazaba): the hint still names the
    # program by its absolute path, not relative to the clone.
    second = subprocess.run([str(ALCAZABA.relative_to(ROOT)), "local", "navas", "--seed", "1", "--db",
                             str(tmp_path / "g.db")], cwd=ROOT, env=plain, input="q\n", text=True,
                            capture_output=True, timeout=120)
    hint = second.stdout.strip().splitlines()[-1].partition("game 1 saved; continue with: ")[2]
    assert shlex.split(hint)[0] == str(ALCAZABA), hint
    resumed = subprocess.run(hint, shell=True, cwd=elsewhere, env=plain, input="q\n", text=True,
                             capture_output=True, timeout=120)
    assert resumed.returncode == 0 and "resumed at move" in resumed.stdout, resumed.stderr


# ------------------------------------------------------------------ options and the contract check


def test_options_of_a_new_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "o.db"
    done = run("navas", tmp_path, "local", "navas", "--option", "advanced=true", "--autoplay", "--seed", "2",
               "--db", str(db))
    assert done.returncode == 0, done.stderr
    exported = json.loads(run("navas", tmp_path, "export", "1", "--db", str(db)).stdout)
    assert exported["options"] == {"advanced": True}
    status, _, err = in_process(["local", "navas", "--option", "colour=red", "--db", str(db)], capsys)
    assert status == 2 and "has no option colour; its options are: advanced" in err
    status, _, err = in_process(["local", "navas", "--option", "advanced=sometimes", "--db", str(db)], capsys)
    assert status == 2 and "Option advanced must be a bool, not 'sometimes'" in err
    status, _, err = in_process(["local", "navas", "--option", "advanced", "--db", str(db)], capsys)
    assert status == 2 and "write KEY=VALUE" in err


def test_check_passes_the_games_it_is_given(tmp_path: Path) -> None:
    done = run("toy", tmp_path, "check", "toy", "navas", "--games", "2", "--seed", "5")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for game in ("toy", "navas"):
        assert any(line.startswith(f"summary {game}: 2/2 games ok (seeds 5-6)") for line in lines), lines
    assert lines[-1] == "PASS: 0 failure(s)"


def test_check_names_the_failing_game_and_seed(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.bot import toygame

    leaky = types.ModuleType("leaky")
    leaky.__dict__.update({k: getattr(toygame, k) for k in (
        "title", "OPTIONS", "roles", "setup", "active", "actions", "apply", "result", "redeal")})
    leaky.id = "leaky"  # type: ignore[attr-defined]
    leaky.view = lambda state, role: {**toygame.view(state, role),  # type: ignore[attr-defined]
                                      "hands": clone(state["hands"])}
    monkeypatch.setitem(engine.GAMES, "leaky", leaky)
    status, out, _ = in_process(["check", "leaky", "--games", "2"], capsys)
    assert status == 1
    assert "FAIL leaky seed=1: step 0: the view of 'red' changes when what it cannot see is re-dealt" in out
    assert out.splitlines()[-1] == "FAIL: 2 failure(s)"
    status, _, err = in_process(["check", "chess"], capsys)
    assert status == 2 and "unknown game 'chess'" in err


# ------------------------------------------------------------------ the Makefile: a lone clone, pinned versions


def make_dry_run(target: str, tmp_path: Path) -> str:
    """The commands ``make TARGET`` would run in a clone without any environment yet."""
    done = subprocess.run(["make", "-n", "-B", target, f"VENV={tmp_path / 'venv'}"], cwd=ROOT, text=True,
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_test_needs_nothing_beside_the_clone(tmp_path: Path) -> None:
    commands = make_dry_run("test", tmp_path)
    assert "../shared" not in commands
    assert "alcazaba check --games" in commands, "the project's own contract check"
    assert "-c requirements/test.txt" in commands


def test_make_run_installs_the_pinned_runtime_alone(tmp_path: Path) -> None:
    commands = make_dry_run("run", tmp_path)
    installs = [line for line in commands.splitlines() if " install " in line and "pip>=" not in line]
    assert len(installs) == 1 and "-c requirements/runtime.txt" in installs[0] and "[test" not in installs[0]
    pinned = (ROOT / "requirements" / "runtime.txt").read_text().splitlines()
    names = {line.split("==")[0] for line in pinned if line and not line.startswith("#")}
    assert all("==" in line for line in pinned if line and not line.startswith("#"))
    assert {"sqlmodel", "sqlalchemy", "pillow", "discord-py"} <= names
    assert not {"ruff", "mypy", "hypothesis", "psycopg2-binary", "pytest"} & names


def test_the_shared_contract_check_is_a_separate_second_opinion(tmp_path: Path) -> None:
    assert "../shared/tools/contract_check.py" in make_dry_run("contract-shared", tmp_path)
    assert "make contract-shared" in (ROOT / ".ci" / "run").read_text()
