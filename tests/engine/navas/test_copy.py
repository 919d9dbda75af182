"""The copy Navas's ``apply`` makes (issue 15): a deep copy except the log's entries, which
are shared because an entry is never changed once written; the input never changes."""

from __future__ import annotations

from typing import Any

import engine.navas as navas
from engine.api import clone
from engine.navas import rules
from engine.rng import Generator
from tests.engine.granada.test_copy import containers


def _all(value: Any) -> set[int]:
    out: dict[int, Any] = {}
    containers(value, out)
    return set(out)


def test_the_copy_shares_only_log_entries_and_apply_never_changes_its_input() -> None:
    pick = Generator(5)
    state = navas.setup(5, {})
    for step in range(600):
        if navas.result(state) is not None:
            break
        role = next(r for r in navas.active(state) if navas.actions(state, r))
        legal = navas.actions(state, role)
        if step % 9 == 0:
            copied = rules._copy(state)
            assert copied == clone(state) and list(copied) == list(state)
            assert _all(copied) & _all(state) <= _all(state["log"]) - {id(state["log"])}
            before = clone(state)
            for action in legal[:6]:
                navas.apply(state, role, action)
                assert state == before
        state = navas.apply(state, role, legal[pick.randbelow(len(legal))])
