"""Playing through Discord: prompts by DM, buttons, /play with autocomplete and compound
orders, /undo, the ephemeral looks, and every refusal a player can meet (stale button,
someone else's seat, no seat, too fast), each a short ephemeral sentence that changes
nothing. The toy race stands in for a rules engine."""

from __future__ import annotations

import logging

import pytest

from bot.service import GameService
from tests.bot.discord.conftest import FAST, Harness, choices_of, components
from tests.standin import Message, StandIn
from tests.standin.server import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE_RESULT,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE,
    EPHEMERAL,
)


async def started(h: Harness) -> int:
    """A running toy race, alice red (to move), bob blue; the thread id."""
    thread = await h.open_game("toy", side="red", options="target=20")
    await prompt_of(h, h.alice)
    return thread


async def prompt_of(h: Harness, user: int, after: int = 0) -> Message:
    """The user's newest prompt with live choices, newer than message ``after``."""
    await h.si.wait_message(lambda m: m.id > after and h.si.visible_to(m, user) and bool(choices_of(m))
                            and m.ephemeral_to is None, timeout=20)
    return max((m for m in h.si.messages.values() if not m.deleted and h.si.visible_to(m, user)
                and choices_of(m) and m.ephemeral_to is None), key=lambda m: m.id)


def button(msg: Message, label: str) -> str:
    return next(c["custom_id"] for c in components(msg) if c.get("label") == label)


async def test_turn_dm_buttons_and_the_next_prompt(table: Harness, svc: GameService) -> None:
    h = table
    await started(h)
    dm = await prompt_of(h, h.alice)
    assert h.si.dm_channel(h.alice) is not None and dm.channel_id == h.si.dm_channel(h.alice).id
    assert "It is your turn" in dm.content and "Your hand:" in dm.content
    assert [c["label"] for c in components(dm)][:2] == ["add 1", "add 2"]
    click = await h.si.click(h.alice, dm.id, button(dm, "add 2"))
    await h.settle(click)
    assert click.response_type == DEFERRED_UPDATE and click.latency is not None and click.latency < 3
    answered = h.si.messages[dm.id]
    assert answered.components == [] and "✅ add 2" in answered.content  # the record stays, the buttons go
    nxt = await prompt_of(h, h.alice, after=dm.id)
    assert "2 points pending" in nxt.content and "bank 2 points" in [c.get("label") for c in components(nxt)]
    assert (await svc.game(1)).version == 1
    assert h.si.violations == []


async def test_a_stale_button_is_refused_with_the_new_prompt(table: Harness, svc: GameService) -> None:
    h = table
    await started(h)
    dm = await prompt_of(h, h.alice)
    stale_id = button(dm, "add 1")
    await h.settle(await h.si.click(h.alice, dm.id, button(dm, "add 2")))
    nxt = await prompt_of(h, h.alice, after=dm.id)
    # A second click on the first prompt (a double click, or an old message): its moment passed.
    h.si.messages[dm.id].components = [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "add 1", "custom_id": stale_id}]}]  # as a slow client still shows it
    again = await h.si.click(h.alice, dm.id, stale_id)
    await h.settle(again)
    reply = h.answers(again)[-1]
    assert "offered at move 0" in reply.content and "moved on to move 1" in reply.content
    assert "2 points pending" in reply.content
    assert (await svc.game(1)).version == 1  # nothing changed
    # The refusal's own prompt carries live buttons for move 1.
    assert reply.id > nxt.id and choices_of(reply) and choices_of(reply)[0][0].split(":")[3] == "1"


async def test_only_the_seat_holder_can_act_and_spectators_only_look(table: Harness, svc: GameService) -> None:
    h = table
    thread = await started(h)
    dm = await prompt_of(h, h.alice)
    # bob's client forges a click on alice's button: refused by the bot's own check.
    forged = await h.si.click(h.bob, dm.id, button(dm, "add 2"), forged_in=h.si.open_dm(h.bob))
    await h.settle(forged)
    assert "Only the player holding the red seat" in h.answers(forged)[-1].content
    assert h.answers(forged)[-1].ephemeral
    # carol holds no seat: /play is refused, /status and /map show the spectator's side.
    play = await h.cmd(h.carol, "play", channel=thread, order="add 2")
    assert "You hold no seat in game #1" in h.answers(play)[-1].content
    status = await h.cmd(h.carol, "status", channel=thread)
    text = h.answers(status)[-1].content
    assert "Waiting for: red" in text and "Your hand" not in text and "You draw" not in text
    hand = await h.cmd(h.carol, "hand", channel=thread)
    assert "You hold no seat" in h.answers(hand)[-1].content
    assert (await svc.game(1)).version == 0
    assert h.si.violations == []


