"""Bad game files (issue 37): ``alcazaba import`` and ``alcazaba replay-check`` refuse a file a
careless or hostile sender made in one sentence of at most 300 characters, with exit status 1,
never a traceback, and ``import`` stores nothing; a valid file still imports and replays.

The files are made from a real export (1212, played by the built-in player through the real
command line) by a Hypothesis property that breaks it: wrong types, missing and extra fields,
huge and deeply nested values, unicode, moves reordered or duplicated. The property calls
``bot.cli.main`` in this process (the same code as the script, without its start-up cost);
the issue's three cases also run through the installed ``alcazaba`` script.

The test keeps its own statement of the documented format (README, "Export format") to know
which files must be refused; a change that is still a valid file (a player renamed in any
script, a move's hash left out) must import and replay.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from bot.cli import main
from engine.api import clone
from tests.bot.test_cli import ALCAZABA, ROOT, env

LIMIT = 300  # characters of a refusal, the whole line

# The documented format, as the README states it: a field's JSON kinds, whether a file must
# have it, and its longest string.
TOP = {"format": ({"integer"}, True, 0), "game": ({"string"}, True, 40), "title": ({"string"}, False, 200),
       "seed": ({"integer"}, True, 0), "options": ({"object"}, False, 0), "rules_version": ({"integer"}, False, 0),
       "schema_revision": ({"string", "null"}, False, 40), "upgrades": ({"list"}, False, 0),
       "players": ({"list"}, False, 0), "status": ({"string"}, False, 16), "result": ({"object", "null"}, False, 0),
       "state_hash": ({"string", "null"}, False, 64), "moves": ({"list"}, True, 0)}
MOVE = {"seq": ({"integer"}, False, 0), "role": ({"string"}, True, 40), "action": ({"object"}, True, 0),
        "hash": ({"string", "null"}, False, 64)}
PLAYER = {"role": ({"string"}, True, 40), "name": ({"string", "null"}, False, 100), "bot": ({"boolean"}, False, 0)}
DEPTH, TEXT, MOVES = 32, 10_000, 20_000


def kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {int: "integer", float: "number", str: "string", dict: "object", list: "list"}[type(value)]


def out_of_bounds(value: Any, depth: int = 0) -> bool:
    """True for a value no field of the documented format may hold: nested beyond DEPTH
    levels, a string beyond TEXT characters or not Unicode text, an integer beyond 64 bits."""
    if isinstance(value, dict | list):
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        return depth >= DEPTH or any(out_of_bounds(k, depth + 1) or out_of_bounds(v, depth + 1) for k, v in items)
    if isinstance(value, str):
        return len(value) > TEXT or any(0xD800 <= ord(c) < 0xE000 for c in value)
    return isinstance(value, int) and not isinstance(value, bool) and not -(1 << 63) <= value < 1 << 63


# ------------------------------------------------------------------ breaking a valid file


@dataclass(frozen=True)
class Key:
    """The n-th key (modulo their number) of the object at that place of the file."""

    n: int


Place = tuple[str | int | Key, ...]


@dataclass(frozen=True)
class Change:
    """One way to break a file. ``how``: replace, delete, add (``value`` is then ``(key,
    value)``), deep (``value`` levels of nested lists), swap (the moves at ``value`` and
    ``value + 1``), twice (the move at ``value`` twice), raw (``value`` is JSON text put
    there as it is, e.g. NaN or a lone surrogate)."""

    how: str
    place: Place = ()
    value: Any = None

    def __repr__(self) -> str:
        shown = repr(self.value)
        return f"Change({self.how!r}, {self.place!r}, {shown if len(shown) < 60 else shown[:57] + '...'})"


MARK = "\u0000mark\u0000"


def resolve(doc: Any, place: Place) -> list[str | int]:
    """The concrete path of ``place`` in ``doc`` (list indexes modulo the length)."""
    path: list[str | int] = []
    node = doc
    for step in place:
        if isinstance(step, Key):
            if not isinstance(node, dict) or not node:
                break
            step = sorted(node)[step.n % len(node)]
        elif isinstance(step, int):
            if not isinstance(node, list) or not node:
                break
            step %= len(node)
        elif not isinstance(node, dict) or step not in node:
            if isinstance(node, dict):
                path.append(step)  # a field the file lacks: the change adds it
            break
        path.append(step)
        node = node[step]
    return path


def apply(base: dict[str, Any], changes: list[Change]) -> tuple[str, bool]:
    """The file's text after ``changes``, and whether the documented format refuses it."""
    doc: Any = clone(base)
    pieces: list[tuple[str, Any]] = []  # (how, value) of each deep or raw change, put in by a mark
    for change in changes:
        path = resolve(doc, change.place)
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1] if path else None
        if change.how in ("replace", "deep", "raw"):
            value = change.value
            if change.how != "replace":
                value = f"{MARK}{len(pieces)}{MARK}"
                pieces.append((change.how, change.value))
            if not path:
                doc = value
            else:
                parent[last] = value
        elif change.how == "delete" and path and _has(parent, last):
            del parent[last]
        elif change.how == "add":
            key, value = change.value
            target = doc if not path else (parent[last] if _has(parent, last) else None)
            if isinstance(target, dict) and key not in target and key != "label":
                target[key] = value
        elif change.how in ("swap", "twice") and isinstance(doc, dict) and isinstance(doc.get("moves"), list):
            moves = doc["moves"]
            if len(moves) >= 2:
                i = change.value % (len(moves) - 1)
                if change.how == "swap":
                    moves[i], moves[i + 1] = moves[i + 1], moves[i]
                else:
                    moves.insert(i, clone(moves[i]))
    text = json.dumps(doc)
    for index, (_how, value) in enumerate(pieces):
        text = text.replace(json.dumps(f"{MARK}{index}{MARK}"), "[" * value + "]" * value if _how == "deep" else value)
    return text, refused_by_the_format(doc, pieces, base)


