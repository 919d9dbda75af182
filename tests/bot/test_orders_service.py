"""Orders through the service (``GameService.apply_order``): a typed chain is checked whole
against the seat's view and applied in one transaction, all or nothing; and navigation is no
move: the service refuses a page turn, which never reaches the move log."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.service import GameService, NotAllowed, StaleVersion
from bot.service.orders import OrderRefused
from engine.api import RuleError
from tests.bot.test_service import ANN, BOB, rows, two_player_game


async def toy_game(service: GameService) -> int:
    return await two_player_game(service, target=20)


async def test_a_chain_is_applied_step_by_step_in_one_command(service: GameService, db_path: Path) -> None:
    pk = await toy_game(service)
    steps = await service.apply_order(pk, "red", "add 1 > add 2 > bank", 0, ANN)
    assert [s.version for s in steps] == [1, 2, 3] and steps[-1].active == ["blue"]
    assert [s.action["label"] for s in steps if s.action] == ["add 1", "add 2", "bank 3 points"]
    moves = rows(db_path, "SELECT seq, action FROM move WHERE game_pk=? ORDER BY seq", pk)
    assert moves == [(1, '{"n":1,"type":"add"}'), (2, '{"n":2,"type":"add"}'), (3, '{"type":"bank"}')]
    _, state = await service.state(pk)
    assert state["score"]["red"] == 3 and state["pending"] == 0
    # each step is its own move: undo takes back the last one only
    await service.undo(pk, "red", 3, ANN)
    _, state = await service.state(pk)
    assert state["score"]["red"] == 0 and state["pending"] == 3


async def test_a_chain_failing_half_way_leaves_nothing_applied(service: GameService, db_path: Path) -> None:
    pk = await toy_game(service)
    outbox = rows(db_path, "SELECT count(*) FROM outbox")[0][0]
    with pytest.raises(RuleError, match="step 3 of the order") as refused:
        await service.apply_order(pk, "red", "add 1 > add 2 > fly away > bank", 0, ANN)
    assert "add 1" in refused.value.allowed
    assert rows(db_path, "SELECT count(*) FROM move")[0][0] == 0
    assert rows(db_path, "SELECT version FROM game WHERE id=?", pk)[0][0] == 0
    assert rows(db_path, "SELECT count(*) FROM outbox")[0][0] == outbox
    version, state = await service.state(pk)
    assert version == 0 and state["pending"] == 0
    # a part past the end of the seat's turn refuses the whole chain too
    with pytest.raises(OrderRefused, match="no longer your turn"):
        await service.apply_order(pk, "red", "add 1 > bank > add 1", 0, ANN)
    assert rows(db_path, "SELECT count(*) FROM move")[0][0] == 0


async def test_an_order_is_checked_like_a_step(service: GameService) -> None:
    pk = await toy_game(service)
    with pytest.raises(NotAllowed):
        await service.apply_order(pk, "red", "add 1", 0, BOB)          # not Bob's seat
    with pytest.raises(OrderRefused, match="Nothing is asked of blue"):
        await service.apply_order(pk, "blue", "add 1", 0, BOB)
    with pytest.raises(OrderRefused, match="fits several"):
        await service.apply_order(pk, "red", "add", 0, ANN)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    with pytest.raises(StaleVersion):
        await service.apply_order(pk, "red", "add 1", 0, ANN)
    assert [s.version for s in await service.apply_order(pk, "red", "add 2", None, ANN)] == [2]


async def test_a_page_turn_never_enters_the_move_log(service: GameService, db_path: Path) -> None:
    """Navigation is not a move: an action marked ``nav`` is refused by the service, so it
    can never be recorded, undone, timed or counted."""
    pk = await toy_game(service)
    with pytest.raises(RuleError, match="no move"):
        await service.apply(pk, "red", {"type": "add", "n": 1, "nav": True}, 0, ANN)
    assert rows(db_path, "SELECT count(*) FROM move")[0][0] == 0
    assert rows(db_path, "SELECT version FROM game WHERE id=?", pk)[0][0] == 0


async def test_an_order_after_a_view_takes_that_views_marks_and_the_state_they_reached(
        service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    """A typed order is matched against the seat's marked view (bot/service/marks.py): of the
    state the game is kept hot at, the marks its last view found (no action applied again to
    mark them); the later parts of a chain are marked afresh; the plan and every step take the
    states the markings reached, applying nothing again. The steps are those of the same order
    without a view before it."""
    import engine
    from bot.service import marks
    from tests.bot import toygame

    marked: list[int] = []
    applied: list[int] = []
    game = engine.get(toygame.id)  # the adapter every caller applies through
    real_marking, real_apply = marks.marked_steps, game.apply
    monkeypatch.setattr(marks, "marked_steps", lambda *a, **k: marked.append(1) or real_marking(*a, **k))
    monkeypatch.setattr(game, "apply", lambda *a: applied.append(1) or real_apply(*a))
    pk, other = await toy_game(service), await toy_game(service)
    seen = await service.view(pk, "red", ANN)
    assert len(marked) == 1 and len(applied) == len(seen.view["actions"])
    _version, start = await service.state(pk)
    second = len(game.own_view(real_apply(start, "red", {"type": "add", "n": 2}), "red")["actions"])
    marked.clear()
    applied.clear()
    steps = await service.apply_order(pk, "red", "add 2 > bank", 0, ANN)
    with_view = len(marked), len(applied)
    marked.clear()
    applied.clear()
    again = await service.apply_order(other, "red", "add 2 > bank", 0, ANN)  # no view before
    assert with_view[0] == 1 and len(marked) == 2, "the first state takes the view's marks"
    # only the second state's actions, to mark them: 'add 2' and 'bank' were applied by the
    # markings, which the plan and the steps take the states of
    assert with_view[1] == second
    assert len(applied) == with_view[1] + len(seen.view["actions"]), "without a view: the first state marked"
    assert [(s.version, s.action, s.active) for s in steps] == [(s.version, s.action, s.active) for s in again]
    assert (await service.state(pk))[1] == (await service.state(other))[1]
