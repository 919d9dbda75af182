"""Decision frames name their handler by a registered, versioned name, not by a file
(engine/granada/state.py, ``HANDLERS``): every stored Granada game holds these names, so
moving a handler's code to another file, or renaming a handler, must leave stored games
playable and replaying to the very same states."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import engine.granada as g
from engine.api import RuleError
from engine.granada import frames
from engine.granada import state as st
from engine.rng import Generator
from tests.engine.test_replay_hashes import DATA, play


@pytest.fixture
def registry() -> Iterator[None]:
    """The handler registry as it was, and its cache emptied, after the test."""
    handlers, renamed = dict(st.HANDLERS), dict(st.RENAMED)
    frames._HANDLERS.clear()
    yield
    st.HANDLERS.clear()
    st.HANDLERS.update(handlers)
    st.RENAMED.clear()
    st.RENAMED.update(renamed)
    frames._HANDLERS.clear()


def _recorded_granada() -> list[dict[str, Any]]:
    return [c for c in json.loads(DATA.read_text()) if c["game"] == "granada"]


def _a_state_with(top: str, seed: int = 1) -> dict[str, Any]:
    """A state of a random game whose top frame is handled by ``top``, as the database
    gives it back (its JSON text read again)."""
    state = g.setup(seed, {})
    pick = Generator(seed)
    for _ in range(3000):
        frame = st.top(state)
        if frame is not None and frame["module"] == top:
            return json.loads(json.dumps(state))
        role = g.active(state)[0]
        legal = g.legal_actions(state, role)
        state = g.apply(state, role, legal[pick.randbelow(len(legal))])
    raise AssertionError(f"no {top} frame in game {seed}")


def test_every_frame_of_the_recorded_games_names_a_registered_handler() -> None:
    seen: set[str] = set()
    for case in _recorded_granada():
        state = g.setup(case["seed"], case["options"])
        pick = Generator(case["seed"] * 7919 + 11)
        while g.result(state) is None:
            seen.update(f["module"] for f in state["stack"])
            active = g.active(state)
            role = active[pick.randbelow(len(active))]
            legal = g.legal_actions(state, role)
            if not legal:
                role = next(r for r in active if g.legal_actions(state, r))
                legal = g.legal_actions(state, role)
            state = g.apply(state, role, legal[pick.randbelow(len(legal))])
    assert seen <= set(st.HANDLERS), seen - set(st.HANDLERS)
    assert {"sequence", "movement", "battle"} <= seen


def test_a_frame_name_is_not_a_file_name(registry: None) -> None:
    # engine/granada/victory.py exists, but handles no frame: its name is not registered
    assert (Path(st.__file__).parent / "victory.py").exists()
    with pytest.raises(RuleError, match="victory"):
        st.handler({"module": "victory", "kind": "x"})
    with pytest.raises(ValueError, match="registered"):
        st.push_frame(g.setup(1, {}), {"module": "victory", "kind": "x"})


def test_names_are_versioned(registry: None) -> None:
    assert st.handler_name("battle") == "battle"  # every frame stored so far is a version 1
    assert st.handler_name("battle", 2) == "battle@2"
    with pytest.raises(ValueError):
        st.handler_name("battle@2")
    with pytest.raises(RuleError):
        st.handler({"module": "battle@2", "kind": "battle"})
    assert st.register_handler("battle", "engine.granada.siege", version=2) == "battle@2"
    assert st.handler({"module": "battle@2", "kind": "battle"}).__name__ == "engine.granada.siege"
    assert st.handler({"module": "battle", "kind": "battle"}).__name__ == "engine.granada.battle"


def test_stored_games_replay_identically_when_a_handler_moves_to_another_file(
        registry: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The battle handler's code moved to a module of another name in another folder (a
    copy of it), registered under the same name, and its old file made unimportable: the
    recorded games replay to the recorded hashes, through the moved code."""
    package = tmp_path / "moved_rules"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(Path(st.__file__).parent / "battle.py", package / "field_battles.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "engine.granada.battle", None)  # the old file is gone
    st.register_handler("battle", "moved_rules.field_battles")
    moved = st.handler({"module": "battle", "kind": "battle"})
    assert moved.__name__ == "moved_rules.field_battles"
    calls = {"n": 0}
    real_apply = moved.apply

    def counted(*args: Any) -> None:
        calls["n"] += 1
        real_apply(*args)

    monkeypatch.setattr(moved, "apply", counted)
    for case in _recorded_granada():
        got = play(case["game"], case["seed"], case["options"])
        assert (got["steps"], got["hashes"]) == (case["steps"], case["hashes"]), case["seed"]
    assert calls["n"] > 0, "no battle was fought through the moved handler"


def test_a_stored_frame_under_an_old_name_is_read_through_the_renamed_handler(registry: None) -> None:
    """The handler "battle" renamed "field_battle": a stored game holding frames named
    "battle" shows and allows exactly what it did, and plays on."""
    stored = _a_state_with("battle")
    before = {role: (g.view(stored, role), g.actions(stored, role)) for role in ("christian", "muslim")}
    del st.HANDLERS["battle"]
    st.register_handler("field_battle", "engine.granada.battle")
    with pytest.raises(RuleError):
        g.view(stored, "christian")  # unknown without the mapping
    st.RENAMED["battle"] = "field_battle"
    frames._HANDLERS.clear()
    after = {role: (g.view(stored, role), g.actions(stored, role)) for role in ("christian", "muslim")}
    assert after == before
    role = g.active(stored)[0]
    assert g.apply(stored, role, g.actions(stored, role)[0]) is not stored