def _has(parent: Any, key: str | int | None) -> bool:
    return (isinstance(parent, dict) and key in parent) or (isinstance(parent, list) and isinstance(key, int))


def refused_by_the_format(doc: Any, pieces: list[tuple[str, Any]], base: dict[str, Any]) -> bool:
    """The test's own oracle: True when the documented format, or the moves no longer being
    the ones played, refuses the file (False: it may go either way)."""
    bad = False

    def value_kind(value: Any) -> str:
        if isinstance(value, str) and value.startswith(MARK):
            how, piece = pieces[int(value.strip(MARK))]
            return "list" if how == "deep" else "string"
        return kind(value)

    def walk(value: Any, depth: int) -> None:
        nonlocal bad
        if isinstance(value, str) and value.startswith(MARK):
            how, piece = pieces[int(value.strip(MARK))]
            bad |= depth + piece > DEPTH if how == "deep" else piece != '"ok"'
        elif out_of_bounds(value, depth) and not isinstance(value, dict | list):
            bad = True
        elif isinstance(value, dict | list):
            bad |= depth >= DEPTH
            items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
            for key, item in items:
                bad |= out_of_bounds(key, depth + 1)
                walk(item, depth + 1)

    def fields(item: Any, spec: dict[str, tuple[set[str], bool, int]]) -> None:
        nonlocal bad
        if not isinstance(item, dict):
            bad = True
            return
        bad |= any(name not in spec for name in item)
        for name, (kinds, required, longest) in spec.items():
            if name not in item:
                bad |= required
                continue
            bad |= value_kind(item[name]) not in kinds
            bad |= isinstance(item[name], str) and not item[name].startswith(MARK) and len(item[name]) > longest

    walk(doc, 0)
    fields(doc, TOP)
    if bad or not isinstance(doc, dict):
        return True
    if any(isinstance(doc.get(name), str) for name in ("moves", "players", "options")):
        return True  # lists nested in place of the list of moves or players
    moves: list[Any] = doc["moves"]
    players: list[Any] = doc.get("players", [])
    options: dict[str, Any] = doc.get("options", {})
    for item in moves:
        fields(item, MOVE)
    for item in players:
        fields(item, PLAYER)
    if bad or len(moves) > MOVES:
        return True
    # Not the game played: another game, seed or options; other moves; a hash that is not the
    # state's; a seat of no role of the game, or taken twice.
    if (doc["format"], doc["game"], doc["seed"]) != (base["format"], base["game"], base["seed"]):
        return True
    if any(name not in base["options"] or kind(value) != kind(base["options"][name]) or value != base["options"][name]
           for name, value in options.items()):
        return True
    # Moves not the ones played: refused when the file's final state_hash is there, when a
    # changed move keeps a hash, or when moves follow the end of the game.
    played = [(m["role"], m["action"], m.get("hash")) for m in base["moves"]]
    given = [(m["role"], {k: v for k, v in m["action"].items() if k != "label"}, m.get("hash")) for m in moves]
    if len(given) > len(played):
        return True
    if doc.get("state_hash") is not None and [g[:2] for g in given] != [p[:2] for p in played]:
        return True
    for (role, action, digest), (role0, action0, digest0) in zip(given, played, strict=False):
        if digest is not None and (digest != digest0 or (role, action) != (role0, action0)):
            return True
    roles = [p["role"] for p in players]
    return len(set(roles)) != len(roles) or not set(roles) <= {p["role"] for p in base["players"]}


