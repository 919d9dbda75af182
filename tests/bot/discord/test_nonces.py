"""Nonces (issue 13, item 1): Discord answers a nonce it saw from the bot in the last minutes
with the message it made then, so two different messages must never share one. Row 3's
closed-DM notice was ``o3t`` and row 137's prompt ``o`` + base36(137) = ``o3t`` too: the
prompt never arrived."""

from __future__ import annotations

import logging
import random
from datetime import datetime

import pytest
import sqlalchemy as sa

from bot.discord import nonces
from bot.discord.cogs.delivery import send_once
from bot.discord.table import Outgoing
from bot.models import Outbox, dumps, utcnow
from bot.service import GameService
from tests.bot.discord.conftest import Harness, choices_of
from tests.standin.server import PRIVATE_THREAD

OUTBOX_KINDS = [nonces.PRIVATE, nonces.NOTICE, nonces.MAP, nonces.REVEAL,
                *(f"{nonces.LINES}{k}" for k in range(40))]
"""Kinds an outbox delivery uses: its DM or private-thread message, the closed-DM notice, the
map, the final pictures, up to 40 chunks of lines; each also resent under fresh nonces."""
DEADLINE_KINDS = [nonces.PRIVATE, nonces.NOTICE, nonces.LINES]


def with_fresh(kinds: list[str]) -> list[str]:
    return [k2 for k in kinds for k2 in (k, nonces.fresh(k, 1), nonces.fresh(k, 2))]


def ids_to_try(limit: int, rnd: random.Random) -> list[int]:
    """Small ids, every base-36 digit-count boundary, the largest, and random ones between."""
    out = set(range(0, 600))
    for k in range(1, 13):
        out |= {36**k - 1, 36**k, 36**k + 1, 36**k * 3 + 29}
    out |= {limit, limit - 1}
    out |= {rnd.randrange(limit) for _ in range(400)}
    return sorted(i for i in out if 0 <= i <= limit)


def test_nonces_are_unique_within_discords_limit_over_every_id_and_kind_in_use() -> None:
    rnd = random.Random(13)
    seen: dict[str, tuple[object, ...]] = {}
    rows = ids_to_try(2**63 - 1, rnd)
    for row in rows:
        for kind in with_fresh(OUTBOX_KINDS):
            nonce = nonces.outbox(row)(kind)
            assert len(nonce) <= 25, nonce
            assert nonce not in seen, (nonce, seen.get(nonce), ("o", row, kind))
            seen[nonce] = ("o", row, kind)
            assert nonces.parse(nonce) == ("o", (row,), kind)
    games = ids_to_try(2**63 - 1, rnd)[::40]
    # A deadline's minute: every width boundary, today's and one near the last that fits (2084).
    dues = [0, 1, 35, 36, 1295, 1296, 36**5 - 1, nonces.minute(datetime(2026, 11, 29, 3, 0)),
            nonces.minute(datetime(2084, 12, 1)), *(rnd.randrange(36**5) for _ in range(5))]
    for game in games:
        for due in dues:
            for event in nonces.EVENTS:
                for seat in (None, 0, 1, 5):
                    for kind in with_fresh(DEADLINE_KINDS):
                        nonce = nonces.deadline(game, due, event, seat)(kind)
                        assert len(nonce) <= 25, nonce
                        assert nonce not in seen, (nonce, seen.get(nonce))
                        seen[nonce] = ("d", game, due, event, seat, kind)
                        parsed = nonces.parse(nonce)
                        assert parsed == ("d", (game, due, 35 if seat is None else seat), f"{event}/{kind}")
    for tournament in games:
        for round_no in (0, 1, 2, 35, 36, 126, 36**5 - 1):
            for kind in with_fresh([nonces.STANDINGS, nonces.PAIRINGS, nonces.SIGNUP, nonces.OPENED]):
                nonce = nonces.tournament_round(tournament, round_no)(kind)
                assert len(nonce) <= 25, nonce
                assert nonce not in seen, (nonce, seen.get(nonce))
                seen[nonce] = ("t", tournament, round_no, kind)
                assert nonces.parse(nonce) == ("t", (tournament, round_no), kind)
    for game in games:
        for kind in with_fresh([nonces.MATCHED, nonces.LOBBY, nonces.OPENED]):
            nonce = nonces.game(game)(kind)
            assert len(nonce) <= 25, nonce
            assert nonce not in seen, (nonce, seen.get(nonce))
            seen[nonce] = ("g", game, kind)
            assert nonces.parse(nonce) == ("g", (game,), kind)
    # The collision of the issue: row 3's notice and row 137's message.
    assert nonces.outbox(3)(nonces.NOTICE) != nonces.outbox(137)(nonces.PRIVATE)
    # Nothing that does not fit is made: an id or version too large, a kind too long.
    with pytest.raises(ValueError):
        nonces.outbox(36**13)
    with pytest.raises(ValueError):
        nonces.deadline(1, 36**5, nonces.REMIND)
    with pytest.raises(ValueError):
        nonces.outbox(1)("c" * 11)


