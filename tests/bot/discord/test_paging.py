"""Long lists of choices: Granada pages any list longer than a select menu holds
({"type": "menu"} steps, engine/granada/menus.py). A click on a page turns it in place (no
move recorded in the DM, nothing for the thread, the clock runs on); a typed order or an
autocomplete choice may name any legal action, whatever page is shown.

The game is a real one: the built-in player plays Granada from a seed until a player is
asked to choose among more than 25 actions (the first seed that gets there, found with the
engine alone); the game is imported with the service as an operator would, its seats given
to alice and bob, and the step that brings the long list is made through the service, which
sends the player his prompt by DM.
"""

from __future__ import annotations

import asyncio
from functools import cache
from typing import Any

import pytest

import engine
from bot.discord import ids, orders
from bot.service import GameService
from engine.api import find_action, strip_label
from engine.players import choose
from tests.bot.discord.conftest import (
    Harness,
    choices_of,
    newest_prompt,
    offered_index,
    prompt_digest,
    reveal,
)
from tests.standin.server import AUTOCOMPLETE_RESULT

pytestmark = pytest.mark.slow

LIMIT = 25


@cache
def long_list() -> tuple[int, list[dict[str, Any]]]:
    """(seed, moves) of the first game of the built-in player whose last move brings a player
    who was not asked anything before a list of more than ``LIMIT`` actions."""
    module = engine.get("granada")
    for seed in range(1, 41):
        state = module.setup(seed, {})
        moves: list[dict[str, Any]] = []
        before: list[str] = []
        for n in range(4000):
            if module.result(state) is not None:
                break
            active = module.active(state)
            role = active[0]
            if moves and role not in before and len(module.legal_actions(state, role)) > LIMIT:
                return seed, moves
            before = active
            action = choose(module, state, role, seed * 7919 + n)
            moves.append({"role": role, "action": strip_label(action)})
            state = module.apply(state, role, action)
    raise AssertionError("no game of seeds 1 to 40 meets a list longer than a select menu")


async def a_long_list(h: Harness, svc: GameService) -> tuple[int, str, int, dict[str, Any]]:
    """The game at its long list: (game, role asked, his user, the state)."""
    seed, moves = long_list()
    *first, last = moves
    pk = await svc.import_game({"format": 1, "game": "granada", "seed": seed, "options": {},
                                "moves": [dict(m, seq=n) for n, m in enumerate(first, start=1)]})
    users = {"christian": h.alice, "muslim": h.bob}
    for role, user in users.items():
        await svc.substitute(pk, role, user, h.names[user])
    await svc.set_place(pk, guild_id=h.guild, channel_id=h.channel)
    await svc.set_schedule(pk, pace="24h")
    await svc.apply(pk, last["role"], last["action"], len(first), users[last["role"]])
    h.bot.poke()  # type: ignore[union-attr]
    version, state = await svc.state(pk)
    role = engine.get("granada").active(state)[0]
    return pk, role, users[role], state


async def test_a_page_turns_in_place_and_a_typed_order_reaches_any_page(table: Harness, svc: GameService) -> None:
    h = table
    si = h.si
    module = engine.get("granada")
    pk, role, user, state = await a_long_list(h, svc)
    version = (await svc.game(pk)).version
    offered = module.actions(state, role)
    legal = module.legal_actions(state, role)
    assert len(legal) > LIMIT >= len(offered)
    pages = [i for i, a in enumerate(offered) if a["type"] == "menu"]
    hidden = [a for a in legal if find_action(offered, a) is None]
    assert len(pages) >= 2 and hidden

    # The prompt by DM offers the pages; the deadline is set for this move.
    prompt = await newest_prompt(h, user)
    assert si.channels[prompt.channel_id].recipients == [user]
    for _ in range(100):
        if (await h.bot.store.game(pk)).deadline_version == version:  # type: ignore[union-attr]
            break
        await asyncio.sleep(0.05)
    deadline = (await svc.game(pk)).deadline_at
    assert deadline is not None
    await si.wait_quiet(1.5)  # the thread's post of the last move is out
    seen = len(si.messages)

    # A click on the last page: the same message now shows that page, and says nothing more.
    cid, value = await reveal(h, user, prompt, pages[-1])
    await h.settle(await si.click(user, prompt.id, cid, [value] if value else None))
    turned = si.messages[prompt.id]
    page = await svc.view(pk, role, user)
    assert page.version == version + 1 and prompt_digest(turned) == ids.digest(page.view)
    assert sorted({offered_index(c, v) for c, v in choices_of(turned)}) == list(range(len(page.view["actions"])))
    assert any(find_action(page.view["actions"], a) is not None for a in hidden)
    assert "✅" not in turned.content and f"move {version + 1}" in turned.content
    assert len(si.messages) == seen  # no new message: no record, no thread post
    moves = await svc.moves(pk, since=version)
    assert [m["action"]["type"] for m in moves] == ["menu"]
    # Paging does not buy time: the clock of the move runs on.
    await h.bot.deadlines.once()  # type: ignore[union-attr]
    assert (await svc.game(pk)).deadline_at == deadline
    assert (await h.bot.store.game(pk)).deadline_version == version + 1  # type: ignore[union-attr]

    # Back to the first page, then a typed order naming an action on another page.
    back = next(i for i, a in enumerate(page.view["actions"]) if a["type"] == "menu" and a.get("group") is None)
    cid, value = await reveal(h, user, turned, back)
    await h.settle(await si.click(user, prompt.id, cid, [value] if value else None))
    top = await svc.view(pk, role, user)
    target = next(a for a in hidden if find_action(top.view["actions"], a) is None)
    auto = await si.autocomplete(user, h.channel, "play", "order", order=target["label"], game=pk)
    await si.answered(auto)
    assert auto.response_type == AUTOCOMPLETE_RESULT
    suggested = {c["name"]: c["value"] for c in auto.callbacks[0].json["data"]["choices"]}
    assert suggested.get(target["label"][:100]) == orders.choice_value(top.version, legal.index(target))
    order = await h.cmd(user, "play", channel=h.channel, game=pk, order=target["label"])
    answer = h.answers(order)[-1]
    assert answer.ephemeral and f"✅ {target['label']}"[:100] in answer.content, answer.content
    done = await svc.moves(pk, since=top.version)
    assert [strip_label(m["action"]) for m in done] == [strip_label(target)]
    assert si.violations == []


def test_a_typed_order_is_matched_against_every_page() -> None:
    """``orders.plan`` (the engine alone): the label of an action on another page than the
    one offered is a legal order."""
    module = engine.get("granada")
    seed, moves = long_list()
    state = module.setup(seed, {})
    for m in moves:
        state = module.apply(state, m["role"], m["action"])
    role = module.active(state)[0]
    offered = module.actions(state, role)
    hidden = [a for a in module.legal_actions(state, role) if find_action(offered, a) is None]
    assert hidden
    for action in hidden:
        assert orders.plan("granada", state, role, action["label"]) == [action]
    assert all(a["type"] != "menu" for a in orders.legal_actions("granada", state, role))