async def test_play_by_autocomplete_label_and_compound_order_then_undo(table: Harness, svc: GameService) -> None:
    h = table
    thread = await started(h)
    auto = await h.si.autocomplete(h.alice, thread, "play", "order", order="add")
    await h.si.answered(auto)
    assert auto.response_type == AUTOCOMPLETE_RESULT
    choices = auto.callbacks[0].json["data"]["choices"]
    assert [c["name"] for c in choices] == ["add 1", "add 2"] and choices[1]["value"] == "v0:1"
    one = await h.cmd(h.alice, "play", channel=thread, order="v0:1")
    assert one.response_type == DEFERRED_CHANNEL_MESSAGE and one.ephemeral
    assert "✅ add 2" in h.answers(one)[-1].content and h.answers(one)[-1].ephemeral
    two = await h.cmd(h.alice, "play", channel=thread, order="add 1 > add 2")
    assert "5 points pending" in h.answers(two)[-1].content
    assert (await svc.game(1)).version == 3
    undo = await h.cmd(h.alice, "undo", channel=thread)
    assert "taken back" in h.answers(undo)[-1].content and "3 points pending" in h.answers(undo)[-1].content
    # A compound order that does not fit from start to end changes nothing.
    bad = await h.cmd(h.alice, "play", channel=thread, order="add 1 > fly away")
    text = h.answers(bad)[-1].content
    assert "step 2 of the order" in text and "not a legal order" in text and "Allowed:" in text
    assert (await svc.game(1)).version == 4
    vague = await h.cmd(h.alice, "play", channel=thread, order="add")
    assert "fits several orders" in h.answers(vague)[-1].content
    assert h.si.violations == []


async def test_looks_are_ephemeral_and_private(table: Harness, svc: GameService) -> None:
    h = table
    thread = await started(h)
    _, state = await svc.state(1)
    card = state["hands"]["red"][0]
    hand = await h.cmd(h.alice, "hand", channel=thread)
    assert hand.response_type == DEFERRED_CHANNEL_MESSAGE and hand.callbacks[0].json["data"]["flags"] == EPHEMERAL
    assert f"Your hand in Toy race #1 (red): {card}" in h.answers(hand)[-1].content
    log = await h.cmd(h.alice, "log", channel=thread)
    assert f"You draw a {card}." in h.answers(log)[-1].content and h.answers(log)[-1].ephemeral
    spectator_log = await h.cmd(h.carol, "log", channel=thread)
    assert "You draw" not in h.answers(spectator_log)[-1].content
    prefs = await h.cmd(h.alice, "prefs", channel=thread, autopass=True)
    assert "auto-pass is **on**" in h.answers(prefs)[-1].content
    assert (await svc.game(1)).seat("red").prefs == {"autopass": True}
    nomap = await h.cmd(h.alice, "map", channel=thread)
    assert "no picture" in h.answers(nomap)[-1].content  # the toy race has no pictures


async def test_too_many_orders_in_a_row_are_slowed_down(standin: StandIn, tmp_path) -> None:
    from dataclasses import replace

    h = Harness(standin, tmp_path / "data", replace(FAST, rate_per_10s=3))
    await h.start()
    try:
        answers = []
        for _ in range(4):
            inter = await h.cmd(h.alice, "game list")
            answers.append(h.answers(inter)[-1].content)
        assert "going too fast" in answers[-1] and all("too fast" not in a for a in answers[:3])
        assert all(i.type == APPLICATION_COMMAND for i in h.si.interactions.values())
    finally:
        await h.stop()


