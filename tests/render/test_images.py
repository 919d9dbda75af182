"""Every image kind decodes as what it claims, within its size limits, and matches its
golden reference (tests/render/golden), drawn from the views stored in tests/render/views
(both rewritten by ``python -m tests.render.regenerate``; see tests/render/__init__.py)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.render.cases import BY_NAME, CASES, Case, load_views
from tests.render.compare import check


@pytest.fixture(scope="module")
def rendered() -> dict[str, bytes]:
    return {}


def _png(case: Case, rendered: dict[str, bytes]) -> bytes:
    if case.name not in rendered:
        rendered[case.name] = case.draw(load_views(case))
    return rendered[case.name]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_decodes_with_format_size_and_weight(case: Case, rendered: dict[str, bytes]) -> None:
    data = _png(case, rendered)
    img = Image.open(io.BytesIO(data))
    img.load()
    assert img.format == case.fmt
    w, h = img.size
    assert case.min_size[0] <= w <= case.max_size[0], f"width {w} outside {case.min_size[0]}..{case.max_size[0]}"
    assert case.min_size[1] <= h <= case.max_size[1], f"height {h} outside {case.min_size[1]}..{case.max_size[1]}"
    assert len(data) <= case.max_bytes, f"{len(data)} bytes > {case.max_bytes}"
    # not a blank picture: a real board has many colours
    colours = img.convert("RGB").resize((200, 200)).getcolors(maxcolors=200 * 200)
    assert colours is not None and len(colours) > 30


@pytest.mark.parametrize("case", [c for c in CASES if c.golden], ids=[c.name for c in CASES if c.golden])
def test_matches_golden_reference(case: Case, rendered: dict[str, bytes]) -> None:
    ok, message = check(case.name, _png(case, rendered))
    print(message)
    assert ok, message


def test_replay_has_one_frame_per_stored_turn_view(rendered: dict[str, bytes]) -> None:
    case = BY_NAME["granada_replay"]
    views = load_views(case)
    img = Image.open(io.BytesIO(_png(case, rendered)))
    assert getattr(img, "n_frames", 1) == len(views)
    turns = [(v["year"], v["turn"]) for v in views]
    assert len(set(turns)) >= 10, "12 turns in a game that runs to the end"
    assert views[-1]["result"] is not None, "the last frame is the end of the game"


def test_closeup_accepts_names_with_or_without_accents() -> None:
    from render import granada

    view = load_views(BY_NAME["granada_hand_muslim"])[0]
    by_id = granada.closeup(view, "almunecar")
    assert granada.closeup(view, "Almuñécar") == by_id
    assert granada.closeup(view, "ALMUNECAR") == by_id
    assert granada.resolve_place("Bay of Málaga") == "bay_of_malaga"
    with pytest.raises(KeyError, match="unknown location"):
        granada.closeup(view, "Atlantis")
