"""The frozen views of the golden tests: regenerate stores real views and draws the goldens
from what it stored; the golden pictures need no engine play (so a rules change leaves them
as they are); a stored view whose shape the engine no longer gives fails clearly."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.render import cases, regenerate
from tests.render.cases import BY_NAME, StaleViews, load_views, views_path
from tests.render.compare import check

ROOT = Path(__file__).resolve().parents[2]


def _copy(name: str, tmp: Path) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(views_path(name), tmp / f"{name}.json"))


def _edit(path: Path, change: Any) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")


def test_every_case_has_stored_views_of_its_game() -> None:
    for case in cases.CASES:
        views = load_views(case)
        assert all(v["game"] == case.game for v in views), case.name
    assert [v["role"] for v in load_views(BY_NAME["granada_reveal"])] == [None], "one spectator view suffices"


def test_golden_pictures_are_drawn_without_playing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rules change alters how the engine plays; the goldens do not play at all."""
    def no_play(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a golden picture played the engine")

    granada = cases.game("granada")
    monkeypatch.setattr(granada, "apply", no_play)
    monkeypatch.setattr(cases, "play", no_play)
    for name in ("granada_hand_muslim", "granada_battle_naval"):
        case = BY_NAME[name]
        ok, message = check(name, case.draw(load_views(case)))
        assert ok, message


def test_missing_key_fails_with_the_command_that_fixes_it(tmp_path: Path) -> None:
    case = BY_NAME["navas_hand_christian"]
    path = _copy(case.name, tmp_path)
    _edit(path, lambda doc: doc["views"][0].pop("hand"))
    with pytest.raises(StaleViews) as failure:
        load_views(case, tmp_path)
    message = str(failure.value)
    assert "keys the engine now gives that it lacks: ['hand']" in message
    assert "python -m tests.render.regenerate navas_hand_christian" in message and "make golden" in message


def test_key_the_engine_no_longer_gives_fails(tmp_path: Path) -> None:
    case = BY_NAME["granada_battle_field"]
    path = _copy(case.name, tmp_path)
    _edit(path, lambda doc: doc["views"][0].update(old_key=1))
    with pytest.raises(StaleViews, match=r"keys it has that the engine no longer gives: \['old_key'\]"):
        load_views(case, tmp_path)


def test_missing_or_broken_file_fails_clearly(tmp_path: Path) -> None:
    case = BY_NAME["navas_board_muslim"]
    with pytest.raises(StaleViews, match="no stored views"):
        load_views(case, tmp_path)
    views_path(case.name, tmp_path).write_text("{not json", encoding="utf-8")
    with pytest.raises(StaleViews, match="is not JSON"):
        load_views(case, tmp_path)
    views_path(case.name, tmp_path).write_text(json.dumps({"format": 1, "game": "granada", "views": [{}]}),
                                               encoding="utf-8")
    with pytest.raises(StaleViews, match="not a format-1 file of navas views"):
        load_views(case, tmp_path)


def test_regenerate_stores_real_views_and_draws_from_them(tmp_path: Path) -> None:
    names = ["navas_board_christian", "granada_replay"]
    written = regenerate.regenerate(names, views_dir=tmp_path / "views", golden_dir=tmp_path / "golden", say=False)
    assert sorted(p.name for p in written) == ["granada_replay.json", "navas_board_christian.json",
                                               "navas_board_christian.png"]
    case = BY_NAME["navas_board_christian"]
    stored = load_views(case, tmp_path / "views")
    live = cases.game("navas").view(cases.navas_state(), "christian")
    assert stored == [{**live, "log": live["log"][-cases.LOG_KEPT:]}], "the engine's view, its log cut"
    png = (tmp_path / "golden" / "navas_board_christian.png").read_bytes()
    assert png == case.draw(stored)
    assert Image.open(io.BytesIO(png)).size == cases.NAVAS_SIZE
    frames = load_views(BY_NAME["granada_replay"], tmp_path / "views")
    assert len(frames) == len(cases.granada_turn_views())
    assert all(len(v["log"]) <= cases.LOG_KEPT for v in frames)


def test_keep_views_redraws_from_the_stored_views_only(tmp_path: Path) -> None:
    """--keep-views (a picture change): the goldens come from the stored views as they are,
    here a stored view whose prompt (drawn on the 1212 board) was edited."""
    case = BY_NAME["navas_board_muslim"]
    path = _copy(case.name, tmp_path / "views")
    _edit(path, lambda doc: doc["views"][0].update(prompt="An edited prompt that no engine wrote."))
    before = path.read_bytes()
    regenerate.regenerate([case.name], keep_views=True, views_dir=tmp_path / "views",
                          golden_dir=tmp_path / "golden", say=False)
    assert path.read_bytes() == before
    png = (tmp_path / "golden" / f"{case.name}.png").read_bytes()
    assert png == case.draw(load_views(case, tmp_path / "views"))
    assert png != case.draw(load_views(case))


def test_docs_pictures_are_the_granada_boards(tmp_path: Path) -> None:
    written = regenerate.docs(tmp_path)
    assert [p.name for p in written] == ["board-christian.png", "board-spectator.png"]
    for path, name in zip(written, ("granada_board_christian", "granada_board_spectator"), strict=True):
        case = BY_NAME[name]
        assert path.read_bytes() == case.draw(load_views(case))
    # the committed README pictures: real PNGs of the whole board
    for filename, role in (("board-christian.png", "Christians"), ("board-spectator.png", "Spectator")):
        with Image.open(ROOT / "docs" / filename) as img:
            assert img.format == "PNG" and img.size == cases.GRANADA_SIZE, role