async def test_closed_dms_fall_back_to_a_private_thread_told_once(table: Harness) -> None:
    h = table
    h.si.close_dms(h.alice)
    await h.open_game("toy", side="red")
    prompt = await prompt_of(h, h.alice)
    place = h.si.channels[prompt.channel_id]
    assert place.type == 12 and place.parent_id == h.channel and place.members == {h.si.application_id, h.alice}
    assert prompt.content.startswith(f"<@{h.alice}>") and prompt not in h.si.public_messages()
    told = [m for m in h.si.channel_messages(place.id) if "could not send you a direct message" in m.content]
    assert len(told) == 1
    # Play on in the private thread; later prompts come there too, without a second notice.
    await h.settle(await h.si.click(h.alice, prompt.id, button(prompt, "add 1")))
    nxt = await prompt_of(h, h.alice, after=prompt.id)
    assert nxt.channel_id == place.id
    assert len([m for m in h.si.messages.values() if "could not send you a direct message" in m.content]) == 1
    assert h.si.violations == []


async def test_a_member_of_another_server_cannot_reach_the_game(table: Harness, svc: GameService) -> None:
    h = table
    await started(h)
    h.si.global_commands = list(h.si.guild_commands[h.guild])  # as after `alcazaba sync`
    other_guild = h.si.add_guild("elsewhere", h.carol)
    elsewhere = h.si.add_text_channel(other_guild, "lobby")
    look = await h.cmd(h.carol, "status", channel=elsewhere, game=1)
    assert "Game #1 is played on another server." in h.answers(look)[-1].content
    assert h.answers(look)[-1].ephemeral


async def test_playing_the_built_in_player(table: Harness, svc: GameService) -> None:
    h = table
    assert h.bot is not None and h.bot.user is not None
    await h.cmd(h.alice, "game new", game="toy", side="blue", opponent=h.bot.user.id, seed=4, options="target=20")
    info = await svc.game(1)
    assert info.status == "running" and info.seat("red").is_bot  # no one to wait for: it starts
    prompt = await prompt_of(h, h.alice)  # the built-in player moved first; now alice
    assert "It is your turn" in prompt.content and (await svc.game(1)).active == ["blue"]


async def test_a_click_whose_acknowledgement_fails_still_makes_the_move(
        table: Harness, svc: GameService, caplog: pytest.LogCaptureFixture) -> None:
    """Discord sometimes refuses the acknowledgement of a click (the 3-second window passed
    on a slow link: 404 Unknown interaction). The player's order must still be carried out,
    and the failure logged as a warning, not crash the handler ("generator didn't yield")."""
    h = table
    await started(h)
    dm = await prompt_of(h, h.alice)
    h.si.fault("POST", r"/interactions/\d+/[^/]+/callback$", mode="before", status=404)
    with caplog.at_level(logging.WARNING):
        click = await h.si.click(h.alice, dm.id, button(dm, "add 2"))
        nxt = await prompt_of(h, h.alice, after=dm.id)
        await h.si.wait_quiet(0.3)
    assert click.response_type is None  # Discord never saw the acknowledgement
    assert (await svc.game(1)).version == 1
    assert "2 points pending" in nxt.content
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    assert any("could not acknowledge" in r.getMessage() for r in caplog.records)


async def test_an_interaction_delivered_twice_is_carried_out_once(
        table: Harness, svc: GameService, caplog: pytest.LogCaptureFixture) -> None:
    """The gateway may deliver an event twice (a replay after a resume): the click is carried
    out and answered once, and the second delivery is logged, not answered again (Discord
    refuses a second answer: 40060)."""
    h = table
    await started(h)
    dm = await prompt_of(h, h.alice)
    with caplog.at_level(logging.WARNING):
        click = await h.si.click(h.alice, dm.id, button(dm, "add 2"))
        await h.si.redeliver(click)
        await h.settle(click)
        await prompt_of(h, h.alice, after=dm.id)
        await h.si.wait_quiet(0.3)
    assert (await svc.game(1)).version == 1
    assert len([r for r in h.si.requests if f"/interactions/{click.id}/" in r.route]) == 1
    assert h.si.violations == []
    assert any("reached the bot twice" in r.getMessage() for r in caplog.records)
