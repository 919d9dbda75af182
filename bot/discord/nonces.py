"""Nonces of the messages the bot sends, unique across everything it sends.

Discord checks a nonce sent with ``enforce_nonce`` against the messages the same author made
in the past few minutes, and hands back the older message instead of posting a new one. That
is what makes a retried send exactly-once, and also what makes two different messages that
happen to share a nonce a lost message. So a nonce is an injective function of what it
stands for: a source letter, its numbers in fixed-width base 36 (so that no number can run
into the next field), a separator, and a kind. Nothing else the bot sends carries a nonce.

* ``o`` + outbox row id (13 digits) + ``.`` + kind: a delivery of one row (or of a thread
  group, under its first row);
* ``d`` + game id (13) + deadline (5: the minute it falls due, since 1970) + event letter +
  seat + ``.`` + kind: a deadline's reminder or notice (the event: reminder, time out,
  claimable, waits, passed; the seat: the role's index, or ``z`` for the game's thread). The
  deadline, not the game's version: a game that waits on keeps its version while one deadline
  follows another, and each deadline's notices are messages of their own (a nonce used again
  would be taken for a try again of the first: bot/discord/posting.py);
* ``t`` + tournament id (13) + round (5) + ``.`` + kind: a round's post in the tournament's
  thread (the standings after it, with the next round's pairings; round 0: the sign-up
  message, the announcement in the channel, the first pairings, at the start);
* ``g`` + game id (13) + ``.`` + kind: a post about a game in its parent channel (a match's
  or a new game's announcement, once its thread is open), or its lobby message in its thread.

Discord allows 25 characters: 15 for an outbox row's prefix leave 10 for the kind, 22 for a
deadline's leave 3.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

LIMIT = 25
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
ID_WIDTH = 13
"""Base-36 digits of a 64-bit id (36**13 > 2**63)."""
VERSION_WIDTH = 5
"""Base-36 digits of a game version or round (36**5 > 60 million), or of a deadline's minute
(until December 2084)."""
THREAD_SEAT = "z"
KIND = re.compile(r"[0-9a-z~]{1,10}")
EVENTS = "rxcwa"

# Kinds in use (each a short lowercase word; a resend under a fresh nonce adds "~N").
PRIVATE = "p"          # a player's message: prompt, end of game, note
NOTICE = "n"           # the one-time "your DMs are closed" notice in the private thread
MAP = "m"              # the spectator map after a thread post
REVEAL = "r"           # the final reveal and replay
LINES = "c"            # + chunk number: the lines of a thread post
REMIND, EXPIRED, CLAIMABLE, WAITS, PASSED = "r", "x", "c", "w", "a"  # a deadline's events (EVENTS)
STANDINGS = "s"        # a tournament round's standings (and the next round's pairings)
PAIRINGS = "p"         # a tournament's first pairings (under round 0: before round 1)
MATCHED = "m"          # a matched game's announcement in the channel its tickets came from
LOBBY = "l"            # a game's lobby message, in its thread
OPENED = "o"           # a game's announcement in its channel (/game new, a rematch); a tournament's
SIGNUP = "j"           # a tournament's sign-up message (under round 0)


def base36(n: int, width: int) -> str:
    """``n`` in base 36, zero-padded to exactly ``width`` digits (ValueError if it does not fit)."""
    if n < 0:
        raise ValueError(f"{n} is negative")
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = DIGITS[r] + out
    if len(out) > width:
        raise ValueError(f"{out!r} (base 36) is more than {width} digits")
    return out.rjust(width, "0")


class Nonces:
    """The nonces of one sender's messages: ``prefix`` (its source and numbers) and a kind."""

    def __init__(self, prefix: str) -> None:
        if len(prefix) + 1 >= LIMIT:
            raise ValueError(f"nonce prefix {prefix!r} leaves no room for a kind")
        self.prefix = prefix

    def __call__(self, kind: str) -> str:
        if not KIND.fullmatch(kind):
            raise ValueError(f"bad nonce kind {kind!r}")
        out = f"{self.prefix}.{kind}"
        if len(out) > LIMIT:
            raise ValueError(f"nonce {out!r} is longer than Discord's {LIMIT} characters")
        return out

    def __repr__(self) -> str:
        return f"Nonces({self.prefix!r})"


def outbox(row_id: int) -> Nonces:
    return Nonces("o" + base36(row_id, ID_WIDTH))


def deadline(game_pk: int, due: int, event: str, seat: int | None = None) -> Nonces:
    """The nonces of one deadline event (``EVENTS``) of a game's deadline falling due at minute
    ``due`` (:func:`minute`), for the seat of index ``seat`` (None: the game's thread)."""
    if len(event) != 1 or event not in EVENTS:
        raise ValueError(f"bad deadline event {event!r}")
    if seat is not None and not 0 <= seat < 35:
        raise ValueError(f"bad seat index {seat}")
    where = THREAD_SEAT if seat is None else base36(seat, 1)
    return Nonces("d" + base36(game_pk, ID_WIDTH) + base36(due, VERSION_WIDTH) + event + where)


def minute(when: datetime) -> int:
    """Minutes since 1970 of a naive UTC time (a deadline's, for :func:`deadline`): deadlines
    of one game are an hour apart at least, so no two share a minute."""
    return int(when.replace(tzinfo=UTC).timestamp()) // 60


def tournament_round(tournament_id: int, round_no: int) -> Nonces:
    """The nonces of one round's posts in a tournament's thread."""
    return Nonces("t" + base36(tournament_id, ID_WIDTH) + base36(round_no, VERSION_WIDTH))


def game(game_pk: int) -> Nonces:
    """The nonces of the posts about one game in its parent channel, and of its lobby message."""
    return Nonces("g" + base36(game_pk, ID_WIDTH))


def fresh(kind: str, attempt: int) -> str:
    """The kind of the ``attempt``-th resend under a fresh nonce, after Discord handed back
    another message for the first (1, 2, ...)."""
    return f"{kind}~{attempt}"


PATTERN = re.compile(r"(?:o(?P<row>[0-9a-z]{13})|d(?P<game>[0-9a-z]{13})(?P<due>[0-9a-z]{5})(?P<event>[a-z])(?P<seat>[0-9a-z])"
                     r"|t(?P<tournament>[0-9a-z]{13})(?P<round>[0-9a-z]{5})|g(?P<about>[0-9a-z]{13}))"
                     r"\.(?P<kind>[0-9a-z~]{1,10})")


def parse(nonce: str) -> tuple[str, tuple[int, ...], str]:
    """(source, numbers, kind) of a nonce made here (a deadline's numbers are game, minute and
    seat, 35 for the thread; its kind is its event letter, a slash, its kind): the inverse of the functions above, which is what proves that two
    different messages never share a nonce."""
    m = PATTERN.fullmatch(nonce)
    if m is None:
        raise ValueError(f"{nonce!r} is not one of the bot's nonces")
    if m["row"] is not None:
        return "o", (int(m["row"], 36),), m["kind"]
    if m["tournament"] is not None:
        return "t", (int(m["tournament"], 36), int(m["round"], 36)), m["kind"]
    if m["about"] is not None:
        return "g", (int(m["about"], 36),), m["kind"]
    return ("d", (int(m["game"], 36), int(m["due"], 36), int(m["seat"], 36)),
            f"{m['event']}/{m['kind']}")
