"""No internal ids where a player reads (issue 35).

Cards, tiles, blocks and places have short ids in the games' data files (Sabika's ``p13``,
Granada's ``W10``, Dirk Henn's Granada's ``blue-1-3``). A player knows them by name: a prompt
label, a log line or a text drawn on a picture may show an id only as a tag beside the thing's
name ("Castile 2-shield cavalry (W10)"), never alone ("p13"). The test walks random games of
every game and checks each label of the legal actions, each log line of the views and each
text the pictures draw (``render.common.recording``). The id lists are built from each game's
data files; the names accepted beside an id are the data's own names (or, where the data has
none, the words the game names the thing by).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import engine
import render
from engine.api import describe
from render.common import recording
from tests.engine.games import random_game

ROOT = Path(__file__).resolve().parents[2] / "engine"


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    """Every dict inside a JSON value."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _dicts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _dicts(v)


def _data_ids(game: str) -> dict[str, list[str]]:
    """Every component with an ``id`` in the game's data files, with its ``name`` if it has one."""
    out: dict[str, list[str]] = {}
    for path in sorted((ROOT / game / "data").glob("*.json")):
        for d in _dicts(json.loads(path.read_text(encoding="utf-8"))):
            if isinstance(d.get("id"), str):
                out.setdefault(d["id"], [])
                if isinstance(d.get("name"), str):
                    out[d["id"]].append(d["name"])
    return out


@cache
def names(game: str) -> dict[str, tuple[str, ...]]:
    """id -> the names that may stand beside it. An id that is its own name is left out; one
    that differs only in case (a city ``ragusa`` named Ragusa) is a code like any other: a
    text must show the name as the data spells it."""
    ids = _data_ids(game)
    if game == "sabika":
        from engine.sabika import names as N

        ids = {i: [*n, *N.names_of(i)] for i, n in ids.items()}
    elif game == "granada":
        from engine.granada.state import block_name, data

        for b in data().blocks:
            ids[b] = [*ids.get(b, []), re.sub(r"\s*\(?\b" + re.escape(b) + r"\b\)?", "", block_name(b)).strip()]
    elif game == "granada_city":
        from engine.granada_city.data import CATALOG

        for cid in CATALOG.money:
            currency, value = CATALOG.card(cid)
            ids[cid] = [f"{value} {currency}"]
        for tid, tile in CATALOG.tiles.items():
            ids[tid] = [CATALOG.type_names[f.type] for f in (tile.even, tile.odd)]
    return {i: tuple(n for n in ns if n) for i, ns in ids.items() if i not in ns
            and len(i) > 1}


def _pattern(ids: Iterable[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    return re.compile(r"(?<![\w-])(" + alternatives + r")(?![\w-])")


def bare_ids(game: str, text: str) -> list[str]:
    """The ids in ``text`` without any of their names beside them (in the same text)."""
    table = names(game)
    return [m for m in _compiled(game).findall(text) if not any(n in text for n in table[m])]


NEAR = 10
"""Records drawn just before or after a picture text that may hold its name (a card's id tag
drawn at its foot, its name at its head): within this many records..."""
NEAR_PX = 250
"""...and this many pixels, on a picture of the same size (a card sprite is drawn on its own)."""


def _centre(box: tuple[float, float, float, float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def picture_bare_ids(game: str, records: list[Any]) -> list[tuple[str, list[str]]]:
    """(text, ids) for each drawn text holding an id whose name is not drawn beside it: in the
    same text or in a text drawn near it (the same card, the same line of a panel)."""
    out = []
    for i, r in enumerate(records):
        bad = bare_ids(game, r.text)
        if not bad:
            continue
        cx, cy = _centre(r.box)
        near = " ".join(o.text for o in records[max(0, i - NEAR):i + NEAR + 1]
                        if o.image_size == r.image_size and abs(_centre(o.box)[0] - cx) < NEAR_PX
                        and abs(_centre(o.box)[1] - cy) < NEAR_PX)
        still = bare_ids(game, near)
        bad = [b for b in bad if b in still]
        if bad:
            out.append((r.text, bad))
    return out


def _log_texts(view: dict[str, Any]) -> Iterator[str]:
    for entry in view.get("log") or []:
        if isinstance(entry, str):
            yield entry
        elif isinstance(entry, dict):
            for k in ("text", "line", "public", "private"):
                if isinstance(entry.get(k), str):
                    yield entry[k]


GAMES: list[tuple[str, dict[str, Any]]] = [("granada", {}), ("navas", {}), ("granada_city", {"players": 3}),
                                           ("sabika", {"players": 3}), ("sabika", {"players": 1})]
PICTURES_PER_GAME = 3
STOP = 400


def _findings(game: str, options: dict[str, Any], seed: int) -> list[str]:
    module = engine.get(game)
    states = random_game(game, seed, options, stop=STOP)
    found: list[str] = []

    def check(where: str, text: str, bad: list[str] | None = None) -> None:
        bad = bare_ids(game, text) if bad is None else bad
        if bad and len(found) < 40:
            found.append(f"{where}: {sorted(set(bad))} in {text!r}")

    roles = [r for r in module.view(states[0], None).get("roles", []) if isinstance(r, str)]
    for state in states:
        for role in module.active(state):
            for a in module.actions(state, role):
                check("label", describe(a))
    last = states[-1]
    seers: list[str | None] = [*roles, None]
    for seer in seers:
        for line in _log_texts(module.view(last, seer)):
            check("log", line)
    picks = [states[len(states) * (i + 1) // (PICTURES_PER_GAME + 1)] for i in range(PICTURES_PER_GAME)] + [last]
    for state in picks:
        for seer in seers[:1] + [None]:
            view = module.view(state, seer)
            check("prompt", str(view.get("prompt") or ""))
            with recording() as texts:
                render.images(game, view)
            for text, bad in picture_bare_ids(game, texts):
                check("picture", text, bad)
    return found


@cache
def _compiled(game: str) -> re.Pattern[str]:
    return _pattern(names(game))


@pytest.mark.parametrize(("game", "options"), GAMES, ids=[f"{g}-{o.get('players', '')}" for g, o in GAMES])
def test_no_bare_ids_where_players_read(game: str, options: dict[str, Any]) -> None:
    found = [f for seed in (1, 2) for f in _findings(game, options, seed)]
    assert not found, f"{game}: internal ids shown without their names:\n" + "\n".join(found)


def test_the_check_catches_a_bare_id() -> None:
    """The check is able to fail: a bare id is caught, the same id beside its name is not."""
    from engine.sabika import names as N

    assert bare_ids("sabika", "Take Minor Poem p13") == ["p13"]
    assert bare_ids("sabika", f"Take {N.tagged('p13')}") == []
    assert bare_ids("granada_city", "You hold blue-1-3") == ["blue-1-3"]
    assert bare_ids("granada_city", "You hold 1 blue") == []
    assert bare_ids("granada", "Castile 2-shield cavalry (W10)") == []
    assert bare_ids("granada", "W10 moves") == ["W10"]
    assert bare_ids("sabika", "Trades with: ragusa") == ["ragusa"]
    assert bare_ids("sabika", "Trades with: Ragusa") == []
