"""No one gets in: the refusals test_play.py does not cover. A button's custom id is all the
bot reads of a click, and a hostile client can send any custom id on any message it sees; so
a button of ANOTHER game clicked on a player's own prompt, and a custom id with its game, seat
or choice altered, must each be refused with one clear private sentence and change nothing.
A member of another server reaches no game with /play or /game resign either.

(Covered in test_play.py: a stale button, a forged click on the other seat's button, a member
with no seat using /play and /hand, /status from another server.)
"""

from __future__ import annotations

from bot.discord import ids
from bot.service import GameService
from tests.bot.discord.conftest import Harness, components, delivered
from tests.bot.discord.test_play import button, prompt_of, started
from tests.standin import Interaction, Message


async def second_game(h: Harness) -> int:
    """Game #2, a toy race of bob (red) and carol (blue): alice holds no seat in it."""
    await h.cmd(h.bob, "game new", game="toy", side="red", opponent=h.carol, options="target=20")
    thread = h.si.threads(h.channel)[-1].id
    lobby = h.si.channel_messages(thread)[0]
    await h.settle(await h.si.click(h.carol, lobby.id, components(lobby)[0]["custom_id"]))
    return thread


async def forge_click(h: Harness, user: int, msg: Message, custom_id: str) -> Interaction:
    """The user's client shows ``custom_id`` on his own message and clicks it (what a
    modified client can send; the bot must check everything the id claims)."""
    original = msg.components
    forged = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "add 2", "custom_id": custom_id}]}]
    h.si.messages[msg.id].components = forged
    inter = await h.si.click(user, msg.id, custom_id)
    await h.settle(inter)
    if h.si.messages[msg.id].components == forged:  # the bot left the message alone: the client shows it again
        h.si.messages[msg.id].components = original
    return inter


async def versions(svc: GameService, *pks: int) -> list[tuple[str, int]]:
    return [((info := await svc.game(pk)).status, info.version) for pk in pks]


def refusal(h: Harness, inter: Interaction) -> str:
    """The one private sentence the click got."""
    answers = h.answers(inter)
    assert answers, "no answer"
    text = answers[-1].content
    assert answers[-1].ephemeral or h.si.channels[answers[-1].channel_id].type == 1, text  # ephemeral or in a DM
    assert len(text) < 400 and "Traceback" not in text and "Error" not in text, text
    return text


async def test_a_button_of_another_game_is_refused_on_ones_own_prompt(table: Harness, svc: GameService) -> None:
    h = table
    await started(h)
    await second_game(h)
    mine = await prompt_of(h, h.alice)
    theirs = await prompt_of(h, h.bob)  # bob's prompt in game #2 (he is red there, to move)
    other_id = button(theirs, "add 2")
    assert other_id.split(":")[2] == "2" and button(mine, "add 2").split(":")[2] == "1"
    before = await versions(svc, 1, 2)
    await delivered(h, svc)
    public = len(h.si.public_messages())
    inter = await forge_click(h, h.alice, mine, other_id)
    assert "Only the player holding the red seat of game #2 can answer this." in refusal(h, inter)
    assert await versions(svc, 1, 2) == before
    assert len(h.si.public_messages()) == public
    assert h.si.violations == []


async def test_an_altered_custom_id_is_refused(table: Harness, svc: GameService) -> None:
    h = table
    await started(h)
    await second_game(h)
    mine = await prompt_of(h, h.alice)
    _, _, game, version, role, index, dig = button(mine, "add 2").split(":")
    assert game == "1"
    before = await versions(svc, 1, 2)
    await delivered(h, svc)
    public = len(h.si.public_messages())
    cases = [
        # (custom id, what the refusal must say)
        (ids.action_id(2, int(version), int(role), int(index), dig),
         "Only the player holding the red seat of game #2 can answer this."),
        (ids.action_id(987654, int(version), int(role), int(index), dig), "There is no game 987654."),
        (ids.action_id(1, int(version), 7, int(index), dig), "That button belongs to no seat of this game."),
        (ids.action_id(1, int(version), 1, int(index), dig),
         "Only the player holding the blue seat of game #1 can answer this."),
        # A choice the prompt never offered: refused with the prompt as it stands.
        (ids.action_id(1, int(version), int(role), 99, dig), "That choice is not on offer"),
        (ids.action_id(1, int(version) + 5, int(role), int(index), "0" * 8), "has moved on to move 0"),
        (ids.undo_id(1, int(version), 1, dig), "Only the player holding the blue seat of game #1"),
        (ids.page_id(2, int(version), 0, 0, dig), "Only the player holding the red seat of game #2"),
        (ids.select_id(987654, int(version), 0, 0, dig), None),
    ]
    for custom_id, expected in cases:
        msg = await prompt_of(h, h.alice)
        if custom_id.startswith("az:s:"):
            h.si.messages[msg.id].components = [{"type": 1, "components": [
                {"type": 3, "custom_id": custom_id, "options": [{"label": "add 2", "value": "1"}],
                 "min_values": 1, "max_values": 1}]}]
            inter = await h.si.click(h.alice, msg.id, custom_id, ["1"])
            await h.settle(inter)
            expected = "There is no game 987654."
        else:
            inter = await forge_click(h, h.alice, msg, custom_id)
        text = refusal(h, inter)
        assert expected in text, (custom_id, text)
        assert await versions(svc, 1, 2) == before, custom_id
        assert len(h.si.public_messages()) == public, custom_id
    assert h.si.violations == []


async def test_a_member_of_another_server_can_neither_play_nor_resign(table: Harness, svc: GameService) -> None:
    h = table
    await started(h)
    h.si.global_commands = list(h.si.guild_commands[h.guild])  # as after `alcazaba sync`
    other_guild = h.si.add_guild("elsewhere", h.carol)
    elsewhere = h.si.add_text_channel(other_guild, "lobby")
    h.si.add_member(other_guild, h.alice)  # alice herself, typing in the other server
    before = await versions(svc, 1)
    await delivered(h, svc)
    public = len(h.si.public_messages())
    for user, path, options in [(h.carol, "play", {"order": "add 2", "game": 1}),
                                (h.alice, "play", {"order": "add 2", "game": 1}),
                                (h.alice, "game resign", {"game": 1}),
                                (h.carol, "game abort", {"game": 1}),
                                (h.alice, "undo", {"game": 1})]:
        inter = await h.cmd(user, path, channel=elsewhere, **options)
        text = h.answers(inter)[-1].content
        assert "Game #1 is played on another server." in text, (path, text)
        assert h.answers(inter)[-1].ephemeral
        assert await versions(svc, 1) == before, path
    assert len(h.si.public_messages()) == public
    assert h.si.violations == []