# ------------------------------------------------------------------ strategies

scalars = (st.none() | st.booleans() | st.integers(-(2 ** 70), 2 ** 70) | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=30))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
huge_values = st.sampled_from([41, 101, 201, 10_001, 100_000]).map(lambda n: "x" * n) \
    | st.integers(64, 300).map(lambda n: 10 ** (n // 3)) \
    | st.sampled_from([MOVES + 1, 1000]).map(lambda n: [0] * n) \
    | st.integers(1, 2000).map(lambda n: {f"k{i}": i for i in range(n)})
unicode_text = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=60)

move_index = st.integers(0, 10_000)
places: st.SearchStrategy[Place] = st.one_of(
    st.just(()),
    st.sampled_from(sorted(TOP)).map(lambda f: (f,)),
    st.tuples(st.just("moves"), move_index, st.sampled_from(sorted(MOVE))),
    st.tuples(st.just("moves"), move_index, st.just("action"), st.integers(0, 5).map(Key)),
    st.tuples(st.just("players"), st.integers(0, 5), st.sampled_from(sorted(PLAYER))),
    st.tuples(st.sampled_from(["options", "result"]), st.integers(0, 5).map(Key)),
)
objects: st.SearchStrategy[Place] = st.one_of(
    st.just(()), st.just(("options",)), st.tuples(st.just("moves"), move_index),
    st.tuples(st.just("players"), st.integers(0, 5)), st.tuples(st.just("moves"), move_index, st.just("action")),
)
changes = st.one_of(
    st.builds(Change, st.just("replace"), places, json_values),
    st.builds(Change, st.just("replace"), places, huge_values),
    st.builds(Change, st.just("replace"), places, unicode_text),
    st.builds(Change, st.just("delete"), places),
    st.builds(Change, st.just("add"), objects, st.tuples(st.text(min_size=1, max_size=12), json_values)),
    st.builds(Change, st.just("deep"), places, st.sampled_from([2, 33, 100, 1000, 100_000])),
    st.builds(Change, st.just("swap"), st.just(()), move_index),
    st.builds(Change, st.just("twice"), st.just(()), move_index),
    st.builds(Change, st.just("raw"), places, st.sampled_from(['"ok"', '"\\ud800"', '"a\\udfffb"', "NaN",
                                                               "-Infinity", "1e999", "1" * 5000])),
)

DEEP = [Change("deep", (), 100_000)]
PLAYERS_BOB = [Change("replace", ("players",), "bob")]
HUGE_ROLE = [Change("replace", ("moves", 3, "role"), "x" * 100_000)]


# ------------------------------------------------------------------ the real commands


@dataclass
class Exported:
    """A 1212 game the built-in player finished through the real command line, exported."""

    text: str
    data: dict[str, Any]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    folder = tmp_path_factory.mktemp("export")
    db = folder / "g.db"
    for args in (["local", "navas", "--autoplay", "--seed", "1", "--db", str(db)], ["export", "1", "--db", str(db)]):
        done = subprocess.run([str(ALCAZABA), *args], cwd=ROOT, env=env(folder), text=True, capture_output=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
    return Exported(done.stdout, json.loads(done.stdout))


@dataclass
class Outcome:
    status: int
    out: str
    err: str


class Table:
    """The commands run in this process on one database, with the number of games stored."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.db = folder / "games.db"
        self.file = folder / "game.json"

    def run(self, *args: str) -> Outcome:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(args))
        return Outcome(status, out.getvalue(), err.getvalue())

    def games(self) -> int:
        return stored_games(self.db)


def stored_games(db: Path) -> int:
    """Games in the database (none when a refusal came before the database was made)."""
    if not db.exists():
        return 0
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT count(*) FROM game").fetchone()[0])


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    folder = tmp_path_factory.mktemp("bad-files")
    with pytest.MonkeyPatch.context() as patch:
        for name in ("DATABASE_URL", "DISCORD_TOKEN", "LOG_LEVEL"):
            patch.delenv(name, raising=False)
        patch.setenv("DATA_DIR", str(folder / "data"))
        yield Table(folder)


def assert_refused(outcome: Outcome, command: str) -> None:
    """One sentence of at most LIMIT characters on one line, exit status 1, no traceback."""
    assert outcome.status == 1, (command, outcome)
    assert outcome.out == "", (command, outcome)
    lines = outcome.err.splitlines()
    assert len(lines) == 1, (command, outcome.err[:2000])
    assert len(lines[0]) <= LIMIT, (command, len(lines[0]), lines[0])
    assert lines[0].rstrip().endswith((".", "…")), lines[0]
    assert "Traceback" not in outcome.err


def check_file(table: Table, text: str, must_refuse: bool) -> None:
    """Both commands on ``text``: refused well, or (when the format allows it) imported and
    replayed; a refused import stores nothing."""
    table.file.write_text(text, encoding="utf-8")
    before = table.games()
    imported = table.run("import", str(table.file), "--db", str(table.db))
    checked = table.run("replay-check", str(table.file))
    event(f"import {'stored' if imported.status == 0 else 'refused'}, the format "
          f"{'refuses' if must_refuse else 'may allow'} it")
    if imported.status == 0:
        assert not must_refuse, ("the documented format refuses this file, import stored it", imported)
        assert imported.out.strip() == str(table.games()) and table.games() == before + 1
    else:
        assert_refused(imported, "import")
        assert table.games() == before, "a refused import stores nothing"
    if checked.status == 0:
        assert checked.out.startswith("ok: "), checked
        assert imported.status == 0, ("a file replay-check passes must import", imported)
    else:
        assert_refused(checked, "replay-check")
        assert checked.err.startswith("alcazaba replay-check: ") or checked.err.startswith("replay-check FAILED: ")
        assert not checked.err.startswith("replay-check FAILED: ok")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(changes, min_size=1, max_size=3))
@example(DEEP)
@example(PLAYERS_BOB)
@example(HUGE_ROLE)
def test_a_broken_file_is_refused_in_one_sentence_and_stores_nothing(exported: Exported, table: Table,
                                                                     broken: list[Change]) -> None:
    text, must_refuse = apply(exported.data, broken)
    check_file(table, text, must_refuse)


def test_the_valid_file_imports_and_replays(exported: Exported, table: Table) -> None:
    before = table.games()
    table.file.write_text(exported.text, encoding="utf-8")
    assert table.run("import", str(table.file), "--db", str(table.db)).status == 0
    assert table.games() == before + 1
    checked = table.run("replay-check", str(table.file))
    assert checked.status == 0 and checked.out.startswith(f"ok: {len(exported.data['moves'])} moves"), checked


@pytest.mark.parametrize("unicode_name", ["Ibn Mardanīš", "阿尔卡萨巴", "🏰 " * 30])
def test_valid_changes_still_import(exported: Exported, table: Table, unicode_name: str) -> None:
    """A player's name in any script, a move without its hash, a file without its optional
    header fields: still the documented format."""
    data = clone(exported.data)
    data["players"][0]["name"] = unicode_name
    data["moves"][5].pop("hash")
    for optional in ("title", "status", "result", "state_hash", "upgrades", "schema_revision"):
        data.pop(optional)
    table.file.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    imported = table.run("import", str(table.file), "--db", str(table.db))
    assert imported.status == 0, imported
    exported_again = table.run("export", imported.out.strip(), "--db", str(table.db))
    assert json.loads(exported_again.out)["players"][0]["name"] == unicode_name
    assert table.run("replay-check", str(table.file)).status == 0


def test_a_file_cut_short_is_not_stored_as_half_a_game(exported: Exported, table: Table) -> None:
    """Every move left replays, but the file says where the game ended (``state_hash``)."""
    data = clone(exported.data)
    data["moves"] = data["moves"][: len(data["moves"]) // 2]
    table.file.write_text(json.dumps(data), encoding="utf-8")
    before = table.games()
    imported = table.run("import", str(table.file), "--db", str(table.db))
    assert_refused(imported, "import")
    assert "different state from the one exported" in imported.err and table.games() == before


def test_the_file_size_limit(table: Table, exported: Exported) -> None:
    """A file beyond 16 MiB is refused before it is parsed (a valid document padded with spaces)."""
    table.file.write_text(exported.text + " " * (16 * 1024 * 1024), encoding="utf-8")
    before = table.games()
    for args in (["import", str(table.file), "--db", str(table.db)], ["replay-check", str(table.file)]):
        outcome = table.run(*args)
        assert_refused(outcome, args[0])
        assert "16 MiB" in outcome.err
    assert table.games() == before


# ------------------------------------------------------------------ the issue's cases, through the script


def script(folder: Path, *args: str) -> Outcome:
    done = subprocess.run([str(ALCAZABA), *args], cwd=ROOT, env=env(folder), text=True, capture_output=True,
                          timeout=120)
    return Outcome(done.returncode, done.stdout, done.stderr)


@pytest.mark.parametrize("case, words", [
    ("deep", "nests far deeper than the 32 levels"),
    ("players_bob", "players must be a list, not a string ('bob')"),
    ("huge_role", "moves[3].role is 100000 characters long ('xxxxx"),
])
def test_the_issues_cases_through_the_script(exported: Exported, tmp_path: Path, case: str, words: str) -> None:
    broken = {"deep": DEEP, "players_bob": PLAYERS_BOB, "huge_role": HUGE_ROLE}[case]
    text, must_refuse = apply(exported.data, broken)
    assert must_refuse
    file = tmp_path / f"{case}.json"
    file.write_text(text, encoding="utf-8")
    db = tmp_path / "g.db"
    for args in (["import", str(file), "--db", str(db)], ["replay-check", str(file)]):
        outcome = script(tmp_path, *args)
        assert_refused(outcome, args[0])
        assert words in outcome.err, outcome.err
        assert "x" * 100 not in outcome.err
    assert stored_games(db) == 0, "nothing stored"


def test_the_script_still_imports_the_valid_file(exported: Exported, tmp_path: Path) -> None:
    file = tmp_path / "game.json"
    file.write_text(exported.text, encoding="utf-8")
    imported = script(tmp_path, "import", str(file), "--db", str(tmp_path / "g.db"))
    assert (imported.status, imported.out.strip()) == (0, "1"), imported
    checked = script(tmp_path, "replay-check", str(file))
    assert checked.status == 0 and checked.out.startswith("ok: "), checked
    assert os.path.getsize(file) < 16 * 1024 * 1024


def test_a_result_from_an_older_release_with_fewer_keys_still_replays(exported: Exported, table: Table) -> None:
    """A result exported before a key was derived from the final state (Sabika's ``winners``
    came later) still matches where the keys it has agree; a key that disagrees does not."""
    result = exported.data["result"]
    assert isinstance(result, dict) and len(result) >= 2, result
    dropped = sorted(result)[-1]
    older = clone(exported.data)
    older["result"].pop(dropped)
    table.file.write_text(json.dumps(older), encoding="utf-8")
    assert table.run("replay-check", str(table.file)).status == 0
    wrong = clone(exported.data)
    wrong["result"][dropped] = "somebody else"
    table.file.write_text(json.dumps(wrong), encoding="utf-8")
    checked = table.run("replay-check", str(table.file))
    assert checked.status == 1 and "different result" in checked.err, checked