async def test_a_nonce_that_gives_back_another_message_is_resent_under_a_fresh_one(
        table: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """The stand-in, like Discord, answers a repeated nonce with the OLD message, whatever the
    channel and the content. The bot notices that the message is not what it sent, logs it,
    and sends again under a fresh nonce; a retry of the whole send posts nothing twice."""
    h = table
    assert h.bot is not None
    elsewhere = h.bot.get_partial_messageable(h.si.add_text_channel(h.guild, "elsewhere"))
    channel = h.bot.get_partial_messageable(h.channel)
    ids = nonces.outbox(9)
    old = await elsewhere.send("an older message", nonce=ids(nonces.PRIVATE))
    with caplog.at_level(logging.WARNING, logger="bot.discord.delivery"):
        sent = await send_once(channel, Outgoing("the prompt"), ids, nonces.PRIVATE)
    assert sent.id != old.id and sent.content == "the prompt"
    assert h.si.messages[sent.id].channel_id == h.channel
    assert h.si.messages[sent.id].nonce == ids(nonces.fresh(nonces.PRIVATE, 1))
    assert any("gave back message" in r.getMessage() for r in caplog.records)
    again = await send_once(channel, Outgoing("the prompt"), ids, nonces.PRIVATE)  # a retry
    assert again.id == sent.id
    assert [m.content for m in h.si.channel_messages(h.channel)] == ["the prompt"]


async def test_a_prompt_whose_row_id_spells_an_old_notices_nonce_still_arrives(
        table: Harness, svc: GameService) -> None:
    """alice's DMs are closed: her first prompt (row r) goes to a private thread, after the
    notice. Row r*36+29's nonce used to be that notice's (``o`` + base36(r) + ``t``): Discord
    handed back the notice, the row was marked sent, and the prompt never came. (The test
    writes that row itself, as a long game would have, rather than playing 137 rows.)"""
    h = table
    si = h.si
    si.close_dms(h.alice)
    await h.open_game("toy", side="red", options="target=20")
    first = await si.wait_message(lambda m: si.channels[m.channel_id].type == PRIVATE_THREAD
                                  and bool(choices_of(m)), timeout=20)
    thread = first.channel_id
    await si.wait_quiet(0.5)
    notice = next(m for m in si.channel_messages(thread) if "could not send you a direct message" in m.content)
    rows = [o for o in await svc.outbox(1) if o.kind == "dm" and o.recipient == str(h.alice)]
    first_row = rows[0].id
    target = first_row * 36 + 29
    assert nonces.base36(target, 13).lstrip("0") == nonces.base36(first_row, 13).lstrip("0") + "t"
    info = await svc.game(1)
    async with svc.writing() as session:
        await session.execute(sa.insert(Outbox).values(
            id=target, game_pk=1, kind="dm", recipient=str(h.alice),
            payload=dumps({"type": "your_turn", "game": 1, "role": "red", "version": info.version}),
            dedupe_key=f"g1:v{info.version}:turn:red:again", attempts=0, created_at=utcnow(),
            next_attempt_at=utcnow()))
    assert h.bot is not None
    h.bot.poke()
    again = await si.wait_message(lambda m: m.channel_id == thread and m.id > notice.id and m.id != first.id
                                  and bool(choices_of(m)), timeout=20)
    assert again.nonce == nonces.outbox(target)(nonces.PRIVATE)
    assert "could not send you a direct message" not in again.content
    assert si.violations == []
