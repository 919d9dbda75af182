"""A clean shutdown gives back what the process holds (issue 34): its claimed outbox rows and
its games' claims, so that its successor (or another process) takes them at once; a process
that dies keeps them for their lease (test_claims, tests/reliability). Two services on one
database stand for the stopping process and the next."""

from __future__ import annotations

from bot.service import GameService
from tests.bot.test_claims import pg_database, running_games, two  # noqa: F401 - fixtures

LEASE = 3600.0
"""A lease far longer than the test: what is taken over was given back, not expired."""


async def test_the_outbox_rows_and_claims_given_back_are_taken_at_once(
        two: tuple[GameService, GameService]) -> None:  # noqa: F811 - the fixture
    old, new = two
    games = await running_games(old, 2)
    held = await old.claim_outbox("proc-old", lease_seconds=LEASE, together=("channel",))
    assert held and await new.claim_outbox("proc-new", lease_seconds=LEASE, together=("channel",)) == []
    assert await old.claim_games("bots", "proc-old", games, LEASE) == set(games)
    assert await old.claim_game("deadline", "proc-old", games[0], LEASE)
    sent = held[0].id
    assert await old.mark_sent(sent, "proc-old")

    assert await old.release_outbox("proc-old") == len(held) - 1  # the one sent stays sent
    assert await old.release_claims("proc-old") == len(games) + 1

    taken = await new.claim_outbox("proc-new", lease_seconds=LEASE, together=("channel",))
    assert sorted(i.id for i in taken) == sorted(i.id for i in held if i.id != sent)
    assert await new.claim_games("bots", "proc-new", games, LEASE) == set(games)
    assert await new.claim_game("deadline", "proc-new", games[0], LEASE)
    # Another worker's holdings are not this one's to give back.
    assert await old.release_outbox("proc-old") == 0 and await old.release_claims("proc-old") == 0
    assert {c.claimed_by for c in await new.claims()} == {"proc-new"}
